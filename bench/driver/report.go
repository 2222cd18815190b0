package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/gpuform/terraform-provider-gpu/bench/spec"
)

// meta describes the run for the report header.
type meta struct {
	ID, Commit, Machine, Terraform, Server, Benchtime string
	Started, Finished                                 time.Time
	Ns, OnceNs                                        []int
	Runs, Nodes                                       int
	// Peer describes the terraform-provider-kubernetes binary compared
	// with ("": none given).
	Peer string
	// RunNs are the N this run measured; Ns (above) those of the merged
	// report. Subjects are this run's (BENCH_SUBJECTS), DRANodes the DRA
	// nodes it created.
	RunNs    []int
	Subjects []string
	DRANodes int
	// Now stamps this run's figures; Earlier are the runs whose figures
	// the merge kept (merge.go); Failures this run's failed subjects.
	Now      stamp
	Earlier  []stamp
	Failures []failure
}

func collectMeta(ctx context.Context, cs kubernetes.Interface, cfg config) (meta, error) {
	m := meta{ID: cfg.id, Started: time.Now().UTC(), Ns: cfg.allNs(), RunNs: cfg.allNs(), OnceNs: cfg.onceNs, Runs: cfg.runs,
		Benchtime: cfg.benchtime, Subjects: cfg.subjects}
	m.Terraform = terraformVersion(cfg.terraform)
	info, err := cs.Discovery().ServerVersion()
	if err != nil {
		return m, fmt.Errorf("cannot reach the cluster: %w", err)
	}
	m.Server = info.GitVersion
	m.Commit = gitCommit(cfg.root, cfg.out)
	m.Machine = machine()
	_ = ctx
	return m, nil
}

// gitCommit is the short commit, "+dirty" when tracked files other than the
// report differ from it.
func gitCommit(root, out string) string {
	head, err := exec.Command("git", "-C", root, "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	commit := strings.TrimSpace(string(head))
	args := []string{"-C", root, "status", "--porcelain", "--untracked-files=no", "--", "."}
	if rel, err := filepath.Rel(mustAbs(root), out); err == nil && !strings.HasPrefix(rel, "..") {
		args = append(args, ":(exclude)"+rel)
	}
	if status, err := exec.Command("git", args...).Output(); err == nil && len(strings.TrimSpace(string(status))) > 0 {
		commit += "+dirty"
	}
	return commit
}

func mustAbs(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return abs
}

func machine() string {
	cpu, mem, kernel := "unknown CPU", "unknown memory", ""
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(line, "MemTotal:"); ok {
				kib, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
				mem = fmt.Sprintf("%.1f GiB memory", kib/(1<<20))
			}
		}
	}
	if data, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		kernel = ", Linux " + strings.TrimSpace(string(data))
	}
	return fmt.Sprintf("%d CPUs (nproc; %s), %s%s", runtime.NumCPU(), cpu, mem, kernel)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// seconds collects one subject's step times at n over the runs.
func seconds(results []measurement, n int, subject, step string) []float64 {
	var out []float64
	for _, m := range results {
		if v, ok := m.Seconds[step]; ok && m.N == n && m.Subject == subject {
			out = append(out, v)
		}
	}
	return out
}

// comparison is one row of the per-N table.
type comparison struct {
	label, step, against, goalText string
	goal                           float64 // 0: informational
	goalAt                         []int   // the N the goal is stated for (issue #14)
}

// comparisons carry the goals of issue #14: plan and refresh within 3× of
// terraform_data and apply within 2× of the API floor at N=300, destroy
// within 1.5× of the floor at N=100 and 300. At other N the ratio is shown
// without a verdict.
var comparisons = []comparison{
	{"plan, no state", stepPlan, subjectData, "≤ 3×", 3, []int{300}},
	{"apply (waits for rollout)", stepApply, subjectFloor, "≤ 2×", 2, []int{300}},
	{"refresh plan, no changes", stepRefresh, subjectData, "≤ 3×", 3, []int{300}},
	{"destroy (waits until gone)", stepDestroy, subjectFloor, "≤ 1.5×", 1.5, []int{100, 300}},
}

func fmtSeconds(xs []float64) string {
	if len(xs) == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f s", median(xs))
}

// age is "" for figures of this run (now) and " (date, `commit`)" for those
// the merge kept from an earlier one: the stamp of subject's step at n.
func age(results []measurement, n int, subject, step string, now stamp) string {
	for _, m := range results {
		if _, ok := m.Seconds[step]; ok && m.N == n && m.Subject == subject {
			if m.Measured.same(now) {
				return ""
			}
			return " (" + m.Measured.label() + ")"
		}
	}
	return ""
}

// agedSeconds is fmtSeconds of subject's step at n, with its age.
func agedSeconds(results []measurement, n int, subject, step string, now stamp) string {
	xs := seconds(results, n, subject, step)
	if len(xs) == 0 {
		return "–"
	}
	return fmtSeconds(xs) + age(results, n, subject, step, now)
}

func perNTable(b *strings.Builder, results []measurement, n int, now stamp) {
	fmt.Fprintf(b, "| step | gpu_workload median | terraform_data median | API floor median | ratio | goal | met? |\n")
	fmt.Fprintf(b, "|---|---:|---:|---:|---|---|---|\n")
	for _, c := range comparisons {
		gw := seconds(results, n, subjectGPU, c.step)
		ratio, goal, met := "–", "–", "–"
		stated := c.goal > 0 && slices.Contains(c.goalAt, n)
		if stated {
			goal = c.goalText
		}
		if against := seconds(results, n, c.against, c.step); len(gw) > 0 && len(against) > 0 && median(against) > 0 {
			r := median(gw) / median(against)
			ratio = fmt.Sprintf("%.2f× vs %s", r, c.against)
			if stated {
				met = yesNo(r <= c.goal)
			}
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s |\n", c.label, agedSeconds(results, n, subjectGPU, c.step, now),
			agedSeconds(results, n, subjectData, c.step, now), agedSeconds(results, n, subjectFloor, c.step, now), ratio, goal, met)
	}
}

func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "**no**"
}

// mib formats KiB as decimal megabytes, the unit of the goal.
func mib(kib int64) string { return fmt.Sprintf("%.0f MB", float64(kib)*1024/1e6) }

// memoryGoal is the provider's peak memory budget at n workloads: 150 MB up
// to 300 (the goal the benchmark started with), 250 MB at 1,000 (issue #14).
func memoryGoal(n int) (kib float64, text string) {
	switch {
	case n >= 1000:
		return 250e6 / 1024, "≤ 250 MB"
	case n >= 300:
		return 150e6 / 1024, "≤ 150 MB"
	}
	return 0, "–"
}

func renderReport(m meta, results []measurement, requests []requestSample, goBench []goBenchmark, scale *scaleResult) string {
	var b strings.Builder
	b.WriteString("# gpu_workload performance benchmark\n\n")
	b.WriteString("Written by `make bench` (`scripts/bench.sh` runs `bench/driver`), with every raw number also in `results.json`; " +
		"rerun it to refresh both. " +
		"`BENCH_N=\"100 300\"`, `BENCH_RUNS=3`, `BENCH_N_ONCE=1000` and `BENCH_SCALE=1` are the defaults; " +
		"`BENCH_N=10 BENCH_RUNS=1 BENCH_N_ONCE= BENCH_SCALE=0.02 BENCH_GO_BENCHTIME=100ms make bench` is a quick smoke run.\n\n")
	fmt.Fprintf(&b, "| | |\n|---|---|\n")
	fmt.Fprintf(&b, "| date | %s (took %s) |\n", m.Started.Format("2006-01-02 15:04 MST"), m.Finished.Sub(m.Started).Round(time.Second))
	fmt.Fprintf(&b, "| commit | `%s` |\n", m.Commit)
	if len(m.Earlier) > 0 {
		fmt.Fprintf(&b, "| earlier figures | %s: kept from earlier runs, marked with their date and commit in the tables (this run measured %s) |\n",
			earlierList(m.Earlier), subjectList(m.Subjects))
	}
	fmt.Fprintf(&b, "| machine | %s |\n", m.Machine)
	fmt.Fprintf(&b, "| terraform | %s, `-parallelism` left at its default of 10 |\n", m.Terraform)
	fmt.Fprintf(&b, "| cluster | local kube-apiserver %s, controller-manager, scheduler and kwok (`scripts/localcluster`); %d extra kwok nodes with %d `nvidia.com/gpu` each for the run%s |\n",
		m.Server, m.Nodes, spec.GPUsPerNode, draNodesNote(m.DRANodes))
	fmt.Fprintf(&b, "| N | %s, %d run(s) each, medians over runs%s |\n", joinInts(without(m.RunNs, m.OnceNs)), m.Runs, onceNote(m.OnceNs))
	if m.Peer != "" {
		fmt.Fprintf(&b, "| peer | hashicorp/terraform-provider-kubernetes %s |\n", m.Peer)
	}
	b.WriteString("\n")
	failureReport(&b, m.Failures)

	b.WriteString("## What is measured\n\n")
	fmt.Fprintf(&b, "- **gpu_workload**: `count = N` Deployments, `cloud = %q`, `replicas = %d`, `image = %q`, `gpu { count = %d }`, "+
		"each in a fresh namespace per run. Steps: `terraform plan` with no state, `terraform apply -auto-approve` "+
		"(includes its own plan; waits for every rollout), `terraform plan -detailed-exitcode` after apply (checked to exit 0: "+
		"no changes), `terraform destroy -auto-approve` (includes its refresh; waits until Deployments and pods are gone).\n",
		spec.Cloud, spec.Replicas, spec.Image, spec.GPUCount)
	fmt.Fprintf(&b, "- The workloads set `node_pool` to the literal id of a pool (%s, %d GPUs per node) whose label and taint `%s=<run id>` "+
		"only the run's kwok nodes carry: the pods land on those nodes and never take GPUs from the fixture nodes other tests use. "+
		"This adds the pool's selector, toleration and H100 affinity to each pod.\n", spec.Accelerator, spec.GPUsPerNode, spec.LabelKey)
	b.WriteString(draMeasured())
	b.WriteString("- **terraform_data** (Terraform-core floor): the same N with `input` = the same attributes as an object, same four steps.\n")
	b.WriteString("- **API floor** (`bench/apifloor`): renders the same Deployments with `internal/render`, server-side-applies them " +
		"with 10 requests in flight (field manager `" + spec.FloorFieldManager + "`, no client-side rate limit) and waits for all to be " +
		"available with one watch; then deletes them (background propagation as the provider does, 10 in flight) and waits with a watch until they and their pods are gone.\n")
	b.WriteString("- **" + subjectDRAFloor + "** (`apifloor -dra`): the same on the DRA subject's pool: each workload's " +
		"ResourceClaimTemplate, then its Deployment, as gpu_workload applies them; the control plane's share of the DRA apply.\n")
	b.WriteString(peerMeasured(m))
	b.WriteString("- The subjects run one after the other in each run; the order alternates between runs. " +
		"Ratios are of medians: plan against terraform_data, apply and destroy against the API floor.\n")
	b.WriteString("- Goals are issue #14's. Where a row says **no**, [`README.md`](README.md) (\"What does not, and why\") gives " +
		"the measured reason, with the CPU profile of the provider and Terraform-only measurements of state size.\n\n")

	for _, n := range m.Ns {
		fmt.Fprintf(&b, "## N = %d\n\n", n)
		perNTable(&b, results, n, m.Now)
		b.WriteString("\n")
	}
	draReport(&b, m, results)
	peerReport(&b, m, results)
	memoryReport(&b, m, results)
	cpuReport(&b, m, results)
	requestReport(&b, requests, m.Now)
	profileReport(&b, requests, m.Now)
	stepProfileReport(&b, m, results)
	goBenchReport(&b, goBench, m.Benchtime, m.Now)
	if scale != nil {
		b.WriteString(scaleSection(scale))
	}
	rawReport(&b, results, m.Now)
	return b.String()
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, ", ")
}

func memoryReport(b *strings.Builder, m meta, results []measurement) {
	b.WriteString("## Provider memory\n\n")
	b.WriteString("Peak resident memory (`VmHWM` from `/proc/<pid>/status`) of the `terraform-provider-gpu` processes terraform " +
		"starts (and of `terraform-provider-kubernetes` for kubernetes_deployment_v1), polled every 10 ms while each step runs; for comparison the `ru_maxrss` of terraform, which " +
		"Linux reports as the larger of terraform's own peak and its waited-for children's (the provider), so it is never below the provider's. " +
		"Goals: provider ≤ 150 MB at N = 300, ≤ 250 MB at N = 1,000.\n\n")
	b.WriteString("| N | step | subject | provider median | provider max | terraform median | goal | met? |\n|---:|---|---|---:|---:|---:|---|---|\n")
	for _, n := range m.Ns {
		for _, step := range terraformSteps {
			for _, subject := range []string{subjectGPU, subjectDRA, subjectPeer} {
				var prov, tf []float64
				for _, r := range results {
					if _, ok := r.Seconds[step]; ok && r.N == n && r.Subject == subject {
						prov = append(prov, float64(r.ProviderHWMKiB[step]))
						tf = append(tf, float64(r.TerraformMaxRSSKiB[step]))
					}
				}
				if len(prov) == 0 {
					continue
				}
				peak := slices.Max(prov)
				budget, goal := memoryGoal(n)
				met := "–"
				if budget > 0 && subject == subjectGPU {
					met = yesNo(peak > 0 && peak <= budget)
				} else {
					goal = "–"
				}
				fmt.Fprintf(b, "| %d | %s | %s%s | %s | %s | %s | %s | %s |\n", n, step, subject, age(results, n, subject, step, m.Now),
					mib(int64(median(prov))), mib(int64(peak)),
					mib(int64(median(tf))), goal, met)
			}
		}
	}
	b.WriteString("\n")
}

// cpuReport shows where the CPU went: the machine has few cores, and the
// control plane, terraform and the provider share them.
func cpuReport(b *strings.Builder, m meta, results []measurement) {
	b.WriteString("## CPU\n\n")
	b.WriteString("Medians of CPU seconds per step: terraform with the providers it waited for (`wait4` rusage), the " +
		"provider processes alone (last `/proc/<pid>/stat` sample), and how busy the whole machine was (`/proc/stat`, " +
		"all CPUs, control plane included) while the step ran. The API floor program is not listed: its own CPU is " +
		"small, and its time is the cluster's.\n\n")
	b.WriteString("| N | step | subject | wall | terraform + provider CPU | provider CPU | machine busy |\n|---:|---|---|---:|---:|---:|---:|\n")
	for _, n := range m.Ns {
		for _, step := range terraformSteps {
			for _, subject := range []string{subjectGPU, subjectDRA, subjectPeer, subjectData} {
				var wall, cpu, prov, busy []float64
				for _, r := range results {
					if _, ok := r.Seconds[step]; ok && r.N == n && r.Subject == subject && r.CPUSeconds != nil {
						wall = append(wall, r.Seconds[step])
						cpu = append(cpu, r.CPUSeconds[step])
						prov = append(prov, r.ProviderCPUSeconds[step])
						busy = append(busy, r.MachineBusy[step])
					}
				}
				if len(wall) == 0 {
					continue
				}
				provider := "–"
				if subject != subjectData {
					provider = fmt.Sprintf("%.2f s", median(prov))
				}
				fmt.Fprintf(b, "| %d | %s | %s%s | %.2f s | %.2f s | %s | %.0f%% |\n", n, step, subject, age(results, n, subject, step, m.Now),
					median(wall),
					median(cpu), provider, 100*median(busy))
			}
		}
	}
	b.WriteString("\n")
}

// sampleAge is the age of a set of request samples (one run's, after the
// merge), as age gives it for measurements.
func sampleAge(set []requestSample, now stamp) string {
	if len(set) == 0 || set[0].Measured.same(now) {
		return ""
	}
	return " (" + set[0].Measured.label() + ")"
}

func requestReport(b *strings.Builder, samples []requestSample, now stamp) {
	b.WriteString("## API requests of the refresh plan\n\n")
	if len(samples) == 0 {
		b.WriteString("No request counts (reading `/metrics` failed; see the run's output).\n\n")
		return
	}
	b.WriteString("\"/metrics\" columns: delta of the kube-apiserver's `apiserver_request_total` (read from `/metrics` with the " +
		"admin kubeconfig) across the timed refresh plan, and across an idle interval of the same length right after " +
		"it: the background (kwok, controllers, and anything else using the shared cluster at the time, such as " +
		"acceptance tests). \"difference\" is refresh minus idle. \"provider, exact\": a second, untimed refresh plan " +
		"of the same state whose provider talks to the API server through a counting proxy in the driver " +
		"(`-var kubeconfig=...`), so it counts that provider's requests only. Medians over runs, by verb and resource, " +
		"for the resources gpu_workload touches (all-zero rows left out); everything else is summed in one row. " +
		"Every run's full deltas are in `results.json`.\n\n")
	byN := map[int][]requestSample{}
	var ns []int
	for _, s := range samples {
		if _, ok := byN[s.N]; !ok {
			ns = append(ns, s.N)
		}
		byN[s.N] = append(byN[s.N], s)
	}
	sort.Ints(ns)
	for _, n := range ns {
		set := byN[n]
		var secs []float64
		var counted, refresh, idle []map[requestKey]float64
		for _, s := range set {
			secs = append(secs, s.RefreshSeconds)
			counted, refresh, idle = append(counted, s.Counted), append(refresh, s.Refresh), append(idle, s.Idle)
		}
		fmt.Fprintf(b, "### N = %d (refresh plan %.2f s median, %d run(s))%s\n\n", n, median(secs), len(set), sampleAge(set, now))
		b.WriteString("| verb | resource | provider, exact | /metrics: refresh plan | /metrics: idle, same length | difference |\n" +
			"|---|---|---:|---:|---:|---:|\n")
		all := append(append(slices.Clone(counted), refresh...), idle...)
		other := [3][]float64{make([]float64, len(set)), make([]float64, len(set)), make([]float64, len(set))}
		total := [3][]float64{make([]float64, len(set)), make([]float64, len(set)), make([]float64, len(set))}
		for _, k := range sortedKeys(all...) {
			shown := touchedByProvider(k.Resource) || medianOf(counted, k) > 0
			for i := range set {
				for c, series := range [][]map[requestKey]float64{counted, refresh, idle} {
					total[c][i] += series[i][k]
					if !shown {
						other[c][i] += series[i][k]
					}
				}
			}
			c, r, d := medianOf(counted, k), medianOf(refresh, k), medianOf(idle, k)
			if shown && c+r+d > 0 {
				row(b, k.Verb, k.Resource, c, r, d)
			}
		}
		row(b, "all", "every other resource (leases, nodes, events, ...)", median(other[0]), median(other[1]), median(other[2]))
		row(b, "all", "**total**", median(total[0]), median(total[1]), median(total[2]))
		b.WriteString("\n")
	}
}

func row(b *strings.Builder, verb, resource string, counted, refresh, idle float64) {
	fmt.Fprintf(b, "| %s | %s | %.0f | %.0f | %.0f | %+.0f |\n", verb, resource, counted, refresh, idle, refresh-idle)
}

// profileReport shows, per N, where the provider's CPU goes in a refresh
// plan: the profile behind the plan and refresh ratios.
func profileReport(b *strings.Builder, samples []requestSample, now stamp) {
	var profiled []requestSample
	for _, s := range samples {
		if s.Profile != "" {
			profiled = append(profiled, s)
		}
	}
	if len(profiled) == 0 {
		return
	}
	b.WriteString("## Where the provider's time goes (refresh plan)\n\n")
	b.WriteString("CPU profile of the provider serving an untimed refresh plan of the first run's state (`" + profileDirEnv +
		"`), `go tool pprof -top -cum`: the functions under which the time was spent, plugin framework and provider. " +
		"[`README.md`](README.md) reads it.\n\n")
	for _, s := range profiled {
		fmt.Fprintf(b, "### N = %d%s\n\n```text\n%s\n```\n\n", s.N, sampleAge([]requestSample{s}, now), s.Profile)
	}
}

func medianOf(sets []map[requestKey]float64, k requestKey) float64 {
	xs := make([]float64, len(sets))
	for i, s := range sets {
		xs[i] = s[k]
	}
	return median(xs)
}

func goBenchReport(b *strings.Builder, results []goBenchmark, benchtime string, now stamp) {
	b.WriteString("## Go benchmarks\n\n")
	if len(results) > 0 && !results[0].Measured.same(now) {
		fmt.Fprintf(b, "Not run in this run: the figures are from %s.\n\n", results[0].Measured.label())
	}
	for _, c := range goBenchCommands(benchtime) {
		fmt.Fprintf(b, "- `%s`\n", c)
	}
	b.WriteString("\nThe goal of at most 25 µs per workload render applies to the render the provider performs per " +
		"workload (without render's own YAML, which the provider skips). `WorkloadPlan*` is what the provider does for " +
		"one gpu_workload of a plan, in process (validate, and read then plan for an unchanged one; render only, so no " +
		"cluster call); `FrameworkPlan*` is the same for a resource that does no work of its own, with gpu_workload's " +
		"schema and by number of top-level attributes: the plugin framework's own cost ([`README.md`](README.md) reads " +
		"them).\n\n")
	b.WriteString("| benchmark | µs/op | B/op | allocs/op | goal | met? |\n|---|---:|---:|---:|---|---|\n")
	for _, r := range results {
		goal, met := "–", "–"
		if renderGoalBenchmarks[r.Name] {
			goal, met = "≤ 25 µs", yesNo(r.NsPerOp <= renderGoalNs)
		}
		fmt.Fprintf(b, "| %s | %.1f | %d | %d | %s | %s |\n", strings.TrimPrefix(r.Name, "Benchmark"), r.NsPerOp/1000,
			r.BytesPerOp, r.AllocsPerOp, goal, met)
	}
	b.WriteString("\n")
}

func rawReport(b *strings.Builder, results []measurement, now stamp) {
	b.WriteString("## Raw runs\n\nSeconds per step; for the API floor, apply and delete are its two phases. " +
		"`#` is the subject's place in the run's order; \"measured\" is the run's date and commit (\"this run\" or an " +
		"earlier one whose figures the merge kept; a step another run replaced shows –).\n\n")
	b.WriteString("| measured | run | N | # | subject | plan | apply | refresh plan | destroy | provider peak |\n" +
		"|---|---:|---:|---:|---|---:|---:|---:|---:|---:|\n")
	for _, m := range results {
		cells := make([]string, 0, len(terraformSteps))
		for _, step := range terraformSteps {
			if v, ok := m.Seconds[step]; ok {
				cells = append(cells, fmt.Sprintf("%.2f", v))
			} else {
				cells = append(cells, "–")
			}
		}
		peak := "–"
		if len(m.ProviderHWMKiB) > 0 {
			var most int64
			for _, v := range m.ProviderHWMKiB {
				most = max(most, v)
			}
			peak = mib(most)
		}
		when := "this run"
		if !m.Measured.same(now) {
			when = m.Measured.label()
		}
		fmt.Fprintf(b, "| %s | %d | %d | %d | %s | %s | %s |\n", when, m.Run, m.N, m.Position, m.Subject, strings.Join(cells, " | "), peak)
	}
}

// summary is printed at the end of a run: the per-N tables.
func summary(m meta, results []measurement) string {
	var b strings.Builder
	for _, n := range m.Ns {
		fmt.Fprintf(&b, "\nN = %d\n", n)
		perNTable(&b, results, n, m.Now)
		if has(results, n, subjectDRA) {
			fmt.Fprintf(&b, "\nN = %d, %s / gpu_workload\n", n, subjectDRA)
			draTable(&b, results, n, m.Now)
		}
	}
	if m.Peer != "" {
		b.WriteString("\ngpu_workload / kubernetes_deployment_v1\n")
		peerTable(&b, m.Ns, results, m.Now)
	}
	return b.String()
}

// without is ns less the ones in drop, in order.
func without(ns, drop []int) []int {
	var out []int
	for _, n := range ns {
		if !slices.Contains(drop, n) {
			out = append(out, n)
		}
	}
	return out
}

func onceNote(once []int) string {
	if len(once) == 0 {
		return ""
	}
	return fmt.Sprintf("; %s in the first run only (`BENCH_N_ONCE`)", joinInts(once))
}
