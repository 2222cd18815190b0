package main

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gpuform/terraform-provider-gpu/bench/spec"
)

// The large-cluster section sits between these markers, so that
// BENCH_ONLY=scale can replace it in an existing report and leave the rest.
const (
	scaleBegin = "<!-- large-cluster:begin -->\n"
	scaleEnd   = "<!-- large-cluster:end -->\n"
)

// scaleSection is the report's "Large clusters" section.
func scaleSection(r *scaleResult) string {
	var b strings.Builder
	b.WriteString(scaleBegin)
	b.WriteString("## Large clusters (gpu_cluster_capacity)\n\n")
	fmt.Fprintf(&b, "`BENCH_SCALE=%g`: %d kwok nodes cloned round-robin from the GPU node fixtures of `scripts/localcluster/fixtures` "+
		"(labels, taints, capacity and allocatable kept; plus the run's label and a `%s=<run id>:NoSchedule` taint), and %d pods "+
		"created already bound (`spec.nodeName`), each asking for one unit of one of its node's NVIDIA extended resources "+
		"(a GPU, a MIG slice or a shared replica), spread round-robin without exceeding any node, in %d namespace(s), %d creates in flight; "+
		"kwok marks them Running. Then `terraform plan` of a configuration with only `data \"gpu_cluster_capacity\" \"all\" {}` "+
		"(no selector: it lists every node and every pod not Succeeded or Failed), %d times, and once more, untimed, through the "+
		"counting proxy with `TF_LOG_PROVIDER=TRACE` (requests, and the Read's own time from the framework's trace lines). "+
		"Measured %s, commit `%s`, %s, %s.\n\n",
		r.Scale, r.Nodes, spec.LabelKey, r.Pods, r.Namespaces, scaleInFlight, scaleRuns,
		r.Started.Format("2006-01-02 15:04 MST"), r.Commit, r.Machine, r.Terraform)

	atOne := r.Scale == 1
	goalMet := func(ok bool) string {
		if !atOne {
			return "– (goal is at BENCH_SCALE=1)"
		}
		return yesNo(ok)
	}
	var peak int64
	for _, v := range r.ProviderHWMKiB {
		peak = max(peak, v)
	}
	plan := median(r.PlanSeconds)
	b.WriteString("| | value | goal (K = 5,000, P = 20,000) | met? |\n|---|---:|---|---|\n")
	fmt.Fprintf(&b, "| `terraform plan`, median of %d | %.2f s (runs: %s) | ≤ %.0f s | %s |\n", len(r.PlanSeconds), plan,
		joinSeconds(r.PlanSeconds), scaleGoalSecs, goalMet(plan <= scaleGoalSecs))
	read := "–"
	if r.ReadSeconds > 0 {
		read = fmt.Sprintf("%.2f s", r.ReadSeconds)
	}
	fmt.Fprintf(&b, "| of which the provider's DataSource Read (trace log, untimed run) | %s | | |\n", read)
	fmt.Fprintf(&b, "| provider peak RSS (VmHWM), max of %d | %s (runs: %s) | ≤ 300 MB | %s |\n", len(r.ProviderHWMKiB), mib(peak),
		joinMiB(r.ProviderHWMKiB), goalMet(peak > 0 && float64(peak) <= scaleGoalKiB))
	fmt.Fprintf(&b, "| terraform peak RSS (ru_maxrss), median | %s | | |\n", mib(int64(medianInt(r.TerraformMaxRSSKiB))))
	fmt.Fprintf(&b, "| provider CPU, median | %.2f s | | |\n", median(r.ProviderCPUSeconds))
	fmt.Fprintf(&b, "| machine busy during the plan, median | %.0f%% | | |\n", 100*median(r.MachineBusy))
	fmt.Fprintf(&b, "| provider's API requests (counted) | %s | | |\n\n", formatCounts(r.Counted))
	if r.Profile != "" {
		b.WriteString("CPU profile of the provider serving a fifth, untimed plan (`" + profileDirEnv + "`, " +
			"`go tool pprof -top -cum`):\n\n```text\n" + r.Profile + "\n```\n\n")
	}

	pendingSection(&b, r.Pending, atOne)
	manageSection(&b, r.Manage)

	b.WriteString("Building the cluster (part of reproducing it, not of the goal):\n\n| | seconds |\n|---|---:|\n")
	fmt.Fprintf(&b, "| create %d nodes | %.1f |\n", r.Nodes, r.NodeCreateSeconds)
	fmt.Fprintf(&b, "| … until %s Ready (from the first create) | %.1f |\n", allOr(r.NodesReady, r.Nodes), r.NodeReadySeconds)
	fmt.Fprintf(&b, "| create %d bound pods | %.1f |\n", r.Pods, r.PodCreateSeconds)
	fmt.Fprintf(&b, "| … until %s Running (from the first create) | %.1f |\n", allOr(r.PodsRunning, r.Pods), r.PodRunningSeconds)
	fmt.Fprintf(&b, "| … until the API server serves under %d requests/s (%.0f/s; kwok still patching pod statuses) | %.1f |\n\n",
		settledRate, r.SettledRate, r.SettleSeconds)

	fmt.Fprintf(&b, "Nodes per fixture file: %s. Pods per resource: %s.\n\n", formatIntMap(r.NodesPerFixture), formatIntMap(r.PodsPerResource))

	if r.IdleBefore != nil && r.IdleAfter != nil {
		b.WriteString("The control plane while idle, before the nodes were created and with the nodes and pods in place " +
			"(kwok renews every node's Lease every 150 s, 600 s leases, `scripts/localcluster/kwok/kwokctl.yaml`; node status itself is refreshed every 10–20 min): CPU seconds " +
			"per second of each process, its RSS, and the API server's requests per second (`apiserver_request_total`, " +
			"everything on the shared cluster).\n\n")
		b.WriteString("| process | CPU before | CPU with the nodes | RSS before | RSS with the nodes |\n|---|---:|---:|---:|---:|\n")
		for _, name := range controlPlaneProcs {
			if _, ok := r.IdleAfter.CPUSeconds[name]; !ok {
				continue
			}
			fmt.Fprintf(&b, "| %s | %.2f | %.2f | %s | %s |\n", name, r.IdleBefore.CPUSeconds[name]/r.IdleBefore.Seconds,
				r.IdleAfter.CPUSeconds[name]/r.IdleAfter.Seconds, mib(r.IdleBefore.RSSKiB[name]), mib(r.IdleAfter.RSSKiB[name]))
		}
		fmt.Fprintf(&b, "| API requests/s (top: %s) | %.1f | %.1f | | |\n", topRequests(r.IdleAfter.Requests, r.IdleAfter.Seconds, 3),
			sumValues(r.IdleBefore.Requests)/r.IdleBefore.Seconds, sumValues(r.IdleAfter.Requests)/r.IdleAfter.Seconds)
		fmt.Fprintf(&b, "| machine MemAvailable | %s | %s | | |\n\n", mib(r.IdleBefore.MemAvail), mib(r.IdleAfter.MemAvail))
	}
	b.WriteString(scaleEnd)
	b.WriteString("\n")
	return b.String()
}

// allOr is "all" or, when the wait gave up, "n of total (wait timed out)".
func allOr(n, total int) string {
	if n >= total {
		return "all"
	}
	return fmt.Sprintf("%d of %d (the wait timed out; measured anyway)", n, total)
}

func joinSeconds(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf("%.2f", x)
	}
	return strings.Join(parts, ", ")
}

func joinMiB(xs []int64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = mib(x)
	}
	return strings.Join(parts, ", ")
}

func medianInt(xs []int64) float64 {
	f := make([]float64, len(xs))
	for i, x := range xs {
		f[i] = float64(x)
	}
	return median(f)
}

func formatIntMap(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

func sumValues(m map[requestKey]float64) float64 {
	var s float64
	for _, v := range m {
		s += v
	}
	return s
}

// topRequests names the n request kinds with the highest rate.
func topRequests(m map[requestKey]float64, seconds float64, n int) string {
	keys := sortedKeys(m)
	slices.SortStableFunc(keys, func(a, b requestKey) int {
		switch {
		case m[a] > m[b]:
			return -1
		case m[a] < m[b]:
			return 1
		}
		return 0
	})
	var parts []string
	for _, k := range keys[:min(n, len(keys))] {
		parts = append(parts, fmt.Sprintf("%s %.1f/s", k, m[k]/seconds))
	}
	return strings.Join(parts, ", ")
}

// spliceSection puts section (with its markers) in place of the one in doc,
// or before "## Raw runs" when doc has none, or at the end.
func spliceSection(doc, section string) string {
	if i := strings.Index(doc, scaleBegin); i >= 0 {
		if j := strings.Index(doc[i:], scaleEnd); j >= 0 {
			rest := strings.TrimPrefix(doc[i+j+len(scaleEnd):], "\n")
			return doc[:i] + section + rest
		}
	}
	if i := strings.Index(doc, "## Raw runs"); i >= 0 {
		return doc[:i] + section + doc[i:]
	}
	if doc != "" && !strings.HasSuffix(doc, "\n\n") {
		doc = strings.TrimRight(doc, "\n") + "\n\n"
	}
	return doc + section
}

// writeScaleOnly is BENCH_ONLY=scale: the large-cluster section replaces
// the one in the existing report, and "scale" the one in its JSON; the
// workload numbers stay as they were.
func writeScaleOnly(out string, r *scaleResult) error {
	old, err := os.ReadFile(out)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	if err := os.WriteFile(out, []byte(spliceSection(string(old), scaleSection(r))), 0o644); err != nil {
		return err
	}
	rawPath := strings.TrimSuffix(out, ".md") + ".json"
	raw := map[string]json.RawMessage{}
	if data, err := os.ReadFile(rawPath); err == nil {
		_ = json.Unmarshal(data, &raw)
	}
	if raw["scale"], err = json.Marshal(r); err != nil {
		return err
	}
	data, err := json.MarshalIndent(raw, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(rawPath, append(data, '\n'), 0o644); err != nil {
		return err
	}
	logf("== wrote the large-cluster section of %s and %s (%s)\n", out, rawPath, time.Since(r.Started).Round(time.Second))
	return nil
}
