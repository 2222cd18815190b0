package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var (
	earlier = stamp{Date: time.Date(2026, 11, 27, 17, 24, 0, 0, time.UTC), Commit: "f71fc8f"}
	now     = stamp{Date: time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC), Commit: "abc1234"}
)

// full is a measurement of every Terraform step, each taking secs.
func full(run, n int, subject string, secs float64, s stamp) measurement {
	m := measurement{Run: run, N: n, Subject: subject, Measured: s, StateBytes: 700_000, Seconds: map[string]float64{},
		CPUSeconds: map[string]float64{}}
	for _, step := range terraformSteps {
		m.Seconds[step], m.CPUSeconds[step] = secs, secs/2
	}
	return m
}

// A row (subject, N, step) this run measured replaces all its earlier
// figures; every other row keeps its figures and its stamp. A subject that
// failed after its apply replaces plan and apply only.
func TestMergeMeasurements(t *testing.T) {
	old := []measurement{
		full(1, 100, subjectGPU, 1, earlier), full(2, 100, subjectGPU, 3, earlier),
		full(1, 300, subjectGPU, 5, earlier), full(1, 100, subjectData, 0.5, earlier),
	}
	partial := measurement{Run: 1, N: 100, Subject: subjectGPU, Measured: now,
		Seconds: map[string]float64{stepPlan: 10, stepApply: 20}, StateBytes: 1}
	dra := full(1, 100, subjectDRA, 12, now)
	merged := mergeMeasurements(old, []measurement{partial, dra})

	for _, c := range []struct {
		n             int
		subject, step string
		want          []float64
	}{
		{100, subjectGPU, stepPlan, []float64{10}},
		{100, subjectGPU, stepApply, []float64{20}},
		{100, subjectGPU, stepRefresh, []float64{1, 3}},
		{100, subjectGPU, stepDestroy, []float64{1, 3}},
		{300, subjectGPU, stepApply, []float64{5}},
		{100, subjectData, stepPlan, []float64{0.5}},
		{100, subjectDRA, stepPlan, []float64{12}},
	} {
		if got := seconds(merged, c.n, c.subject, c.step); !slices.Equal(got, c.want) {
			t.Errorf("N=%d %s %s = %v, want %v", c.n, c.subject, c.step, got, c.want)
		}
	}
	for _, m := range merged {
		if m.Subject == subjectGPU && m.N == 100 && m.Measured.same(earlier) {
			if _, ok := m.CPUSeconds[stepApply]; ok || m.StateBytes != 0 {
				t.Errorf("run %d kept the replaced apply's CPU or state: %+v", m.Run, m)
			}
		}
	}
	if _, ok := old[0].Seconds[stepPlan]; !ok {
		t.Error("the merge changed the previous file's maps")
	}
	if got := age(merged, 100, subjectGPU, stepRefresh, now); got != " (2026-11-27, `f71fc8f`)" {
		t.Errorf("age of a kept row = %q", got)
	}
	if got := age(merged, 100, subjectGPU, stepPlan, now); got != "" {
		t.Errorf("age of a replaced row = %q", got)
	}
	if got := mergedNs(merged); !slices.Equal(got, []int{100, 300}) {
		t.Errorf("mergedNs = %v", got)
	}
	if got := earlierStamps(merged, now); len(got) != 1 || !got[0].same(earlier) {
		t.Errorf("earlierStamps = %v", got)
	}
}

// What this run did not produce is kept: Go benchmarks, the large cluster,
// request samples of other N, and the peer's description while its figures
// are.
func TestMergeResultsKeeps(t *testing.T) {
	prev := &resultsFile{
		Run:            earlier,
		Measurements:   []measurement{full(1, 100, subjectPeer, 4, earlier), full(1, 100, subjectGPU, 1, earlier)},
		Requests:       []requestSample{{Run: 1, N: 100, Measured: earlier}, {Run: 1, N: 300, Measured: earlier}},
		GoBenchmarks:   []goBenchmark{{Name: "BenchmarkX", Measured: earlier}},
		Scale:          &scaleResult{Nodes: 5000},
		PeerKubernetes: "v3.2.1",
	}
	cur := &resultsFile{Run: now, Measurements: []measurement{full(1, 100, subjectGPU, 2, now)},
		Requests: []requestSample{{Run: 1, N: 100, Measured: now}}}
	got := mergeResults(prev, cur)
	if len(got.GoBenchmarks) != 1 || got.Scale == nil || got.Scale.Nodes != 5000 || got.PeerKubernetes != "v3.2.1" {
		t.Fatalf("merged %+v", got)
	}
	if len(got.Requests) != 2 || got.Requests[0].N != 300 || !got.Requests[1].Measured.same(now) {
		t.Errorf("requests %+v", got.Requests)
	}
	cur.GoBenchmarks = []goBenchmark{{Name: "BenchmarkY", Measured: now}}
	cur.Measurements = append(cur.Measurements, full(1, 100, subjectPeer, 3, now))
	cur.PeerKubernetes = "v3.3.0"
	if got := mergeResults(prev, cur); got.GoBenchmarks[0].Name != "BenchmarkY" || got.PeerKubernetes != "v3.3.0" {
		t.Errorf("this run's Go benchmarks and peer not taken: %+v", got)
	}
}

// A results.json written before the merge has no stamps: its figures take
// the date and commit of the report beside it.
func TestLoadPreviousLegacy(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "results.md")
	header := "# x\n\n| | |\n|---|---|\n| date | 2026-11-27 17:24 UTC (took 17m7s) |\n| commit | `f71fc8f` |\n\n" +
		"## Go benchmarks\n\n| benchmark | µs/op | B/op | allocs/op | goal | met? |\n|---|---:|---:|---:|---|---|\n" +
		"| RenderOnPoolID | 9.5 | 8616 | 63 | ≤ 25 µs | yes |\n| GenerateValues/flyte-core | 73.4 | 38942 | 253 | – | – |\n\n## Raw runs\n"
	legacy := `{"measurements": [{"run": 1, "n": 100, "subject": "gpu_workload", "position": 1, "seconds": {"plan": 0.8}}],
	"requests": [{"run": 1, "n": 100, "refresh_seconds": 1.2, "refresh": {"GET deployments": 3}, "idle": {}, "counted": {}}],
	"scale": null, "peer_kubernetes": ""}`
	if err := os.WriteFile(out, []byte(header), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rawPathOf(out), []byte(legacy), 0o644); err != nil {
		t.Fatal(err)
	}
	prev, err := loadPrevious(out)
	if err != nil {
		t.Fatal(err)
	}
	if !prev.Run.same(earlier) || !prev.Measurements[0].Measured.same(earlier) || !prev.Requests[0].Measured.same(earlier) {
		t.Fatalf("stamps %+v, %+v, %+v", prev.Run, prev.Measurements[0].Measured, prev.Requests[0].Measured)
	}
	if g := prev.GoBenchmarks; len(g) != 2 || g[0].Name != "BenchmarkRenderOnPoolID" || g[0].NsPerOp != 9500 ||
		g[1].Name != "BenchmarkGenerateValues/flyte-core" || g[1].AllocsPerOp != 253 || !g[1].Measured.same(earlier) {
		t.Errorf("Go benchmarks from the report: %+v", g)
	}
	if prev.Requests[0].Refresh[requestKey{"GET", "deployments"}] != 3 {
		t.Errorf("requests %+v", prev.Requests[0])
	}
	if missing, err := loadPrevious(filepath.Join(dir, "none.md")); err != nil || len(missing.Measurements) != 0 {
		t.Errorf("no previous file: %+v, %v", missing, err)
	}
}

// The committed results.json reads back: the merge starts from it.
func TestLoadCommittedResults(t *testing.T) {
	prev, err := loadPrevious("../results.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(prev.Measurements) == 0 || prev.Run.IsZero() || prev.Run.Commit == "unknown" || prev.Meta == nil || len(prev.GoBenchmarks) == 0 {
		t.Fatalf("run %+v, %d measurements", prev.Run, len(prev.Measurements))
	}
	for _, m := range prev.Measurements {
		if m.Measured.IsZero() {
			t.Fatalf("measurement without a stamp: %+v", m)
		}
	}
}

// The per-N table marks the kept figures with their date and commit, and
// the DRA table refuses a verdict on a ratio of two runs.
func TestReportMarksEarlierFigures(t *testing.T) {
	results := mergeMeasurements(
		[]measurement{full(1, 100, subjectGPU, 1, earlier), full(1, 100, subjectData, 0.5, earlier)},
		[]measurement{full(1, 100, subjectDRA, 1.1, now), {Run: 1, N: 100, Subject: subjectData, Measured: now,
			Seconds: map[string]float64{stepPlan: 0.25}}})
	var b strings.Builder
	perNTable(&b, results, 100, now)
	draTable(&b, results, 100, now)
	got := b.String()
	for _, want := range []string{
		"| plan, no state | 1.00 s (2026-11-27, `f71fc8f`) | 0.25 s | – |",
		"| refresh plan, no changes | 1.00 s (2026-11-27, `f71fc8f`) | 0.50 s (2026-11-27, `f71fc8f`) |",
		"| plan, no state | 1.00 s (2026-11-27, `f71fc8f`) | 1.10 s | 1.10× (different runs) | ≤ 1.2× | – |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
}

// A failed subject is named in the report with its error cut short, and
// the run's error lists every failure.
func TestFailureReport(t *testing.T) {
	fs := []failure{
		{Run: 1, N: 100, Subject: subjectDRA, Error: "terraform apply exited 1, expected 0\n" + strings.Repeat("line\n", 20)},
		{Subject: subjectGo, Error: "exit status 2"},
	}
	var b strings.Builder
	failureReport(&b, fs)
	got := b.String()
	for _, want := range []string{"## Failures in this run", "- run 1, N=100, gpu_workload DRA: terraform apply exited 1", "  …", "- Go benchmarks: exit status 2"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	if err := failuresError(fs); err == nil || !strings.Contains(err.Error(), "2 subject(s) failed") {
		t.Errorf("failuresError = %v", err)
	}
	if failuresError(nil) != nil {
		t.Error("no failures, an error")
	}
}
