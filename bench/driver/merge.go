package main

// The report merges with the previous results.json (issue #31): a row
// (subject, N, step) measured in this run replaces every earlier figure of
// that row; a row this run did not measure keeps its figures, with the date
// and commit they were measured at, which the tables show. So a partial
// run (BENCH_SUBJECTS, BENCH_N, a failed subject) updates its own rows and
// leaves the others as they were.

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// stamp is when a figure was measured: the run's start and commit.
type stamp struct {
	Date   time.Time `json:"date"`
	Commit string    `json:"commit"`
}

func (s stamp) IsZero() bool { return s.Date.IsZero() && s.Commit == "" }

// same compares stamps by instant (== on time.Time also compares the
// location and the monotonic reading).
func (s stamp) same(o stamp) bool { return s.Date.Equal(o.Date) && s.Commit == o.Commit }

// label is how a table marks a figure of an earlier run.
func (s stamp) label() string {
	return fmt.Sprintf("%s, `%s`", s.Date.Format("2006-01-02"), s.Commit)
}

// resultsFile is results.json. Files written before the merge have no
// "run", no "go_benchmarks" and no "measured" stamps (migrateStamps).
type resultsFile struct {
	Run            stamp           `json:"run"`            // the run that last wrote the file
	Meta           *meta           `json:"meta,omitempty"` // its header, for `driver report`
	Measurements   []measurement   `json:"measurements"`
	Requests       []requestSample `json:"requests"`
	GoBenchmarks   []goBenchmark   `json:"go_benchmarks,omitempty"`
	Scale          *scaleResult    `json:"scale"`
	PeerKubernetes string          `json:"peer_kubernetes"`
	Failures       []failure       `json:"failures,omitempty"` // this run's only
}

// rawPathOf is the JSON file beside a Markdown report.
func rawPathOf(out string) string { return strings.TrimSuffix(out, ".md") + ".json" }

// loadPrevious reads the results.json beside out, or an empty file when
// there is none.
func loadPrevious(out string) (*resultsFile, error) {
	data, err := os.ReadFile(rawPathOf(out))
	if os.IsNotExist(err) {
		return &resultsFile{}, nil
	}
	if err != nil {
		return nil, err
	}
	var prev resultsFile
	if err := json.Unmarshal(data, &prev); err != nil {
		return nil, fmt.Errorf("%s: %w", rawPathOf(out), err)
	}
	if prev.Run.IsZero() {
		prev.Run = legacyStamp(out)
	}
	if len(prev.GoBenchmarks) == 0 {
		prev.GoBenchmarks = legacyGoBenchmarks(out)
	}
	migrateStamps(&prev, prev.Run)
	return &prev, nil
}

// The header rows of a report written before results.json had "run".
var (
	legacyDate   = regexp.MustCompile(`(?m)^\| date \| (\d{4}-\d\d-\d\d \d\d:\d\d) UTC`)
	legacyCommit = regexp.MustCompile("(?m)^\\| commit \\| `([^`]+)`")
)

// legacyStamp is the date and commit in the header of the report beside a
// results.json that has no "run": that run measured every figure in it.
func legacyStamp(out string) stamp {
	data, err := os.ReadFile(out)
	if err != nil {
		return stamp{Commit: "unknown"}
	}
	s := stamp{Commit: "unknown"}
	if m := legacyDate.FindSubmatch(data); m != nil {
		s.Date, _ = time.Parse("2006-01-02 15:04", string(m[1]))
	}
	if m := legacyCommit.FindSubmatch(data); m != nil {
		s.Commit = string(m[1])
	}
	return s
}

// legacyGoRow is a row of the Go benchmarks table: name, µs/op, B/op,
// allocs/op.
var legacyGoRow = regexp.MustCompile(`(?m)^\| ([A-Za-z]\S*) \| ([\d.]+) \| (\d+) \| (\d+) \|`)

// legacyGoBenchmarks reads the Go benchmarks table of a report whose
// results.json did not hold them (written before the merge).
func legacyGoBenchmarks(out string) []goBenchmark {
	data, err := os.ReadFile(out)
	if err != nil {
		return nil
	}
	doc := string(data)
	start := strings.Index(doc, "## Go benchmarks\n")
	if start < 0 {
		return nil
	}
	section := doc[start+len("## Go benchmarks\n"):]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	var rows []goBenchmark
	for _, m := range legacyGoRow.FindAllStringSubmatch(section, -1) {
		us, _ := strconv.ParseFloat(m[2], 64)
		bytes, _ := strconv.ParseInt(m[3], 10, 64)
		allocs, _ := strconv.ParseInt(m[4], 10, 64)
		rows = append(rows, goBenchmark{Name: "Benchmark" + m[1], NsPerOp: us * 1000, BytesPerOp: bytes, AllocsPerOp: allocs})
	}
	return rows
}

// migrateStamps gives every figure without a stamp the file's.
func migrateStamps(f *resultsFile, s stamp) {
	for i := range f.Measurements {
		if f.Measurements[i].Measured.IsZero() {
			f.Measurements[i].Measured = s
		}
	}
	for i := range f.Requests {
		if f.Requests[i].Measured.IsZero() {
			f.Requests[i].Measured = s
		}
	}
	for i := range f.GoBenchmarks {
		if f.GoBenchmarks[i].Measured.IsZero() {
			f.GoBenchmarks[i].Measured = s
		}
	}
}

// mergeResults is prev with cur laid over it (cur's figures all carry
// cur.Run's stamp).
func mergeResults(prev, cur *resultsFile) *resultsFile {
	out := &resultsFile{Run: cur.Run, Failures: cur.Failures, Scale: cur.Scale, PeerKubernetes: cur.PeerKubernetes}
	out.Measurements = mergeMeasurements(prev.Measurements, cur.Measurements)
	out.Requests = mergeRequests(prev.Requests, cur.Requests)
	out.GoBenchmarks = cur.GoBenchmarks
	if len(out.GoBenchmarks) == 0 {
		out.GoBenchmarks = prev.GoBenchmarks
	}
	if out.Scale == nil {
		out.Scale = prev.Scale
	}
	// The peer's description goes with its figures: kept while any are.
	if out.PeerKubernetes == "" && slices.ContainsFunc(out.Measurements, func(m measurement) bool { return m.Subject == subjectPeer }) {
		out.PeerKubernetes = prev.PeerKubernetes
	}
	return out
}

// rowKey is one row of the merge: a subject's step at one N.
type rowKey struct {
	subject string
	n       int
	step    string
}

// mergeMeasurements drops from old every step cur measured (at the same
// subject and N), drops old measurements left without a step, and appends
// cur.
func mergeMeasurements(old, cur []measurement) []measurement {
	fresh := map[rowKey]bool{}
	for _, m := range cur {
		for step := range m.Seconds {
			fresh[rowKey{m.Subject, m.N, step}] = true
		}
	}
	var out []measurement
	for _, m := range old {
		m = withoutSteps(m, func(step string) bool { return fresh[rowKey{m.Subject, m.N, step}] })
		if len(m.Seconds) > 0 {
			out = append(out, m)
		}
	}
	return append(out, cur...)
}

// withoutSteps is m without the steps drop names, in every per-step map
// (copied, so the caller's are not changed).
func withoutSteps(m measurement, drop func(string) bool) measurement {
	del := func(step string) bool { return drop(step) }
	m.Seconds = deleteKeys(m.Seconds, del)
	m.ProviderHWMKiB = deleteKeys(m.ProviderHWMKiB, del)
	m.TerraformMaxRSSKiB = deleteKeys(m.TerraformMaxRSSKiB, del)
	m.CPUSeconds = deleteKeys(m.CPUSeconds, del)
	m.ProviderCPUSeconds = deleteKeys(m.ProviderCPUSeconds, del)
	m.MachineBusy = deleteKeys(m.MachineBusy, del)
	m.Profiles = deleteKeys(m.Profiles, del)
	if drop(stepApply) {
		m.StateBytes = 0 // the state after the apply goes with it
	}
	return m
}

// deleteKeys is a copy of in without the keys drop names (nil stays nil).
func deleteKeys[V any](in map[string]V, drop func(string) bool) map[string]V {
	if in == nil {
		return nil
	}
	out := make(map[string]V, len(in))
	for k, v := range in {
		if !drop(k) {
			out[k] = v
		}
	}
	return out
}

// mergeRequests keeps the earlier request samples of the N this run did not
// count (they belong to gpu_workload's refresh plan at that N).
func mergeRequests(old, cur []requestSample) []requestSample {
	var out []requestSample
	for _, s := range old {
		if !slices.ContainsFunc(cur, func(c requestSample) bool { return c.N == s.N }) {
			out = append(out, s)
		}
	}
	return append(out, cur...)
}

// mergedNs is every N with a measurement, ascending.
func mergedNs(ms []measurement) []int {
	var ns []int
	for _, m := range ms {
		if !slices.Contains(ns, m.N) {
			ns = append(ns, m.N)
		}
	}
	slices.Sort(ns)
	return ns
}

// earlierStamps are the stamps other than now among ms, oldest first.
func earlierStamps(ms []measurement, now stamp) []stamp {
	var out []stamp
	for _, m := range ms {
		if !m.Measured.same(now) && !slices.ContainsFunc(out, m.Measured.same) {
			out = append(out, m.Measured)
		}
	}
	slices.SortFunc(out, func(a, b stamp) int { return a.Date.Compare(b.Date) })
	return out
}

// writeReport merges this run's figures with the previous results.json and
// writes both files. A previous file that cannot be read is reported and
// replaced: this run's figures come first.
func (b *bench) writeReport(m meta, goBench []goBenchmark, scale *scaleResult) error {
	now := stamp{Date: m.Started.Truncate(time.Second), Commit: m.Commit}
	cur := &resultsFile{Run: now, Measurements: b.results, Requests: b.requests, GoBenchmarks: goBench, Scale: scale,
		PeerKubernetes: m.Peer, Failures: b.failures}
	migrateStamps(cur, now)
	prev, err := loadPrevious(b.cfg.out)
	if err != nil {
		logln("   warning: the previous results are not merged:", err)
		prev = &resultsFile{}
	}
	merged := mergeResults(prev, cur)
	m.Now, m.Peer, m.Failures = now, merged.PeerKubernetes, merged.Failures
	m.Ns, m.Earlier = mergedNs(merged.Measurements), earlierStamps(merged.Measurements, now)
	merged.Meta = &m
	if err := writeMarkdown(b.cfg.out, merged); err != nil {
		return err
	}
	raw, err := json.MarshalIndent(merged, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(rawPathOf(b.cfg.out), append(raw, '\n'), 0o644); err != nil {
		return err
	}
	logf("== wrote %s and %s (%s)\n", b.cfg.out, rawPathOf(b.cfg.out), m.Finished.Sub(m.Started).Round(time.Second))
	logf("%s", summary(m, merged.Measurements))
	return nil
}

// writeMarkdown renders the report of a merged results file.
func writeMarkdown(out string, f *resultsFile) error {
	report := renderReport(*f.Meta, f.Measurements, f.Requests, f.GoBenchmarks, f.Scale)
	return os.WriteFile(out, []byte(report), 0o644)
}

// rerender is `driver report`: results.md again from results.json, after a
// change of the report's code, without measuring.
func rerender(out string) error {
	f, err := loadPrevious(out)
	if err != nil {
		return err
	}
	if f.Meta == nil {
		return fmt.Errorf("%s holds no run header (written before `driver report` existed): rerun make bench", rawPathOf(out))
	}
	return writeMarkdown(out, f)
}
