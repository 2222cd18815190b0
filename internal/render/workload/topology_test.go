package workload

import (
	"strings"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// gkeTASPool is the local cluster's gke-h100-tas pool: 2 blocks x 2
// sub-blocks x 2 hosts of 8 GPUs.
var gkeTASPool = spec.PoolPolicy{Name: "h100-tas-pool", Cloud: "gke", Accelerator: "h100-80gb", GPUsPerNode: 8,
	Topology: &spec.PoolTopology{NodesPerDomain: map[string]int64{"block": 4, "subblock": 2}}}

func tasJob(pods int32, gpus int64, topology spec.WorkloadTopology, queue string) spec.Workload {
	return spec.Workload{Name: "train", Kind: spec.KindJob, Cloud: "gke", Image: "nvcr.io/nvidia/pytorch:24.08-py3",
		GPU: spec.GPU{Count: gpus, Accelerator: "h100-80gb"}, Job: &spec.JobControls{Parallelism: &pods},
		Queue: queue, Topology: &topology}
}

func renderOn(t *testing.T, w spec.Workload, p *spec.PoolPolicy) *Rendered {
	t.Helper()
	r, diags := ResolveAndRender(w, Options{Pool: p})
	rendertest.RequireNoErrors(t, diags)
	return r
}

// In a Kueue queue the level becomes Kueue's pod-template annotation with
// the level's node label; slices add the slice annotations.
func TestTopology_kueueAnnotations(t *testing.T) {
	r := renderOn(t, tasJob(2, 8, spec.WorkloadTopology{Level: "block"}, "team-a"), &gkeTASPool)
	got := r.PodTemplate().Annotations
	if got[AnnotationKueueRequiredTopology] != "cloud.google.com/gce-topology-block" || r.PodTemplate().Spec.Affinity.PodAffinity != nil {
		t.Fatalf("annotations %v, pod affinity %v", got, r.PodTemplate().Spec.Affinity.PodAffinity)
	}
	r = renderOn(t, tasJob(4, 8, spec.WorkloadTopology{Level: "block", Mode: "preferred", SliceSize: 2, SliceLevel: "subblock"}, "team-a"), &gkeTASPool)
	got = r.PodTemplate().Annotations
	want := map[string]string{
		AnnotationKueuePreferredTopology:     "cloud.google.com/gce-topology-block",
		AnnotationKueueSliceRequiredTopology: "cloud.google.com/gce-topology-subblock",
		AnnotationKueueSliceSize:             "2",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("annotation %s = %q, want %q", k, got[k], v)
		}
	}
	if _, ok := got[AnnotationKueueRequiredTopology]; ok {
		t.Error("preferred also rendered the required annotation")
	}
}

// Without a queue: pod affinity among the workload's own pods on the
// level's label, next to the pool's node affinity.
func TestTopology_defaultSchedulerAffinity(t *testing.T) {
	r := renderOn(t, tasJob(2, 8, spec.WorkloadTopology{Level: "subblock"}, ""), &gkeTASPool)
	aff := r.PodTemplate().Spec.Affinity
	if aff == nil || aff.PodAffinity == nil || len(aff.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution) != 1 {
		t.Fatalf("no required pod affinity: %+v", aff)
	}
	term := aff.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0]
	if term.TopologyKey != "cloud.google.com/gce-topology-subblock" || term.LabelSelector.MatchLabels[spec.LabelInstance] != "train" {
		t.Errorf("term %+v", term)
	}
	if r.Affinity != nil && r.Affinity.PodAffinity != nil {
		t.Error("the placement shown for the pool changed with the pod's affinity")
	}
	// The pool's a3-highgpu-8g machines add GPUDirect-TCPX's annotations
	// (network.go); Kueue's must not be there.
	for key := range r.PodTemplate().Annotations {
		if strings.HasPrefix(key, "kueue.x-k8s.io/") {
			t.Errorf("Kueue annotation %s without a queue", key)
		}
	}
	r = renderOn(t, tasJob(2, 8, spec.WorkloadTopology{Level: "block", Mode: "preferred"}, ""), &gkeTASPool)
	if p := r.PodTemplate().Spec.Affinity.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution; len(p) != 1 || p[0].Weight != 100 {
		t.Errorf("preferred affinity %+v", p)
	}
}

// Every cloud's level names resolve to its labels, with or without a pool
// topology (then the cloud's known levels).
func TestTopology_levelsPerCloud(t *testing.T) {
	for _, c := range []struct{ cloud, accel, level, label string }{
		{"gke", "h100-80gb", "host", "cloud.google.com/gce-topology-host"},
		{"eks", "h100-80gb", "layer-3", "topology.k8s.aws/network-node-layer-3"},
		{"karpenter", "h100-80gb", "layer-1", "topology.k8s.aws/network-node-layer-1"},
		{"generic", "gb200", "clique", "nvidia.com/gpu.clique"},
		{"aks", "a100-80gb", "node", "kubernetes.io/hostname"},
		{"aks", "a100-80gb", "example.com/rack", "example.com/rack"},
	} {
		w := tasJob(2, 1, spec.WorkloadTopology{Level: c.level}, "q")
		w.Cloud, w.GPU.Accelerator = c.cloud, c.accel
		r := renderOn(t, w, nil)
		if got := r.PodTemplate().Annotations[AnnotationKueueRequiredTopology]; got != c.label {
			t.Errorf("%s level %q: %q, want %q", c.cloud, c.level, got, c.label)
		}
	}
}

// The plan-time rules, each at its attribute.
func TestTopology_planChecks(t *testing.T) {
	noTopology := gkeTASPool
	noTopology.Topology = nil
	for _, c := range []struct {
		name     string
		w        spec.Workload
		pool     *spec.PoolPolicy
		severity gpudiag.Severity
		path     string
		detail   string
	}{
		{"unknown level", tasJob(2, 8, spec.WorkloadTopology{Level: "rack"}, "q"), &gkeTASPool, gpudiag.SeverityError,
			"topology.level", `Allowed: "block", "subblock", "host", "node"`},
		{"level of another cloud", tasJob(2, 8, spec.WorkloadTopology{Level: "clique"}, ""), nil, gpudiag.SeverityError,
			"topology.level", `"clique" is not one of the cloud's topology levels`},
		{"larger than a block", tasJob(5, 8, spec.WorkloadTopology{Level: "block"}, "q"), &gkeTASPool, gpudiag.SeverityError,
			"topology.level", "5 pods (job.parallelism) of 8 GPUs need 5 nodes, and one block of node pool \"h100-tas-pool\" has 4 nodes"},
		{"larger than a subblock, preferred", tasJob(3, 8, spec.WorkloadTopology{Level: "subblock", Mode: "preferred"}, "q"), &gkeTASPool,
			gpudiag.SeverityWarning, "topology.level", "spread over several domains"},
		{"queue without pool topology", tasJob(2, 8, spec.WorkloadTopology{Level: "block"}, "q"), &noTopology, gpudiag.SeverityError,
			"topology.level", "node pool \"h100-tas-pool\" declares none"},
		{"slice not dividing", tasJob(4, 8, spec.WorkloadTopology{Level: "block", SliceSize: 3, SliceLevel: "subblock"}, "q"), &gkeTASPool,
			gpudiag.SeverityError, "topology.slice_size", "does not divide the 4 pods"},
		{"slice above level", tasJob(4, 8, spec.WorkloadTopology{Level: "subblock", SliceSize: 2, SliceLevel: "block"}, "q"), &gkeTASPool,
			gpudiag.SeverityError, "topology.slice_level", "is above level"},
		{"slice larger than its domain", tasJob(4, 8, spec.WorkloadTopology{Level: "block", SliceSize: 4, SliceLevel: "subblock"}, "q"), &gkeTASPool,
			gpudiag.SeverityError, "topology.slice_size", "Allowed: slice_size at most 2"},
		{"slices without Kueue", tasJob(4, 8, spec.WorkloadTopology{Level: "block", SliceSize: 2, SliceLevel: "subblock"}, ""), &gkeTASPool,
			gpudiag.SeverityError, "topology.slice_size", "Only Kueue's Topology Aware Scheduling"},
		{"one pod", tasJob(1, 8, spec.WorkloadTopology{Level: "block"}, "q"), &gkeTASPool, gpudiag.SeverityWarning,
			"topology", "The request matters from two pods up"},
		{"bad mode", tasJob(2, 8, spec.WorkloadTopology{Level: "block", Mode: "strict"}, "q"), &gkeTASPool, gpudiag.SeverityError,
			"topology.mode", `Allowed: "required", "preferred"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			rendertest.RequireDiag(t, Resolve(c.w, c.pool, true).Findings, c.severity, c.path, c.detail)
		})
	}
	kai := tasJob(2, 8, spec.WorkloadTopology{Level: "block"}, "q")
	kai.QueueScheduler = spec.QueueSchedulerKAI
	rendertest.RequireDiag(t, Resolve(kai, &gkeTASPool, true).Findings, gpudiag.SeverityError, "topology", "places pods itself")
	// Two pods of 8 GPUs fit one block of 4 nodes: no finding.
	rendertest.RequireNoErrors(t, Resolve(tasJob(4, 8, spec.WorkloadTopology{Level: "block"}, "q"), &gkeTASPool, true).Findings)
}
