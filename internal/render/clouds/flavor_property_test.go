package clouds_test

import (
	"maps"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/queue"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// Issue #30: a gpu_queue's ResourceFlavor selects exactly its pool. Kueue
// writes the flavor's node labels into every pod it admits through it, so
// anything sent to the queue (a plain Job, a chart's pod) lands on the pool
// whose quota it took, or nowhere else.

// flavorLabelsOf is the nodeLabels of the ResourceFlavor a one-pool queue
// renders for p, with the plan's findings.
func flavorLabelsOf(t *testing.T, p spec.PoolPolicy) map[string]string {
	t.Helper()
	r, diags := queue.Render(spec.Queue{Name: "q", Flavors: []spec.QueueFlavor{{Pool: p, Nodes: 1}}})
	if diags.HasError() {
		t.Fatalf("queue of %s: %s", p.Name, rendertest.FormatDiags(diags))
	}
	return r.ResourceFlavors[0].Spec.NodeLabels
}

func selects(labels map[string]string, node *corev1.Node) bool {
	for k, v := range labels {
		if got, ok := node.Labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

func advertises(node *corev1.Node, resource string) bool {
	q, ok := node.Status.Allocatable[corev1.ResourceName(resource)]
	return ok && !q.IsZero()
}

// refusedTogether: a queue of both pools is a plan error saying no label
// tells them apart.
func refusedTogether(p, q spec.PoolPolicy) bool {
	_, diags := queue.Render(spec.Queue{Name: "q", Flavors: []spec.QueueFlavor{
		{Pool: p, Nodes: 1}, {Pool: q, Nodes: 1}}})
	return slices.ContainsFunc(diags.Errors(), func(d gpudiag.Diagnostic) bool {
		return d.Summary == "Kueue cannot tell two pools apart"
	})
}

// TestFlavorSelectsExactlyItsPoolInTheMatrix: for every pool of every cloud
// in the placement matrix, the flavor selects the pool's node (built from
// the clouds' facts, not from pool.Render) and no node of another pool that
// offers the same GPU resource. Where no label tells two pools apart
// (generic pools that differ only in a taint, or in spot, which generic
// clusters cannot express), a queue of both is refused instead.
func TestFlavorSelectsExactlyItsPoolInTheMatrix(t *testing.T) {
	checked := 0
	for _, name := range clouds.PoolNames() {
		c := spec.Cloud(name)
		t.Run(name, func(t *testing.T) {
			var pools []matrixPool
			for _, p := range matrixPools(t, c) {
				// The no-GFD pools are a cluster pool.Render does not describe
				// (TestPlacementFactsMatchRenderPool skips them too).
				if !p.noGFD && len(p.rendered.ResourceNames) == 1 {
					pools = append(pools, p)
				}
			}
			nodes := make([]*corev1.Node, len(pools))
			for i, p := range pools {
				nodes[i], _ = p.node()
			}
			for i, p := range pools {
				labels := flavorLabelsOf(t, p.policy())
				if !selects(labels, nodes[i]) {
					t.Errorf("%s: flavor labels %v do not select the pool's own node %v", p.name, labels, nodes[i].Labels)
				}
				for j, q := range pools {
					if i == j || !selects(labels, nodes[j]) || !advertises(nodes[j], p.rendered.ResourceName) {
						continue
					}
					if !refusedTogether(p.policy(), q.policy()) {
						t.Errorf("%s: flavor labels %v also select %s's node, and a queue of both plans clean", p.name, labels, q.name)
					}
				}
				checked++
			}
		})
	}
	if checked < 50 {
		t.Fatalf("checked %d pools; the matrix has far more", checked)
	}
}

// fixturePolicies are the pool policies of the local cluster's fixture
// pools (scripts/localcluster/fixtures), named as the cloud names the pools
// there, with the fixture pool each describes. The A10 pool shares without
// renaming its resource and the A100 one is cut into several MIG profiles,
// neither of which a queue flavor takes (the first is not what the provider
// configures, the second is several resources), so they are not listed.
var fixturePolicies = []struct {
	fixture string
	policy  spec.PoolPolicy
}{
	{"gke-a100", spec.PoolPolicy{Name: "a100-pool", Cloud: "gke", Accelerator: "a100-40gb", GPUsPerNode: 8}},
	{"gke-a100-mig", spec.PoolPolicy{Name: "a100-mig-pool", Cloud: "gke", Accelerator: "a100-40gb", GPUsPerNode: 8, Partition: "2g.10gb"}},
	{"gke-l4-shared", spec.PoolPolicy{Name: "l4-shared-pool", Cloud: "gke", Accelerator: "l4", GPUsPerNode: 1, Sharing: spec.SharingTimeSlicing, Replicas: 4}},
	{"aks-nc24adsa100", spec.PoolPolicy{Name: "gpua100", Cloud: "aks", Accelerator: "a100-80gb", GPUsPerNode: 1}},
	{"aks-nc6sv3", spec.PoolPolicy{Name: "gpuv100", Cloud: "aks", Accelerator: "v100-16gb", GPUsPerNode: 1}},
	{"aks-nc24sv3", spec.PoolPolicy{Name: "gpuv100x4", Cloud: "aks", Accelerator: "v100-16gb", GPUsPerNode: 4}},
	{"eks-g5", spec.PoolPolicy{Name: "gpu-g5", Cloud: "eks", Accelerator: "a10g", GPUsPerNode: 4}},
	{"eks-p4d", spec.PoolPolicy{Name: "gpu-p4d-spot", Cloud: "eks", Accelerator: "a100-40gb", GPUsPerNode: 8, Spot: true}},
	{"eksauto-l40s", spec.PoolPolicy{Name: "gpu", Cloud: "eks-auto", Accelerator: "l40s", GPUsPerNode: 4}},
	{"karpenter-g6", spec.PoolPolicy{Name: "gpu", Cloud: "karpenter", Accelerator: "l4", GPUsPerNode: 4}},
	{"generic-h100", spec.PoolPolicy{Name: "dgx-h100", Cloud: "generic", Accelerator: "h100-80gb", GPUsPerNode: 8}},
	{"generic-h200", spec.PoolPolicy{Name: "dgx-h200", Cloud: "generic", Accelerator: "h200", GPUsPerNode: 8}},
	{"generic-t4-timeslice", spec.PoolPolicy{Name: "t4-shared", Cloud: "generic", Accelerator: "t4", GPUsPerNode: 1, Sharing: spec.SharingTimeSlicing, Replicas: 4}},
	// DRA pools: their nodes carry GFD's labels too (docs/design/dra.md §8).
	{"dra-h100", spec.PoolPolicy{Name: "dra-h100", Cloud: "generic", Accelerator: "h100-80gb", GPUsPerNode: 8, GPUAllocation: spec.GPUAllocationDRA}},
	{"dra-h200", spec.PoolPolicy{Name: "dra-h200", Cloud: "generic", Accelerator: "h200", GPUsPerNode: 8, GPUAllocation: spec.GPUAllocationDRA}},
}

// publishesDRA: a DRA pool's node n has DRA devices (the fixtures' DRA
// nodes), where a DRA pool's claims could be allocated.
func publishesDRA(p spec.PoolPolicy, n *corev1.Node) bool {
	return p.UsesDRA() && n.Labels["fixtures.gpuform.io/dra-driver"] != ""
}

// TestFlavorSelectsExactlyItsPoolInTheFixtures: on the local cluster's own
// nodes, each fixture pool's flavor selects every node of that pool and no
// other node that offers its GPU resource. (The Karpenter fixture's spot
// node is in the same NodePool as its on-demand ones, so it is the pool's.)
func TestFlavorSelectsExactlyItsPoolInTheFixtures(t *testing.T) {
	nodes := rendertest.LoadFixtureNodes(t)
	for _, f := range fixturePolicies {
		t.Run(f.fixture, func(t *testing.T) {
			labels := flavorLabelsOf(t, f.policy)
			rendered, _ := pool.Render(f.policy)
			var own, others []string
			for i := range nodes {
				n := &nodes[i]
				inPool := n.Labels["fixtures.gpuform.io/pool"] == f.fixture
				switch {
				case inPool && !selects(labels, n):
					t.Errorf("flavor labels %v miss the pool's node %s", labels, n.Name)
				case inPool:
					own = append(own, n.Name)
				case selects(labels, n) && (advertises(n, rendered.ResourceName) || publishesDRA(f.policy, n)):
					others = append(others, n.Name)
				}
			}
			if len(own) == 0 {
				t.Errorf("flavor labels %v select no node of fixture pool %s", labels, f.fixture)
			}
			if len(others) > 0 {
				t.Errorf("flavor labels %v also select %s", labels, strings.Join(others, ", "))
			}
			t.Logf("flavor %v selects %s", slices.Sorted(maps.Keys(labels)), strings.Join(own, ", "))
		})
	}
}
