// Command driver is `make bench`: the scripted performance benchmark of
// gpu_workload on the local cluster (scripts/bench.sh runs it).
//
// For each run and each N it measures, in an order that alternates between
// runs: N gpu_workload resources (terraform plan with no state, apply,
// refresh plan that must be empty, destroy), N terraform_data resources with
// the same attributes (the Terraform-core floor) and bench/apifloor (the API
// floor), and with -peer-kubernetes the same Deployments as
// hashicorp/terraform-provider-kubernetes kubernetes_deployment_v1 resources
// (peer.go). It adds the API server's request counts of the refresh plan (the
// /metrics delta next to an idle interval of the same length, and exactly,
// from a second refresh plan through a counting proxy), the provider's peak
// memory and the Go benchmarks (gobench.go), and writes medians and
// ratios to a Markdown file and every raw number to JSON beside it. Then
// the large-cluster scenario (scale.go): thousands of kwok GPU nodes cloned
// from the cluster fixtures, bound GPU pods on them, and the plan time and
// memory of a gpu_cluster_capacity data source reading them (-scale, -only).
//
//	driver run -id x7k2p -kubeconfig .localcluster/kubeconfig -n "100 300" -runs 3 ...
//	driver cleanup -id x7k2p -kubeconfig ...   # remove the run's nodes and namespaces
//	driver report -out bench/results.md        # results.md again from results.json (no measuring)
//	driver metrics -kubeconfig ...             # print apiserver_request_total by verb and resource
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/gpuform/terraform-provider-gpu/bench/spec"
)

// logw receives progress; stdout stays free for `metrics`.
var logw io.Writer = os.Stderr

func logf(format string, args ...any) { _, _ = fmt.Fprintf(logw, format, args...) }

func logln(args ...any) { _, _ = fmt.Fprintln(logw, args...) }

// Subjects of a run.
const (
	subjectGPU   = "gpu_workload"
	subjectData  = "terraform_data"
	subjectFloor = "API floor"
)

type config struct {
	id, kubeconfig, terraform, provider, apifloor, out, root, benchtime string
	ns                                                                  []int
	runs                                                                int
	onceNs                                                              []int // measured in the first run only
	keep                                                                bool
	// scale is BENCH_SCALE (0: no large-cluster scenario); only is
	// BENCH_ONLY ("", "workloads" or "scale"); fixtures the directory of the
	// cluster's node fixtures the scenario clones.
	scale    float64
	only     string
	fixtures string
	// peerKubernetes is BENCH_PEER_KUBERNETES: the
	// terraform-provider-kubernetes binary to compare with ("": none).
	peerKubernetes string
	// subjects is BENCH_SUBJECTS: what the run measures (parseSubjects).
	subjects []string
	// profile is BENCH_PROFILE=1: profile an untimed plan and apply of the
	// gpu_workload subjects in the first run (profileSteps).
	profile bool
}

// BENCH_ONLY values.
const (
	onlyWorkloads = "workloads"
	onlyScale     = "scale"
)

// measurement is one subject at one N in one run. Floor steps are "apply"
// and "destroy" (its delete phase).
type measurement struct {
	Run                int                `json:"run"`
	N                  int                `json:"n"`
	Subject            string             `json:"subject"`
	Position           int                `json:"position"` // 1-based place in the run's order
	Seconds            map[string]float64 `json:"seconds"`
	ProviderHWMKiB     map[string]int64   `json:"provider_vmhwm_kib,omitempty"`
	TerraformMaxRSSKiB map[string]int64   `json:"terraform_maxrss_kib,omitempty"`
	CPUSeconds         map[string]float64 `json:"cpu_seconds,omitempty"`          // terraform and its providers
	ProviderCPUSeconds map[string]float64 `json:"provider_cpu_seconds,omitempty"` // the provider processes
	MachineBusy        map[string]float64 `json:"machine_busy,omitempty"`         // share of all CPUs
	StateBytes         int64              `json:"state_bytes,omitempty"`          // terraform.tfstate after the apply
	// Profiles is the top of the provider's CPU profile of an untimed
	// step after the timed ones (-profile), by step.
	Profiles map[string]string `json:"profiles,omitempty"`
	// Measured is when and at which commit; results.json files written
	// before it existed get it from their run (merge.go).
	Measured stamp `json:"measured"`
}

// record keeps one terraform step's numbers.
func (m *measurement) record(step string, res stepResult) {
	if m.CPUSeconds == nil {
		m.CPUSeconds, m.ProviderCPUSeconds, m.MachineBusy = map[string]float64{}, map[string]float64{}, map[string]float64{}
	}
	m.Seconds[step], m.CPUSeconds[step], m.MachineBusy[step] = res.Seconds, res.CPUSeconds, res.MachineBusy
	if res.ProviderCPUSeconds > 0 {
		m.ProviderCPUSeconds[step] = res.ProviderCPUSeconds
	}
	if res.StateBytes > 0 {
		m.StateBytes = res.StateBytes
	}
}

// requestSample is the API requests of one refresh plan and of an idle
// interval of the same length right after it.
type requestSample struct {
	Run            int                    `json:"run"`
	N              int                    `json:"n"`
	RefreshSeconds float64                `json:"refresh_seconds"`
	Refresh        map[requestKey]float64 `json:"refresh"`
	Idle           map[requestKey]float64 `json:"idle"`
	// Counted are the requests of a second refresh plan made through the
	// counting proxy: exactly the provider's.
	Counted map[requestKey]float64 `json:"counted"`
	// Profile is `go tool pprof -top -cum` of the provider serving a third,
	// untimed refresh plan (first run only).
	Profile  string `json:"profile,omitempty"`
	Measured stamp  `json:"measured"`
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: driver run|cleanup|report|metrics [flags]")
		os.Exit(2)
	}
	cmd, args := os.Args[1], os.Args[2:]
	fs := flag.NewFlagSet(cmd, flag.ExitOnError)
	var cfg config
	var ns string
	fs.StringVar(&cfg.kubeconfig, "kubeconfig", os.Getenv("KUBECONFIG"), "admin kubeconfig of the cluster")
	fs.StringVar(&cfg.id, "id", "", "run id: names and labels everything created (gpuform.io/bench=<id>)")
	fs.StringVar(&cfg.terraform, "terraform", "terraform", "terraform CLI")
	fs.StringVar(&cfg.provider, "provider", "bin/terraform-provider-gpu", "provider binary (dev_overrides)")
	fs.StringVar(&cfg.apifloor, "apifloor", "bin/gpu-bench-apifloor", "API floor binary (bench/apifloor)")
	fs.StringVar(&cfg.out, "out", "bench/results.md", "Markdown report to write")
	fs.StringVar(&cfg.root, "root", ".", "repository root (go benchmarks, commit)")
	fs.StringVar(&cfg.benchtime, "benchtime", "1s", "go test -benchtime for the render benchmarks")
	fs.StringVar(&ns, "n", "100 300", "numbers of workloads, space separated")
	fs.IntVar(&cfg.runs, "runs", 3, "runs per N (medians are over runs)")
	var onceNs string
	fs.StringVar(&onceNs, "n-once", "", "numbers of workloads measured in one run only (the large repository, N=1000)")
	fs.BoolVar(&cfg.keep, "keep", false, "keep the Terraform working directories")
	fs.Float64Var(&cfg.scale, "scale", 1, "large-cluster scenario: round(5000×scale) nodes, round(20000×scale) pods; 0 skips it")
	fs.StringVar(&cfg.only, "only", "", `run only "workloads" (gpu_workload, terraform_data, API floor, Go benchmarks) or "scale" (the large cluster)`)
	fs.StringVar(&cfg.fixtures, "fixtures", "scripts/localcluster/fixtures", "node fixtures the large-cluster scenario clones")
	fs.StringVar(&cfg.peerKubernetes, "peer-kubernetes", "", "terraform-provider-kubernetes binary: also measure kubernetes_deployment_v1 (BENCH_PEER_KUBERNETES)")
	var subjects string
	fs.StringVar(&subjects, "subjects", "", "subjects to measure: gpu dra peer data floor go, space separated (\"\": all)")
	fs.BoolVar(&cfg.profile, "profile", false, "profile an untimed plan and apply of the gpu_workload subjects in the first run")
	_ = fs.Parse(args)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch cmd {
	case "run":
		if cfg.ns, err = parseNs(ns); err == nil && strings.TrimSpace(onceNs) != "" {
			cfg.onceNs, err = parseNs(onceNs)
		}
		if err == nil {
			cfg.subjects, err = parseSubjects(subjects)
		}
		if err == nil {
			err = run(ctx, cfg)
		}
	case "cleanup":
		err = withClient(cfg, func(cs *kubernetes.Clientset) error {
			if cfg.id == "" {
				return errors.New("-id is required")
			}
			return cleanup(context.WithoutCancel(ctx), cs, cfg.id)
		})
	case "report":
		err = rerender(cfg.out)
	case "metrics":
		err = withClient(cfg, func(cs *kubernetes.Clientset) error {
			counts, err := scrapeRequests(ctx, cs)
			for _, k := range sortedKeys(counts) {
				fmt.Printf("%-8s %-50s %.0f\n", k.Verb, k.Resource, counts[k])
			}
			return err
		})
	default:
		err = fmt.Errorf("unknown command %q (run, cleanup, report, metrics)", cmd)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func withClient(cfg config, f func(*kubernetes.Clientset) error) error {
	cs, err := newClient(cfg.kubeconfig)
	if err != nil {
		return err
	}
	return f(cs)
}

func parseNs(s string) ([]int, error) {
	var out []int
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' }) {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("BENCH_N: %q is not a positive number", f)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, errors.New("BENCH_N is empty")
	}
	return out, nil
}

// bench holds what one `run` shares between its measurements.
type bench struct {
	cfg       config
	cs        *kubernetes.Clientset
	work      string
	cliConfig string
	poolRef   string
	results   []measurement
	requests  []requestSample

	proxy           *countingProxy
	proxyKubeconfig string
	peer            *peer // nil: no BENCH_PEER_KUBERNETES
	failures        []failure
}

func run(ctx context.Context, cfg config) (err error) {
	if cfg.id == "" {
		return errors.New("-id is required")
	}
	switch {
	case cfg.only != "" && cfg.only != onlyWorkloads && cfg.only != onlyScale:
		return fmt.Errorf("BENCH_ONLY=%q: want %q or %q", cfg.only, onlyWorkloads, onlyScale)
	case cfg.scale < 0 || math.IsNaN(cfg.scale) || math.IsInf(cfg.scale, 0):
		return fmt.Errorf("BENCH_SCALE=%g: want a number ≥ 0", cfg.scale)
	case cfg.only == onlyScale && cfg.scale == 0:
		return errors.New("BENCH_ONLY=scale with BENCH_SCALE=0: nothing to run")
	}
	workloads := cfg.only != onlyScale
	withScale := cfg.only != onlyWorkloads && cfg.scale > 0
	if k, p := scaleSize(cfg.scale); withScale && (k < 1 || p < 1) {
		return fmt.Errorf("BENCH_SCALE=%g gives %d nodes and %d pods", cfg.scale, k, p)
	}
	for _, p := range []*string{&cfg.provider, &cfg.apifloor, &cfg.kubeconfig, &cfg.out, &cfg.fixtures} {
		if *p, err = filepath.Abs(*p); err != nil {
			return err
		}
	}
	b := &bench{cfg: cfg, poolRef: spec.PoolRef(cfg.id)}
	if b.cs, err = newClient(cfg.kubeconfig); err != nil {
		return err
	}
	meta, err := collectMeta(ctx, b.cs, cfg)
	if err != nil {
		return err
	}
	logf("== bench %s: N=%v, %d run(s), BENCH_SCALE=%g, BENCH_ONLY=%q, %s, %s\n", cfg.id, cfg.ns, cfg.runs, cfg.scale, cfg.only,
		meta.Terraform, meta.Machine)

	var goBench []goBenchmark
	if workloads && cfg.measures(subjectGo) {
		logln("== Go benchmarks")
		if goBench, err = runGoBenchmarks(ctx, cfg.root, cfg.benchtime); err != nil {
			b.fail(failure{Subject: subjectGo, Error: err.Error()})
		}
	}

	if b.work, err = os.MkdirTemp("", "gpu-bench-"+cfg.id+"-"); err != nil {
		return err
	}
	if b.cliConfig, err = writeCLIConfig(b.work, cfg.provider); err != nil {
		return err
	}
	if b.proxy, err = startCountingProxy(cfg.kubeconfig); err != nil {
		return err
	}
	defer b.proxy.close()
	b.proxyKubeconfig = filepath.Join(b.work, "proxy.kubeconfig")
	if err := b.proxy.writeKubeconfig(b.proxyKubeconfig); err != nil {
		return err
	}
	if workloads && cfg.peerKubernetes != "" {
		if b.peer, err = setupPeer(b.cs, b.work, cfg.peerKubernetes, cfg.kubeconfig, b.poolRef); err != nil {
			return err
		}
		meta.Peer = b.peer.version
		logln("== peer:", cfg.peerKubernetes, "("+meta.Peer+")")
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Minute)
		defer cancel()
		if cerr := cleanup(cctx, b.cs, cfg.id); cerr != nil {
			logln("cleanup failed:", cerr)
		}
		if err == nil && !cfg.keep {
			_ = os.RemoveAll(b.work)
		} else {
			logln("terraform working directories and logs kept in", b.work)
		}
	}()

	if workloads {
		if err := b.workloads(ctx, &meta); err != nil {
			b.fail(failure{Subject: "workloads", Error: err.Error()})
		}
	}
	var scale *scaleResult
	if withScale && ctx.Err() == nil {
		if scale, err = b.scaleScenario(ctx, meta); err != nil {
			b.fail(failure{Subject: "large cluster", Error: err.Error()})
			scale = nil
		}
	}
	meta.Finished = time.Now().UTC()
	switch {
	case workloads:
		err = b.writeReport(meta, goBench, scale)
	case scale != nil:
		err = writeScaleOnly(cfg.out, scale)
	}
	return errors.Join(err, failuresError(b.failures))
}

// allNs is every N measured, in the order measured.
func (cfg config) allNs() []int { return cfg.nsOfRun(1) }

// nsOfRun is the N measured in run r: BENCH_N in every run, BENCH_N_ONCE
// (the large repository) only in the first, where the cluster is as fresh
// as for the others.
func (cfg config) nsOfRun(r int) []int {
	ns := slices.Clone(cfg.ns)
	for _, n := range cfg.onceNs {
		if r == 1 && !slices.Contains(ns, n) {
			ns = append(ns, n)
		}
	}
	return ns
}

func (b *bench) namespace(m *measurement, suffix string) string {
	return fmt.Sprintf("bench-%s-n%d-r%d-%s", b.cfg.id, m.N, m.Run, suffix)
}

func (b *bench) gpuWorkload(ctx context.Context, m *measurement) error {
	ns := b.namespace(m, "gw")
	return b.workloadSteps(ctx, m, ns, gpuWorkloadHCL(b.cfg.kubeconfig, ns, b.poolRef, m.N), true)
}

// workloadSteps times the four steps of a gpu_workload configuration in
// namespace ns, sampling the provider's memory and CPU; withRequests adds
// the refresh plan's API request counts (and, in the first run, its
// profile). With -profile, the first run also profiles an untimed plan
// and apply afterwards (profileSteps).
func (b *bench) workloadSteps(ctx context.Context, m *measurement, ns, hcl string, withRequests bool) error {
	if err := createNamespace(ctx, b.cs, b.cfg.id, ns); err != nil {
		return err
	}
	ws, err := newWorkspace(filepath.Join(b.work, ns), b.cfg.terraform, b.cliConfig, b.cfg.provider, hcl)
	if err != nil {
		return err
	}
	m.ProviderHWMKiB, m.TerraformMaxRSSKiB = map[string]int64{}, map[string]int64{}
	for _, step := range terraformSteps {
		var before map[requestKey]float64
		if withRequests && step == stepRefresh {
			before = b.scrape(ctx)
		}
		res, err := ws.run(ctx, step, runOpts{sampleMemory: true})
		if err != nil {
			return err
		}
		m.record(step, res)
		m.ProviderHWMKiB[step], m.TerraformMaxRSSKiB[step] = res.ProviderHWMKiB, res.TerraformMaxRSSKiB
		if step == stepRefresh && before != nil {
			if err := b.recordRequests(ctx, ws, m, before, res.Seconds); err != nil {
				return err
			}
		}
	}
	if b.cfg.profile && m.Run == 1 {
		if err := b.profileSteps(ctx, ws, m); err != nil {
			return err
		}
	}
	return deleteNamespaceAndWait(ctx, b.cs, ns)
}

// recordRequests keeps the refresh plan's request delta and that of an
// idle interval of the same length, the background the reader subtracts.
// Then a second, untimed refresh plan goes through the counting proxy: its
// counts are the provider's alone.
func (b *bench) recordRequests(ctx context.Context, ws *workspace, m *measurement, before map[requestKey]float64, seconds float64) error {
	after := b.scrape(ctx)
	if after == nil {
		return nil
	}
	idleStart := after
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(time.Duration(seconds * float64(time.Second))):
	}
	idleEnd := b.scrape(ctx)
	if idleEnd == nil {
		return nil
	}
	sample := requestSample{Run: m.Run, N: m.N, RefreshSeconds: seconds, Refresh: delta(before, after), Idle: delta(idleStart, idleEnd)}
	b.proxy.take()
	if _, err := ws.run(ctx, stepRefresh, runOpts{log: "refresh-counted.log", extraArgs: []string{"-var", "kubeconfig=" + b.proxyKubeconfig}}); err != nil {
		return fmt.Errorf("refresh plan through the counting proxy: %w", err)
	}
	sample.Counted = b.proxy.take()
	if m.Run == 1 {
		profile, err := b.profiledRefresh(ctx, ws)
		if err != nil {
			return err
		}
		sample.Profile = profile
	}
	b.requests = append(b.requests, sample)
	return nil
}

// profiledRefresh runs an untimed refresh plan whose providers write CPU
// profiles, and returns the top of the one that served it.
func (b *bench) profiledRefresh(ctx context.Context, ws *workspace) (string, error) {
	dir := filepath.Join(ws.dir, "profile")
	env, err := profileEnv(dir)
	if err != nil {
		return "", err
	}
	if _, err := ws.run(ctx, stepRefresh, runOpts{log: "refresh-profiled.log", env: env}); err != nil {
		return "", fmt.Errorf("profiled refresh plan: %w", err)
	}
	return profileTop(ctx, b.cfg.provider, dir, workloadProfileLines), nil
}

func (b *bench) scrape(ctx context.Context) map[requestKey]float64 {
	counts, err := scrapeRequests(ctx, b.cs)
	if err != nil {
		logln("   warning: no request counts:", err)
		return nil
	}
	return counts
}

func (b *bench) terraformData(ctx context.Context, m *measurement) error {
	ns := b.namespace(m, "data") // only a value in the objects; never created
	ws, err := newWorkspace(filepath.Join(b.work, ns), b.cfg.terraform, b.cliConfig, b.cfg.provider,
		terraformDataHCL(ns, b.poolRef, m.N))
	if err != nil {
		return err
	}
	for _, step := range terraformSteps {
		res, err := ws.run(ctx, step, runOpts{})
		if err != nil {
			return err
		}
		m.record(step, res)
	}
	return nil
}

// floorResult is what bench/apifloor prints.
type floorResult struct {
	ApplySeconds  float64 `json:"apply_seconds"`
	DeleteSeconds float64 `json:"delete_seconds"`
}

// floorRun is one API floor subject: its namespace's suffix, the pool its
// workloads are placed on and apifloor's extra flags.
type floorRun struct {
	suffix, poolRef string
	flags           []string
}

// apiFloor runs bench/apifloor.
func (b *bench) apiFloor(ctx context.Context, m *measurement, f floorRun) error {
	ns := b.namespace(m, f.suffix)
	if err := createNamespace(ctx, b.cs, b.cfg.id, ns); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	args := append([]string{"-kubeconfig", b.cfg.kubeconfig, "-namespace", ns,
		"-n", strconv.Itoa(m.N), "-pool-ref", f.poolRef, "-concurrency", "10"}, f.flags...)
	cmd := exec.CommandContext(ctx, b.cfg.apifloor, args...)
	cmd.Stderr = logw
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("apifloor: %w", err)
	}
	var res floorResult
	if err := json.Unmarshal(out, &res); err != nil {
		return fmt.Errorf("apifloor printed %q: %w", out, err)
	}
	m.Seconds[stepApply], m.Seconds[stepDestroy] = res.ApplySeconds, res.DeleteSeconds
	return deleteNamespaceAndWait(ctx, b.cs, ns)
}

func formatSteps(m measurement) string {
	var parts []string
	for _, step := range terraformSteps {
		if s, ok := m.Seconds[step]; ok {
			part := fmt.Sprintf("%s %.2fs", step, s)
			if kib := m.ProviderHWMKiB[step]; kib > 0 {
				part += fmt.Sprintf(" (provider %s)", mib(kib))
			}
			parts = append(parts, part)
		}
	}
	return strings.Join(parts, ", ")
}
