package clouds_test

import (
	"maps"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// podAcceptsNode reports whether a node with these labels satisfies the
// rendered nodeSelector and required node affinity (the scheduler's
// NodeAffinity filter: selector ANDed with ORed terms of ANDed expressions).
func podAcceptsNode(t *testing.T, r *workload.Rendered, node map[string]string) bool {
	t.Helper()
	set := labels.Set(node)
	if !labels.SelectorFromSet(r.NodeSelector).Matches(set) {
		return false
	}
	if r.Affinity == nil || r.Affinity.NodeAffinity == nil || r.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return true
	}
	for _, term := range r.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		if termMatches(t, term, set) {
			return true
		}
	}
	return false
}

func termMatches(t *testing.T, term corev1.NodeSelectorTerm, set labels.Set) bool {
	t.Helper()
	ops := map[corev1.NodeSelectorOperator]selection.Operator{
		corev1.NodeSelectorOpIn: selection.In, corev1.NodeSelectorOpNotIn: selection.NotIn,
		corev1.NodeSelectorOpExists: selection.Exists, corev1.NodeSelectorOpDoesNotExist: selection.DoesNotExist,
	}
	for _, e := range term.MatchExpressions {
		req, err := labels.NewRequirement(e.Key, ops[e.Operator], e.Values)
		if err != nil {
			t.Fatalf("requirement %+v: %v", e, err)
		}
		if !req.Matches(set) {
			return false
		}
	}
	return true
}

// poolNodeLabels is what a node of the pool carries: the labels the policy
// adds, those the cloud and GPU Operator set, and extra labels GPU Feature
// Discovery sets for the configuration (docs/design/nvidia.md#gpu-feature-discovery-labels).
func poolNodeLabels(t *testing.T, p spec.PoolPolicy, gfd map[string]string) map[string]string {
	t.Helper()
	r, diags := pool.Render(p)
	rendertest.RequireNoErrors(t, diags)
	out := map[string]string{}
	maps.Copy(out, r.CloudSetLabels)
	maps.Copy(out, r.NodeLabels)
	maps.Copy(out, gfd)
	return out
}

// TestWholeGPUAvoidsPartitionedAndSharedNodes (issue #12 finding 1): a
// whole-GPU pod must not select nodes whose GPUs are cut into MIG instances
// ("single" strategy advertises them as nvidia.com/gpu) or time-sliced /
// MPS-shared, on any cloud where the NVIDIA device plugin runs; and it must
// still select unpartitioned nodes, with or without GFD's labels.
func TestWholeGPUAvoidsPartitionedAndSharedNodes(t *testing.T) {
	for _, cloud := range []spec.Cloud{spec.CloudEKS, spec.CloudAKS, spec.CloudKarpenter, spec.CloudGeneric} {
		t.Run(string(cloud), func(t *testing.T) {
			w := rendertest.ValidWorkload()
			w.Cloud, w.GPU.Accelerator = string(cloud), "a100-40gb"
			r, diags := workload.ResolveAndRender(w, workload.Options{})
			rendertest.RequireNoErrors(t, diags)
			pool := func(edit func(p *spec.PoolPolicy)) spec.PoolPolicy {
				p := spec.PoolPolicy{Name: "p", Cloud: string(cloud), Accelerator: "a100-40gb", GPUsPerNode: 8}
				edit(&p)
				return p
			}
			whole := pool(func(*spec.PoolPolicy) {})
			// Unshared GFD labels, as GFD sets them on a whole-GPU node.
			wholeGFD := map[string]string{clouds.LabelGFDProduct: "NVIDIA-A100-SXM4-40GB", clouds.LabelSharingStrategy: "none",
				clouds.LabelGPUReplicas: "1", "nvidia.com/mig.strategy": "single", clouds.LabelGPUPresent: "true"}
			if !podAcceptsNode(t, r, poolNodeLabels(t, whole, nil)) {
				t.Errorf("whole-GPU pod rejects a whole-GPU pool's nodes without GFD labels; selector %v affinity %v", r.NodeSelector, r.Affinity)
			}
			if !podAcceptsNode(t, r, poolNodeLabels(t, whole, wholeGFD)) {
				t.Errorf("whole-GPU pod rejects a whole-GPU pool's nodes with GFD labels; selector %v affinity %v", r.NodeSelector, r.Affinity)
			}
			migSingle := pool(func(p *spec.PoolPolicy) { p.Partition, p.MIGStrategy = "1g.5gb", spec.MIGStrategySingle })
			if podAcceptsNode(t, r, poolNodeLabels(t, migSingle, map[string]string{"nvidia.com/mig.strategy": "single"})) {
				t.Errorf("whole-GPU pod accepts a MIG single-strategy node (it advertises MIG instances as nvidia.com/gpu)")
			}
			for _, sharing := range []string{spec.SharingTimeSlicing, spec.SharingMPS} {
				shared := pool(func(p *spec.PoolPolicy) { p.Sharing, p.Replicas = sharing, 4 })
				gfd := map[string]string{clouds.LabelSharingStrategy: sharing, clouds.LabelGPUReplicas: "4"}
				if podAcceptsNode(t, r, poolNodeLabels(t, shared, gfd)) {
					t.Errorf("whole-GPU pod accepts a %s node", sharing)
				}
				// Without renameByDefault the device plugin keeps the name
				// nvidia.com/gpu and GFD appends -SHARED to the product.
				gfd[clouds.LabelGFDProduct] = "NVIDIA-A100-SXM4-40GB-SHARED"
				if podAcceptsNode(t, r, poolNodeLabels(t, shared, gfd)) {
					t.Errorf("whole-GPU pod accepts a %s node whose product ends in -SHARED", sharing)
				}
			}
		})
	}
}
