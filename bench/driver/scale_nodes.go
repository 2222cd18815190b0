package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/gpuform/terraform-provider-gpu/bench/spec"
)

// The manage_nodes part of the large cluster (issue #14): a
// gpu_node_pool_policy whose manage_nodes selector matches manageNodesGoal
// nodes, next to the cloned ones, labels and taints them in at most
// manageGoalSecs. Smaller scales manage as many nodes as they clone, so a
// smoke run stays short.
const (
	manageNodesGoal = 500
	manageGoalSecs  = 30
	// manageLabel marks the nodes the policy's selector matches.
	manageLabel = "gpuform.io/bench-manage"
)

// manageResult is the policy's apply, refresh plan and destroy on the
// selected nodes, and what the nodes carried after each.
type manageResult struct {
	Nodes          int     `json:"nodes"`
	ApplySeconds   float64 `json:"apply_seconds"`
	RefreshSeconds float64 `json:"refresh_seconds"` // a plan that must find no drift
	DestroySeconds float64 `json:"destroy_seconds"`
	// Recorded is how many selected nodes carried the policy's record
	// annotation after the apply (written last for each node), Left how
	// many still did after the destroy.
	Recorded int `json:"recorded"`
	Left     int `json:"left"`
}

// createManageNodes creates the nodes the policy's selector matches: plain
// H100 kwok nodes of their own, carrying only the run's label and taint, so
// that no fixture's cloud taints meet the generic policy's, and waits until
// they are Ready.
func createManageNodes(ctx context.Context, cs kubernetes.Interface, id string, n int) error {
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("224"),
		corev1.ResourceMemory: resource.MustParse("2Ti"),
		corev1.ResourcePods:   resource.MustParse("110"),
		"nvidia.com/gpu":      *resource.NewQuantity(spec.GPUsPerNode, resource.DecimalSI),
	}
	if _, err := createTimed(ctx, "manage_nodes nodes", n, 1000, func(i int) error {
		name := fmt.Sprintf("bench-%s-manage-%d", id, i)
		node := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"},
				Labels: map[string]string{"kubernetes.io/hostname": name, spec.LabelKey: id, manageLabel: id,
					"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}},
			Spec:   corev1.NodeSpec{Taints: []corev1.Taint{{Key: spec.LabelKey, Value: id, Effect: corev1.TaintEffectNoSchedule}}},
			Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity},
		}
		_, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
		return err
	}); err != nil {
		return err
	}
	_, err := waitNodesReadyBy(ctx, cs, manageLabel+"="+id, n)
	return err
}

// manageNodesHCL is one policy managing the labelled nodes. The label it adds
// is the run's own, so the refresh plan can check it on every node.
func manageNodesHCL(kubeconfig, id string) string {
	return providerHCL(kubeconfig) + fmt.Sprintf(`
resource "gpu_node_pool_policy" "bench" {
  name          = "bench-%[1]s"
  cloud         = "generic"
  accelerator   = "h100-80gb"
  gpus_per_node = 8
  labels        = { "gpuform.io/bench-pool" = %[1]q }

  manage_nodes {
    selector = "%[2]s=%[1]s"
  }
}
`, id, manageLabel)
}

// manageNodes applies the policy, checks with a refresh plan that every
// node is as the policy wants (no change lost to a conflict with kwok's
// status updates), destroys it and checks that the nodes were released.
func (b *bench) manageNodes(ctx context.Context, cs kubernetes.Interface, n int) (*manageResult, error) {
	res := &manageResult{Nodes: n}
	logf("== manage_nodes: creating %d nodes\n", n)
	if err := createManageNodes(ctx, cs, b.cfg.id, n); err != nil {
		return nil, err
	}
	ws, err := newWorkspace(filepath.Join(b.work, "manage-nodes"), b.cfg.terraform, b.cliConfig, b.cfg.provider,
		manageNodesHCL(b.cfg.kubeconfig, b.cfg.id))
	if err != nil {
		return nil, err
	}
	steps := []struct {
		step    string
		seconds *float64
		after   func() error
	}{
		{stepApply, &res.ApplySeconds, func() (err error) { res.Recorded, err = b.recordedNodes(ctx, cs); return err }},
		{stepRefresh, &res.RefreshSeconds, nil},
		{stepDestroy, &res.DestroySeconds, func() (err error) { res.Left, err = b.recordedNodes(ctx, cs); return err }},
	}
	for _, s := range steps {
		r, err := ws.run(ctx, s.step, runOpts{log: "manage-" + s.step + ".log"})
		if err != nil {
			return nil, fmt.Errorf("manage_nodes %s: %w", s.step, err)
		}
		*s.seconds = r.Seconds
		if s.after != nil {
			if err := s.after(); err != nil {
				return nil, err
			}
		}
		logf("   %s %.2f s\n", s.step, r.Seconds)
	}
	logf("   %d of %d nodes recorded after apply, %d after destroy\n", res.Recorded, n, res.Left)
	return res, nil
}

// recordedNodes counts the selected nodes carrying the policy's record.
func (b *bench) recordedNodes(ctx context.Context, cs kubernetes.Interface) (int, error) {
	list, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: manageLabel + "=" + b.cfg.id})
	if err != nil {
		return 0, err
	}
	key := "pools.gpu.gpuform.io/bench-" + b.cfg.id
	count := 0
	for i := range list.Items {
		if _, ok := list.Items[i].Annotations[key]; ok {
			count++
		}
	}
	return count, nil
}

// manageSection is the manage_nodes table of the large-cluster section.
func manageSection(b *strings.Builder, r *manageResult) {
	if r == nil {
		return
	}
	fmt.Fprintf(b, "**manage_nodes.** A `gpu_node_pool_policy` (generic, H100, one label of its own) whose `manage_nodes` selector "+
		"matches %d more kwok nodes (H100, 8 GPUs, only the run's label and taint; `%s=<run id>`): `terraform apply`, then `terraform plan -detailed-exitcode`, which must "+
		"find every node labelled and tainted as the policy wants (the provider's refresh compares each), then `terraform destroy`, "+
		"which must release every node.\n\n", r.Nodes, manageLabel)
	b.WriteString("| step | seconds | goal | met? |\n|---|---:|---|---|\n")
	goal, met := "–", "–"
	if r.Nodes >= manageNodesGoal {
		goal, met = fmt.Sprintf("≤ %d s", manageGoalSecs), yesNo(r.ApplySeconds <= manageGoalSecs && r.Recorded == r.Nodes)
	}
	fmt.Fprintf(b, "| apply (label and taint %d nodes; %d carried the policy's record after it) | %.2f | %s | %s |\n",
		r.Nodes, r.Recorded, r.ApplySeconds, goal, met)
	fmt.Fprintf(b, "| refresh plan, no drift found | %.2f | | |\n", r.RefreshSeconds)
	fmt.Fprintf(b, "| destroy (release %d nodes; %d still carried the record after it) | %.2f | | |\n\n",
		r.Nodes, r.Left, r.DestroySeconds)
}
