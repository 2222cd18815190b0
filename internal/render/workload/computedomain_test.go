package workload

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// nvl72Pool is the local cluster's generic-gb200-nvl72 pool: 2 cliques of 4
// trays of 4 GB200.
var nvl72Pool = spec.PoolPolicy{Name: "nvl72", Cloud: "generic", Accelerator: "gb200", GPUsPerNode: 4,
	Topology: &spec.PoolTopology{Levels: []string{"clique", "node"}, NodesPerDomain: map[string]int64{"clique": 4}}}

func nvlinkJob(pods int32, topology spec.WorkloadTopology) spec.Workload {
	return spec.Workload{Name: "train", Namespace: "ml", Kind: spec.KindJob, Cloud: "generic", Image: "nvcr.io/nvidia/pytorch:24.08-py3",
		GPU: spec.GPU{Count: 4}, Job: &spec.JobControls{Parallelism: &pods}, Topology: &topology}
}

// nvlink_domain renders a ComputeDomain before the Job, and the pods claim
// the channel template its controller creates, which is not rendered.
func TestComputeDomain_rendered(t *testing.T) {
	r := renderOn(t, nvlinkJob(4, spec.WorkloadTopology{Level: "clique", NVLinkDomain: true}), &nvl72Pool)
	if len(r.Objects) != 2 || r.Objects[0] != r.ComputeDomain || r.Objects[1] != r.Workload() {
		t.Fatalf("objects %v, want the ComputeDomain then the Job", objectKinds(r.Objects))
	}
	cd := r.ComputeDomain
	if cd.GetAPIVersion() != "resource.nvidia.com/v1beta1" || cd.GetKind() != "ComputeDomain" || cd.GetName() != "train" ||
		cd.GetNamespace() != "ml" || cd.GetLabels()[spec.LabelManagedBy] != spec.ManagedBy {
		t.Errorf("ComputeDomain %v", cd.Object)
	}
	name, _, _ := unstructured.NestedString(cd.Object, "spec", "channel", "resourceClaimTemplate", "name")
	mode, _, _ := unstructured.NestedString(cd.Object, "spec", "channel", "allocationMode")
	nodes, found, _ := unstructured.NestedInt64(cd.Object, "spec", "numNodes")
	if name != "train-channel" || mode != "Single" || !found || nodes != 0 {
		t.Errorf("channel template %q, allocation mode %q, numNodes %d (set %v)", name, mode, nodes, found)
	}
	pod := r.PodTemplate().Spec
	if len(pod.ResourceClaims) != 1 || pod.ResourceClaims[0].Name != "channel" || *pod.ResourceClaims[0].ResourceClaimTemplateName != "train-channel" {
		t.Errorf("pod claims %+v", pod.ResourceClaims)
	}
	c := pod.Containers[0]
	if len(c.Resources.Claims) != 1 || c.Resources.Claims[0].Name != "channel" {
		t.Errorf("container claims %+v", c.Resources.Claims)
	}
	if q := c.Resources.Limits[corev1.ResourceName("nvidia.com/gpu")]; q.Value() != 4 {
		t.Errorf("the GPUs are still nvidia.com/gpu: limits %v", c.Resources.Limits)
	}
}

// With DRA GPUs the pod has both claims, and the container uses both.
func TestComputeDomain_withDRAClaim(t *testing.T) {
	pool := nvl72Pool
	pool.GPUAllocation = spec.GPUAllocationDRA
	w := nvlinkJob(2, spec.WorkloadTopology{Level: "clique", NVLinkDomain: true})
	w.GPU.DRA = &spec.DRA{}
	r := renderOn(t, w, &pool)
	if got := objectKinds(r.Objects); len(got) != 3 || got[0] != "ResourceClaimTemplate" || got[1] != "ComputeDomain" {
		t.Fatalf("objects %v", got)
	}
	if n := len(r.PodTemplate().Spec.ResourceClaims); n != 2 {
		t.Errorf("%d pod claims, want gpu and channel", n)
	}
	if n := len(r.PodTemplate().Spec.Containers[0].Resources.Claims); n != 2 {
		t.Errorf("%d container claims, want gpu and channel", n)
	}
}

// Without nvlink_domain, level = "clique" renders no ComputeDomain.
func TestComputeDomain_onlyWhenAsked(t *testing.T) {
	r := renderOn(t, nvlinkJob(4, spec.WorkloadTopology{Level: "clique"}), &nvl72Pool)
	if r.ComputeDomain != nil || len(r.PodTemplate().Spec.ResourceClaims) != 0 {
		t.Errorf("ComputeDomain %v, claims %v", r.ComputeDomain, r.PodTemplate().Spec.ResourceClaims)
	}
}

func TestComputeDomain_planChecks(t *testing.T) {
	h100 := spec.PoolPolicy{Name: "h100", Cloud: "generic", Accelerator: "h100-80gb", GPUsPerNode: 8,
		Topology: &spec.PoolTopology{Levels: []string{"clique", "node"}}}
	cases := map[string]struct {
		w      spec.Workload
		pool   *spec.PoolPolicy
		detail string
	}{
		"not an NVL72 model": {nvlinkJob(2, spec.WorkloadTopology{Level: "clique", NVLinkDomain: true}), &h100,
			`Allowed: a workload on a node pool (or with gpu.accelerator) of "gb200"`},
		"a level other than clique": {nvlinkJob(2, spec.WorkloadTopology{Level: "node", NVLinkDomain: true}), &nvl72Pool,
			`Allowed: level = "clique"`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			resolved := Resolve(c.w, c.pool, true)
			rendertest.RequireDiag(t, resolved.Findings, gpudiag.SeverityError, "topology.nvlink_domain", c.detail)
			if resolved.Topology != nil && resolved.Topology.ComputeDomain {
				t.Error("a refused nvlink_domain would still render a ComputeDomain")
			}
		})
	}
	one := Resolve(nvlinkJob(1, spec.WorkloadTopology{Level: "clique", NVLinkDomain: true}), &nvl72Pool, true)
	rendertest.RequireDiag(t, one.Findings, gpudiag.SeverityWarning, "topology.nvlink_domain", "one pod")
}

func objectKinds(objects []Object) []string {
	var out []string
	for _, o := range objects {
		out = append(out, o.GetObjectKind().GroupVersionKind().Kind)
	}
	return out
}
