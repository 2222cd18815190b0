package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/gpuform/terraform-provider-gpu/bench/spec"
)

// The large-cluster scenario (issue #14): K kwok GPU nodes cloned from the
// cluster fixtures and P running GPU pods bound to them, read by a
// configuration with only a gpu_cluster_capacity data source.
const (
	scaleNodesAtOne = 5000  // K at BENCH_SCALE=1
	scalePodsAtOne  = 20000 // P at BENCH_SCALE=1
	scaleGoalSecs   = 3.0
	scaleGoalKiB    = 300e6 / 1024 // 300 MB
	scaleInFlight   = 32           // create requests in flight
	scalePodsPerNS  = 1000
	scaleRuns       = 3
	// gpuResourcePrefix selects the extended resources a bench pod may ask
	// for: whole GPUs, MIG slices and shared (time-sliced) replicas.
	gpuResourcePrefix = "nvidia.com/"
)

// scaleResult is the scenario's numbers (results.json "scale").
type scaleResult struct {
	Started            time.Time              `json:"started"`
	Commit             string                 `json:"commit"`
	Machine            string                 `json:"machine"`
	Terraform          string                 `json:"terraform"`
	Scale              float64                `json:"scale"`
	Nodes              int                    `json:"nodes"`
	Pods               int                    `json:"pods"`
	Namespaces         int                    `json:"namespaces"`
	NodesPerFixture    map[string]int         `json:"nodes_per_fixture_file"`
	PodsPerResource    map[string]int         `json:"pods_per_resource"`
	NodeCreateSeconds  float64                `json:"node_create_seconds"`
	NodeReadySeconds   float64                `json:"node_ready_seconds"` // from the first create
	NodesReady         int                    `json:"nodes_ready"`        // when the wait ended
	PodsRunning        int                    `json:"pods_running"`
	PodCreateSeconds   float64                `json:"pod_create_seconds"`
	PodRunningSeconds  float64                `json:"pod_running_seconds"` // from the first create
	SettleSeconds      float64                `json:"settle_seconds"`      // until the API request rate fell
	SettledRate        float64                `json:"settled_rate"`        // API requests/s when it did
	PlanSeconds        []float64              `json:"plan_seconds"`
	ProviderHWMKiB     []int64                `json:"provider_vmhwm_kib"`
	TerraformMaxRSSKiB []int64                `json:"terraform_maxrss_kib"`
	ProviderCPUSeconds []float64              `json:"provider_cpu_seconds"`
	MachineBusy        []float64              `json:"machine_busy"`
	ReadSeconds        float64                `json:"read_seconds,omitempty"` // DataSource Read in the trace log
	Manage             *manageResult          `json:"manage_nodes,omitempty"`
	Pending            *pendingResult         `json:"pending,omitempty"`
	Profile            string                 `json:"profile,omitempty"` // pprof -top of the counted plan
	Counted            map[requestKey]float64 `json:"counted"`
	IdleBefore         *controlPlaneSample    `json:"idle_before,omitempty"`
	IdleAfter          *controlPlaneSample    `json:"idle_after,omitempty"`
}

// controlPlaneSample is the control plane over an idle interval: CPU and
// RSS of its processes and the API requests it served.
type controlPlaneSample struct {
	Seconds    float64                `json:"seconds"`
	CPUSeconds map[string]float64     `json:"cpu_seconds"` // per process name
	RSSKiB     map[string]int64       `json:"rss_kib"`
	Requests   map[requestKey]float64 `json:"requests"`
	MemAvail   int64                  `json:"mem_available_kib"`
}

var controlPlaneProcs = []string{"kube-apiserver", "etcd", "kwok", "kube-controller-manager", "kube-scheduler"} // executable names

// sampleControlPlane measures the control plane for d with nothing of ours
// running.
func (b *bench) sampleControlPlane(ctx context.Context, d time.Duration) (*controlPlaneSample, error) {
	pids := map[string]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if name := exeName(pid); slices.Contains(controlPlaneProcs, name) {
			pids[name] = pid
		}
	}
	cpuBefore := map[string]float64{}
	for name, pid := range pids {
		cpuBefore[name], _ = processCPU(pid)
	}
	before := b.scrape(ctx)
	start := time.Now()
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(d):
	}
	after := b.scrape(ctx)
	s := &controlPlaneSample{Seconds: time.Since(start).Seconds(), CPUSeconds: map[string]float64{}, RSSKiB: map[string]int64{}, MemAvail: memAvailable()}
	for name, pid := range pids {
		if cpu, ok := processCPU(pid); ok {
			s.CPUSeconds[name] = cpu - cpuBefore[name]
		}
		s.RSSKiB[name] = procStatusKiB(pid, "VmRSS:")
	}
	if before != nil && after != nil {
		s.Requests = delta(before, after)
	}
	return s, nil
}

func memAvailable() int64 {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "MemAvailable:"); ok {
			kib, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kib
		}
	}
	return 0
}

func procStatusKiB(pid int, field string) int64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, field); ok {
			kib, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kib
		}
	}
	return 0
}

// newFastClient is a client without client-side rate limit, for creating
// thousands of objects (in-flight requests are bounded by the caller).
func newFastClient(kubeconfig string) (*kubernetes.Clientset, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = -1, 0
	cfg.UserAgent = "gpu-bench-driver"
	return kubernetes.NewForConfig(cfg)
}

// scaleScenario builds the large cluster, measures the data source reading
// it three times (plus a counted, logged fourth read) and leaves the
// objects for cleanup (by run label).
func (b *bench) scaleScenario(ctx context.Context, meta meta) (*scaleResult, error) {
	k, p := scaleSize(b.cfg.scale)
	fixtures, err := loadFixtures(b.cfg.fixtures)
	if err != nil {
		return nil, err
	}
	cs, err := newFastClient(b.cfg.kubeconfig)
	if err != nil {
		return nil, err
	}
	res := &scaleResult{Started: time.Now().UTC(), Commit: meta.Commit, Machine: meta.Machine, Terraform: meta.Terraform,
		Scale: b.cfg.scale, Nodes: k, Pods: p, NodesPerFixture: map[string]int{}, PodsPerResource: map[string]int{}}
	nodes := planNodes(b.cfg.id, fixtures, k)
	for i := range nodes {
		res.NodesPerFixture[fixtures[i%len(fixtures)].File]++
	}
	places, err := spreadPods(nodes, p)
	if err != nil {
		return nil, err
	}
	candidates, err := pendingCandidates(nodes, places)
	if err != nil {
		return nil, err
	}
	for _, pl := range places {
		res.PodsPerResource[pl.Resource]++
	}
	logf("== large cluster (BENCH_SCALE=%g): %d kwok nodes from %d GPU fixtures, %d pods\n", b.cfg.scale, k, len(fixtures), p)

	idle := idleSample(b.cfg.scale)
	logf("   control plane idle, before (%s)\n", idle)
	if res.IdleBefore, err = b.sampleControlPlane(ctx, idle); err != nil {
		return nil, err
	}

	start := time.Now()
	if res.NodeCreateSeconds, err = createTimed(ctx, "nodes", k, 1000, func(i int) error {
		_, err := cs.CoreV1().Nodes().Create(ctx, nodes[i], metav1.CreateOptions{})
		return err
	}); err != nil {
		return nil, err
	}
	logln("   waiting for Ready")
	if res.NodesReady, err = waitNodesReadyBy(ctx, cs, scaleLabel+"="+b.cfg.id, k); err != nil {
		return nil, err
	}
	res.NodeReadySeconds = time.Since(start).Seconds()
	logf("   %d of %d nodes Ready after %.1f s\n", res.NodesReady, k, res.NodeReadySeconds)

	res.Namespaces = max(1, (p+scalePodsPerNS-1)/scalePodsPerNS)
	nsName := func(j int) string { return fmt.Sprintf("bench-%s-scale-%d", b.cfg.id, j) }
	for j := range res.Namespaces {
		if err := createNamespace(ctx, cs, b.cfg.id, nsName(j)); err != nil {
			return nil, err
		}
	}
	for j := range res.Namespaces {
		if err := waitServiceAccount(ctx, cs, nsName(j)); err != nil {
			return nil, err
		}
	}
	start = time.Now()
	if res.PodCreateSeconds, err = createTimed(ctx, "pods", p, 5000, func(i int) error {
		pl := places[i]
		pod := scalePod(nsName(i/scalePodsPerNS), fmt.Sprintf("gpu-%05d", i), b.cfg.id, nodes[pl.Node], pl.Resource)
		_, err := cs.CoreV1().Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{})
		return err
	}); err != nil {
		return nil, err
	}
	logln("   waiting for Running")
	if res.PodsRunning, err = waitScalePodsRunning(ctx, cs, b.cfg.id, p); err != nil {
		return nil, err
	}
	res.PodRunningSeconds = time.Since(start).Seconds()
	logf("   %d of %d pods Running after %.1f s\n", res.PodsRunning, p, res.PodRunningSeconds)

	// kwok goes on patching pod statuses for a while after they all read
	// Running; the plans measure the machine, not that backlog.
	start = time.Now()
	res.SettledRate, err = waitSettled(ctx, b.cs)
	if err != nil {
		return nil, err
	}
	res.SettleSeconds = time.Since(start).Seconds()
	logf("   settled after %.1f s at %.0f API requests/s\n", res.SettleSeconds, res.SettledRate)

	logf("   control plane idle, with the nodes and pods (%s)\n", idle)
	if res.IdleAfter, err = b.sampleControlPlane(ctx, idle); err != nil {
		return nil, err
	}

	ws, err := newWorkspace(filepath.Join(b.work, "scale"), b.cfg.terraform, b.cliConfig, b.cfg.provider,
		clusterCapacityHCL(b.cfg.kubeconfig))
	if err != nil {
		return nil, err
	}
	for r := 1; r <= scaleRuns; r++ {
		step, err := ws.run(ctx, stepRefresh, runOpts{sampleMemory: true, log: fmt.Sprintf("plan-%d.log", r)})
		if err != nil {
			return nil, err
		}
		res.PlanSeconds = append(res.PlanSeconds, step.Seconds)
		res.ProviderHWMKiB = append(res.ProviderHWMKiB, step.ProviderHWMKiB)
		res.TerraformMaxRSSKiB = append(res.TerraformMaxRSSKiB, step.TerraformMaxRSSKiB)
		res.ProviderCPUSeconds = append(res.ProviderCPUSeconds, step.ProviderCPUSeconds)
		res.MachineBusy = append(res.MachineBusy, step.MachineBusy)
		logf("   plan %d: %.2f s, provider %s, provider CPU %.2f s\n", r, step.Seconds, mib(step.ProviderHWMKiB), step.ProviderCPUSeconds)
	}
	// A fourth, untimed plan through the counting proxy with the provider's
	// trace log: exact requests and the Read's own duration.
	debugLog := filepath.Join(ws.dir, "provider-debug.log")
	b.proxy.take()
	if _, err := ws.run(ctx, stepRefresh, runOpts{log: "plan-counted.log",
		extraArgs: []string{"-var", "kubeconfig=" + b.proxyKubeconfig},
		env:       []string{"TF_LOG_PROVIDER=TRACE", "TF_LOG_SDK_PROTO=off", "TF_LOG_PATH=" + debugLog}}); err != nil {
		return nil, fmt.Errorf("plan through the counting proxy: %w", err)
	}
	res.Counted = b.proxy.take()
	// A fifth, untimed and as the timed ones, with the provider's CPU
	// profile: where its time goes.
	profileDir := filepath.Join(ws.dir, "profile")
	env, err := profileEnv(profileDir)
	if err != nil {
		return nil, err
	}
	if _, err := ws.run(ctx, stepRefresh, runOpts{log: "plan-profiled.log", env: env}); err != nil {
		return nil, fmt.Errorf("profiled plan: %w", err)
	}
	res.Profile = profileTop(ctx, b.cfg.provider, profileDir, scaleProfileLines)
	if f, err := os.Open(debugLog); err == nil {
		res.ReadSeconds, _ = dataSourceReadSeconds(f)
		_ = f.Close()
	}
	logf("   counted plan: %s; Read %.2f s in the provider's trace log\n", formatCounts(res.Counted), res.ReadSeconds)
	// A pending workload that does not get its explanation is a finding to
	// report, not a reason to lose the rest of the run.
	if res.Pending, err = b.pendingWorkload(ctx, cs, candidates); err != nil {
		logf("   pending workload failed: %v\n", err)
		res.Pending = &pendingResult{Failed: err.Error()}
	}
	if res.Manage, err = b.manageNodes(ctx, cs, min(manageNodesGoal, k)); err != nil {
		return nil, err
	}
	return res, nil
}

func formatCounts(c map[requestKey]float64) string {
	parts := make([]string, 0, len(c))
	for _, k := range sortedKeys(c) {
		parts = append(parts, fmt.Sprintf("%s %.0f", k, c[k]))
	}
	return strings.Join(parts, ", ")
}

// clusterCapacityHCL is the configuration the scenario plans: only the
// data source, reading every node.
func clusterCapacityHCL(kubeconfig string) string {
	return providerHCL(kubeconfig) + `
data "gpu_cluster_capacity" "all" {}
`
}

// dataSourceReadSeconds is the time between terraform-plugin-framework's
// "Calling provider defined DataSource Read" and "Called provider defined
// DataSource Read" trace lines (timestamps of a TF_LOG_PATH file).
func dataSourceReadSeconds(r io.Reader) (float64, error) {
	var start, end time.Time
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		var mark *time.Time
		switch {
		case strings.Contains(line, "Calling provider defined DataSource Read") && start.IsZero():
			mark = &start
		case strings.Contains(line, "Called provider defined DataSource Read"):
			mark = &end
		default:
			continue
		}
		stamp, _, _ := strings.Cut(line, " ")
		t, err := time.Parse(time.RFC3339Nano, stamp)
		if err != nil {
			t, err = time.Parse("2006-01-02T15:04:05.000Z0700", stamp)
		}
		if err == nil {
			*mark = t
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	if start.IsZero() || end.IsZero() || end.Before(start) {
		return 0, errors.New("no DataSource Read in the log")
	}
	return end.Sub(start).Seconds(), nil
}

// waitNodesReadyBy polls until count nodes matching the label selector are
// Ready, or for at most 2 min + 30 ms a node, and returns how many are.
func waitNodesReadyBy(ctx context.Context, cs kubernetes.Interface, selector string, count int) (int, error) {
	return pollCount(ctx, "nodes Ready", count, 2*time.Minute+time.Duration(count)*30*time.Millisecond, func(ctx context.Context) (int, error) {
		ready := 0
		err := listPages(ctx, func(opts metav1.ListOptions) (string, error) {
			list, err := cs.CoreV1().Nodes().List(ctx, opts)
			if err != nil {
				return "", err
			}
			for i := range list.Items {
				if nodeReady(&list.Items[i]) {
					ready++
				}
			}
			return list.Continue, nil
		}, metav1.ListOptions{LabelSelector: selector})
		return ready, err
	})
}

// scaleLabel marks the cloned nodes, so the wait counts them and not the
// run's other nodes (those of the workload runs, if they are still going).
const scaleLabel = "gpuform.io/bench-scale"

// createTimed runs create for 0..n-1, scaleInFlight at a time, logging
// every logEvery, and returns how long it took.
func createTimed(ctx context.Context, what string, n, logEvery int, create func(i int) error) (float64, error) {
	start := time.Now()
	var created atomic.Int64
	err := spec.InParallel(ctx, n, scaleInFlight, func(i int) error {
		if c := created.Add(1); c%int64(logEvery) == 0 {
			logf("   %d %s created (%.0f s)\n", c, what, time.Since(start).Seconds())
		}
		return create(i)
	})
	if err != nil {
		return 0, fmt.Errorf("creating %s: %w", what, err)
	}
	seconds := time.Since(start).Seconds()
	logf("   %d %s created in %.1f s\n", n, what, seconds)
	return seconds, nil
}

// waitScalePodsRunning polls until count pods of the run are Running, or
// for at most 2 min + 10 ms a pod, and returns how many are (pods bound
// and not yet Running still hold their GPUs for the data source).
func waitScalePodsRunning(ctx context.Context, cs kubernetes.Interface, id string, count int) (int, error) {
	return pollCount(ctx, "pods Running", count, 2*time.Minute+time.Duration(count)*10*time.Millisecond, func(ctx context.Context) (int, error) {
		running := 0
		err := listPages(ctx, func(opts metav1.ListOptions) (string, error) {
			list, err := cs.CoreV1().Pods("").List(ctx, opts)
			if err != nil {
				return "", err
			}
			running += len(list.Items)
			return list.Continue, nil
		}, metav1.ListOptions{LabelSelector: selector(id), FieldSelector: "status.phase=Running"})
		return running, err
	})
}

func listPages(ctx context.Context, page func(metav1.ListOptions) (string, error), opts metav1.ListOptions) error {
	opts.Limit = 1000
	for {
		next, err := page(opts)
		if err != nil || next == "" {
			return err
		}
		opts.Continue = next
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// pollCount calls count every 2 s until it reaches want or timeout passes
// (then it warns and returns the last count); it fails only when the run
// is cancelled.
func pollCount(ctx context.Context, what string, want int, timeout time.Duration, count func(context.Context) (int, error)) (int, error) {
	deadline, last, got := time.Now().Add(timeout), time.Now(), 0
	for {
		n, err := count(ctx)
		if err == nil {
			got = n
			if got >= want {
				return got, nil
			}
		}
		if ctx.Err() != nil {
			return got, ctx.Err()
		}
		if time.Now().After(deadline) {
			logf("   warning: %d of %d %s after %s (last error: %v); going on\n", got, want, what, timeout.Round(time.Second), err)
			return got, nil
		}
		if time.Since(last) > 30*time.Second {
			logf("   %d of %d %s\n", got, want, what)
			last = time.Now()
		}
		select {
		case <-ctx.Done():
			return got, ctx.Err()
		case <-time.After(2 * time.Second):
		}
	}
}

// waitServiceAccount waits for the namespace's default ServiceAccount, which
// pod admission needs.
func waitServiceAccount(ctx context.Context, cs kubernetes.Interface, ns string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for {
		_, err := cs.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
		if err == nil {
			return nil
		}
		if !apierrors.IsNotFound(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("no default ServiceAccount in %s: %w", ns, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// Settling: the API server's request rate, over settleWindow, must fall
// below settledRate (the idle control plane with 5,000 nodes renews about
// 35 Leases a second) within settleTimeout; otherwise the run goes on and
// the report shows the rate it got to.
const (
	settledRate   = 100
	settleWindow  = 5 * time.Second
	settleTimeout = 6 * time.Minute
)

// waitSettled waits until the API server serves fewer than settledRate
// requests a second, and returns the last rate seen.
func waitSettled(ctx context.Context, cs kubernetes.Interface) (float64, error) {
	deadline := time.Now().Add(settleTimeout)
	before, err := scrapeRequests(ctx, cs)
	if err != nil {
		return 0, err
	}
	for {
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(settleWindow):
		}
		after, err := scrapeRequests(ctx, cs)
		if err != nil {
			return 0, err
		}
		rate := sumValues(delta(before, after)) / settleWindow.Seconds()
		if rate < settledRate || time.Now().After(deadline) {
			return rate, nil
		}
		logf("   %.0f API requests/s, waiting for the control plane to settle\n", rate)
		before = after
	}
}

// idleSample is how long the control plane's idle cost is sampled: 15 s at
// the goal size, where a Lease renewal every 150 s per node makes the rate
// steady within seconds, and proportionally less on a smaller cluster (at
// least 3 s), so a smoke run does not spend half its time waiting.
func idleSample(scale float64) time.Duration {
	return max(3*time.Second, time.Duration(float64(15*time.Second)*min(scale, 1)))
}
