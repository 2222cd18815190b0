package main

// Which subjects a run measures (BENCH_SUBJECTS), in which order, and what
// happens when one fails: it is reported, its namespace is removed, and
// the others go on (issue #31: one failed subject must not lose the
// others' figures).

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpuform/terraform-provider-gpu/bench/spec"
)

// subjectGo names the Go benchmarks in failures and BENCH_SUBJECTS.
const subjectGo = "Go benchmarks"

// subjectNames are BENCH_SUBJECTS' words, in the order a run measures.
var subjectNames = []struct{ word, subject string }{
	{"gpu", subjectGPU}, {"dra", subjectDRA}, {"peer", subjectPeer}, {"data", subjectData}, {"floor", subjectFloor},
	{"dra-floor", subjectDRAFloor}, {"go", subjectGo},
}

// parseSubjects reads BENCH_SUBJECTS ("" or "all": every subject).
func parseSubjects(s string) ([]string, error) {
	words := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' })
	if len(words) == 0 || (len(words) == 1 && words[0] == "all") {
		words = nil
		for _, n := range subjectNames {
			words = append(words, n.word)
		}
	}
	var out []string
	for _, w := range words {
		i := slices.IndexFunc(subjectNames, func(n struct{ word, subject string }) bool { return n.word == w })
		if i < 0 {
			var known []string
			for _, n := range subjectNames {
				known = append(known, n.word)
			}
			return nil, fmt.Errorf("BENCH_SUBJECTS: unknown subject %q (known: %s)", w, strings.Join(known, ", "))
		}
		if !slices.Contains(out, subjectNames[i].subject) {
			out = append(out, subjectNames[i].subject)
		}
	}
	return out, nil
}

// measures says whether the run measures subject.
func (cfg config) measures(subject string) bool { return slices.Contains(cfg.subjects, subject) }

// order is the run's Terraform and floor subjects in run r: the selected
// ones, the peer only with its binary. It alternates between runs, so that
// none always runs first (cold caches) or last (a cluster still settling);
// the DRA subject and the peer run next to gpu_workload.
func order(r int, selected []string, withPeer bool) []string {
	var out []string
	for _, n := range subjectNames {
		if n.subject == subjectGo || !slices.Contains(selected, n.subject) || (n.subject == subjectPeer && !withPeer) {
			continue
		}
		out = append(out, n.subject)
	}
	if r%2 == 0 {
		slices.Reverse(out)
	}
	return out
}

// failure is one subject that failed, for the report and the exit code.
type failure struct {
	Run     int    `json:"run,omitempty"`
	N       int    `json:"n,omitempty"`
	Subject string `json:"subject"`
	Error   string `json:"error"`
}

func (f failure) String() string {
	if f.N == 0 {
		return f.Subject + ": " + f.Error
	}
	return fmt.Sprintf("run %d, N=%d, %s: %s", f.Run, f.N, f.Subject, f.Error)
}

// fail records a failure.
func (b *bench) fail(f failure) {
	logf("   FAILED: %s\n", f)
	b.failures = append(b.failures, f)
}

// failuresError is the run's error when a subject failed: the report is
// written, and the exit code says it is incomplete.
func failuresError(fs []failure) error {
	if len(fs) == 0 {
		return nil
	}
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.String()
	}
	return fmt.Errorf("%d subject(s) failed (the report has the others' figures):\n  %s", len(fs), strings.Join(parts, "\n  "))
}

// workloads is the N gpu_workload / DRA / terraform_data / API floor / peer
// runs. A subject's failure is recorded and the next one runs; only a
// cancelled run, or nodes that cannot be created, stop it.
func (b *bench) workloads(ctx context.Context, meta *meta) error {
	cfg := b.cfg
	maxN := slices.Max(cfg.allNs())
	nodes := (maxN+spec.GPUsPerNode-1)/spec.GPUsPerNode + 1
	logf("== creating %d kwok nodes bench-%s-* with %d GPUs each\n", nodes, cfg.id, spec.GPUsPerNode)
	if _, err := createNodes(ctx, b.cs, cfg.id, nodes); err != nil {
		return err
	}
	meta.Nodes = nodes
	selected := slices.Clone(cfg.subjects)
	if cfg.measures(subjectDRA) || cfg.measures(subjectDRAFloor) {
		if err := b.setupDRA(ctx, nodes); err != nil {
			b.fail(failure{Subject: subjectDRA, Error: "setting up the DRA nodes: " + err.Error()})
			selected = slices.DeleteFunc(selected, func(s string) bool { return s == subjectDRA || s == subjectDRAFloor })
		} else {
			meta.DRANodes = nodes
		}
	}
	for r := 1; r <= cfg.runs; r++ {
		for _, n := range cfg.nsOfRun(r) {
			for pos, subject := range order(r, selected, b.peer != nil) {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				logf("== run %d/%d, N=%d, %s\n", r, cfg.runs, n, subject)
				b.measure(ctx, measurement{Run: r, N: n, Subject: subject, Position: pos + 1, Seconds: map[string]float64{}})
			}
		}
	}
	return nil
}

// measure runs one subject at one N. Its completed steps are kept also
// when a later one fails (each (subject, N, step) is merged on its own).
func (b *bench) measure(ctx context.Context, m measurement) {
	var err error
	switch m.Subject {
	case subjectGPU:
		err = b.gpuWorkload(ctx, &m)
	case subjectDRA:
		err = b.gpuWorkloadDRA(ctx, &m)
	case subjectData:
		err = b.terraformData(ctx, &m)
	case subjectFloor:
		err = b.apiFloor(ctx, &m, floorRun{suffix: "api", poolRef: b.poolRef})
	case subjectDRAFloor:
		err = b.apiFloor(ctx, &m, floorRun{suffix: "api-dra", poolRef: spec.DRAPoolRef(b.cfg.id), flags: []string{"-dra"}})
	case subjectPeer:
		err = b.peerWorkload(ctx, &m)
	}
	if len(m.Seconds) > 0 {
		b.results = append(b.results, m)
		logf("   %s\n", formatSteps(m))
	}
	if err == nil {
		return
	}
	b.fail(failure{Run: m.Run, N: m.N, Subject: m.Subject, Error: err.Error()})
	if cerr := b.removeNamespaces(context.WithoutCancel(ctx), m); cerr != nil {
		logln("   removing the failed subject's namespace:", cerr)
	}
}

// removeNamespaces deletes the namespaces of a failed measurement and
// waits for them: what a failed apply left running holds GPUs of the
// run's nodes, which the next subject needs.
func (b *bench) removeNamespaces(ctx context.Context, m measurement) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	prefix := fmt.Sprintf("bench-%s-n%d-r%d-", b.cfg.id, m.N, m.Run)
	list, err := b.cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: selector(b.cfg.id)})
	if err != nil {
		return err
	}
	var errs []error
	for _, ns := range list.Items {
		if strings.HasPrefix(ns.Name, prefix) {
			errs = append(errs, deleteNamespaceAndWait(ctx, b.cs, ns.Name))
		}
	}
	return errors.Join(errs...)
}
