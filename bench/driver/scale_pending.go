package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/gpuform/terraform-provider-gpu/bench/spec"
)

// The pending workload of the large cluster (issue #14): a gpu_workload the
// scheduler refuses, with unschedulable_timeout = "0s", must fail with its
// explanation (the scheduler's reason and the closest pools) within
// pendingGoalSecs of the scheduler's verdict.
const (
	pendingGoalSecs = 2
	pendingRuns     = 3
	// pendingProduct is the GPU Feature Discovery product label of the
	// generic H100 fixture nodes the pending workload's pool selects.
	pendingProduct = "NVIDIA-H100-80GB-HBM3"
)

// pendingResult is the pending workload's runs.
type pendingResult struct {
	GPUs int `json:"gpus"` // asked for by the pod: a whole node's
	// CandidateNodes are the cloned nodes of the pool, each running at
	// least one bench pod, so none has the GPUs free.
	CandidateNodes int `json:"candidate_nodes"`
	// LatencySeconds: from the driver's watch seeing the pod's
	// PodScheduled=False (Unschedulable) to terraform apply's exit.
	LatencySeconds []float64 `json:"latency_seconds"`
	ApplySeconds   []float64 `json:"apply_seconds"`
	// FirstPool is the first pool line of the explanation (closest first).
	FirstPool string `json:"first_pool"`
	// Failed says why the scenario did not complete.
	Failed string `json:"failed,omitempty"`
}

// pendingPool is the bench pool (generic H100, 8 GPUs, the run's taint),
// selecting only the cloned nodes by their scale label.
func pendingPool(id string) string {
	p := spec.Pool(id)
	p.Name = "bench-pending-" + id
	p.Labels = map[string]string{scaleLabel: id}
	return spec.PoolJSON(p)
}

func pendingHCL(kubeconfig, namespace, poolRef string) string {
	return providerHCL(kubeconfig) + fmt.Sprintf(`
resource "gpu_workload" "pending" {
  name                  = "pending"
  namespace             = %q
  cloud                 = %q
  image                 = %q
  node_pool             = jsondecode(%q)
  unschedulable_timeout = "0s"

  gpu {
    count = %d
  }

  timeouts {
    create = "5m"
  }
}
`, namespace, spec.Cloud, spec.Image, poolRef, spec.GPUsPerNode)
}

// pendingCandidates counts the cloned nodes the pending pool selects and
// checks that each runs a bench pod, so a whole node's GPUs are free on none.
func pendingCandidates(nodes []*corev1.Node, places []placement) (int, error) {
	used := make([]int, len(nodes))
	for _, pl := range places {
		used[pl.Node]++
	}
	count := 0
	for i, n := range nodes {
		if n.Labels["nvidia.com/gpu.product"] != pendingProduct {
			continue
		}
		if used[i] == 0 {
			return 0, fmt.Errorf("pending workload: node %s of the pool runs no bench pod, so a whole node's GPUs are free "+
				"and the workload would schedule; raise BENCH_SCALE", n.Name)
		}
		count++
	}
	if count == 0 {
		return 0, fmt.Errorf("pending workload: no cloned node carries nvidia.com/gpu.product=%s", pendingProduct)
	}
	return count, nil
}

// pendingWorkload applies the refused workload pendingRuns times, each
// followed by an untimed destroy.
func (b *bench) pendingWorkload(ctx context.Context, cs kubernetes.Interface, candidates int) (*pendingResult, error) {
	res := &pendingResult{GPUs: spec.GPUsPerNode, CandidateNodes: candidates}
	ns := fmt.Sprintf("bench-%s-pending", b.cfg.id)
	logf("== pending workload: %d GPUs on a pool of %d busy nodes, unschedulable_timeout = \"0s\"\n", res.GPUs, candidates)
	if err := createNamespace(ctx, cs, b.cfg.id, ns); err != nil {
		return nil, err
	}
	if err := waitServiceAccount(ctx, cs, ns); err != nil {
		return nil, err
	}
	ws, err := newWorkspace(filepath.Join(b.work, "pending"), b.cfg.terraform, b.cliConfig, b.cfg.provider,
		pendingHCL(b.cfg.kubeconfig, ns, pendingPool(b.cfg.id)))
	if err != nil {
		return nil, err
	}
	for r := 1; r <= pendingRuns; r++ {
		latency, apply, first, err := b.pendingRun(ctx, cs, ws, ns, r)
		if err != nil {
			return nil, err
		}
		res.LatencySeconds, res.ApplySeconds, res.FirstPool = append(res.LatencySeconds, latency), append(res.ApplySeconds, apply), first
		logf("   run %d: explanation %.2f s after the verdict (apply %.2f s); closest: %s\n", r, latency, apply, first)
	}
	return res, nil
}

// pendingRun is one refused apply: the verdict's time from a pod watch, the
// apply's exit, the explanation checked, then a destroy.
func (b *bench) pendingRun(ctx context.Context, cs kubernetes.Interface, ws *workspace, ns string, r int) (float64, float64, string, error) {
	stop, err := watchVerdict(ctx, cs, ns)
	if err != nil {
		return 0, 0, "", err
	}
	log := fmt.Sprintf("pending-apply-%d.log", r)
	step, err := ws.run(ctx, stepApply, runOpts{log: log, wantCode: 1})
	exited := time.Now()
	seen := stop()
	if err != nil {
		return 0, 0, "", fmt.Errorf("pending workload apply: %w", err)
	}
	if seen.IsZero() {
		return 0, 0, "", fmt.Errorf("pending workload: apply failed but no pod was seen refused (log: %s)", filepath.Join(ws.dir, log))
	}
	first, err := explainedClosestPool(filepath.Join(ws.dir, log))
	if err != nil {
		return 0, 0, "", err
	}
	if _, err := ws.run(ctx, stepDestroy, runOpts{log: fmt.Sprintf("pending-destroy-%d.log", r)}); err != nil {
		return 0, 0, "", err
	}
	return exited.Sub(seen).Seconds(), step.Seconds, first, nil
}

// watchVerdict watches the namespace's pods until stop is called, which
// returns when the first pod was seen with PodScheduled=False, reason
// Unschedulable (zero if none was).
func watchVerdict(ctx context.Context, cs kubernetes.Interface, ns string) (func() time.Time, error) {
	w, err := cs.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var (
		mu   sync.Mutex
		seen time.Time
		done = make(chan struct{})
	)
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			pod, ok := ev.Object.(*corev1.Pod)
			if !ok || !refused(pod) {
				continue
			}
			mu.Lock()
			if seen.IsZero() {
				seen = time.Now()
			}
			mu.Unlock()
		}
	}()
	return func() time.Time {
		w.Stop()
		<-done
		mu.Lock()
		defer mu.Unlock()
		return seen
	}, nil
}

func refused(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return true
		}
	}
	return false
}

// explainedClosestPool checks that the apply gave up on the scheduler's
// refusal (not at its timeout) and returns the first pool line of the
// explanation, which must name a pool whose labels and taints match.
func explainedClosestPool(logPath string) (string, error) {
	raw, err := os.ReadFile(logPath)
	if err != nil {
		return "", err
	}
	out := string(raw)
	if !strings.Contains(out, "(unschedulable_timeout)") {
		return "", fmt.Errorf("pending workload: the apply did not end on the scheduler's refusal (log: %s)\n%s", logPath, tail(logPath, 40))
	}
	_, pools, ok := strings.Cut(out, "GPU pools in the cluster:\n")
	if !ok {
		return "", fmt.Errorf("pending workload: no pool explanation (log: %s)", logPath)
	}
	// Terraform draws a box down the left of a diagnostic: "│   <pool>: ...".
	first, _, _ := strings.Cut(pools, "\n")
	first = strings.TrimSpace(strings.TrimLeft(first, "│ "))
	if !strings.Contains(first, "labels and taints match") {
		return "", fmt.Errorf("pending workload: the closest pool named is not the pool the workload asked for: %q (log: %s)", first, logPath)
	}
	return first, nil
}

// pendingSection is the pending workload's table of the large-cluster
// section; the goal applies at the goal size only.
func pendingSection(b *strings.Builder, r *pendingResult, atGoalSize bool) {
	if r == nil {
		return
	}
	if r.Failed != "" {
		fmt.Fprintf(b, "**A pending workload** did not complete: the goal (explanation ≤ %d s after the scheduler's verdict) "+
			"is **not met** here.\n\n```text\n%s\n```\n\n", pendingGoalSecs, r.Failed)
		return
	}
	fmt.Fprintf(b, "**A pending workload.** A `gpu_workload` (generic, `node_pool` = the cloned generic H100 nodes: %d, each "+
		"already running bench pods) asking for %d GPUs, which no node has free, with `unschedulable_timeout = \"0s\"`: "+
		"`terraform apply` must fail on the scheduler's refusal with the explanation, whose first pool line must be that "+
		"pool's (labels and taints match, GPUs short). The latency runs from the moment a pod watch in the driver sees "+
		"the pod `PodScheduled=False`, reason `Unschedulable` (the verdict), to terraform's exit; a destroy follows each run.\n\n",
		r.CandidateNodes, r.GPUs)
	latency := median(r.LatencySeconds)
	goal, met := fmt.Sprintf("≤ %d s at K = 5,000", pendingGoalSecs), "– (goal is at BENCH_SCALE=1)"
	if atGoalSize {
		goal, met = fmt.Sprintf("≤ %d s", pendingGoalSecs), yesNo(latency <= pendingGoalSecs)
	}
	b.WriteString("| | seconds | goal | met? |\n|---|---:|---|---|\n")
	fmt.Fprintf(b, "| explanation after the verdict, median of %d (runs: %s) | %.2f | %s | %s |\n",
		len(r.LatencySeconds), joinSeconds(r.LatencySeconds), latency, goal, met)
	fmt.Fprintf(b, "| whole `terraform apply`, median | %.2f | | |\n\n", median(r.ApplySeconds))
	fmt.Fprintf(b, "Closest pool named: `%s`\n\n", r.FirstPool)
}
