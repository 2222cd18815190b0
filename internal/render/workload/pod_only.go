package workload

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds/kindkit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// PodKind is what the rules of a pod read of the object around it when
// that object is not one of gpu_workload's kinds: a Ray cluster's head or
// worker group (docs/design/ray.md). ResolvePod and RenderPod then run the
// same rules and render the same pod template as gpu_workload does.
type PodKind struct {
	// Pods is how many of the pods may run together, and the attribute
	// that says so (a Ray worker group's replicas); 0 when unknown.
	Pods     int64
	PodsAttr string
	// SharedMemory gives the pod a memory-backed /dev/shm without shm_size
	// (half its memory), as kindkit.Kind.SharedMemory does.
	SharedMemory bool
	// MultiNode: the pods exchange data as one job, so a pool whose GPU
	// network they cannot get is warned about.
	MultiNode bool
}

func (k PodKind) kind() kindkit.Kind {
	pods, attr := k.Pods, k.PodsAttr
	return kindkit.Kind{
		Pods:         func(spec.Workload) (int64, string) { return pods, attr },
		SharedMemory: k.SharedMemory,
	}
}

// ResolvePod runs the rules of w's pod (its GPU container, metadata, pod
// settings, queue name, topology and network on pool) without the rules
// of w's kind: w.Kind, the kind's blocks, name and namespace are the
// caller's to check. Diagnostic paths are w's attribute names (gpu.count,
// env["X"], topology.level); a caller with nested blocks puts its own
// path in front.
func ResolvePod(w spec.Workload, pool *spec.PoolPolicy, k PodKind, strict bool) Resolved {
	return resolve(w, pool, podRules{kind: k.kind(), multiNode: k.MultiNode}, strict)
}

// PodRendered is one pod template rendered from a ResolvePod resolution,
// with the objects it needs beside it.
type PodRendered struct {
	Pod corev1.PodTemplateSpec
	// Objects are the DRA claim template and the ComputeDomain the pod
	// claims from, in apply order; empty without them.
	Objects []Object
	// ResourceName is the extended resource requested ("" with DRA, or
	// without a GPU).
	ResourceName string
	// Network is the pool's GPU network as the pod got it; nil without.
	Network *clouds.NetworkPod
	// DRAAPIVersion and DRAAPIVersionAssumed are Rendered's.
	DRAAPIVersion        string
	DRAAPIVersionAssumed bool
	// Rendered is the render the pod came from, for callers that read its
	// claim templates (the queue's demand) the way they read a workload's.
	Rendered *Rendered
}

// RenderPod renders the pod template of a strict resolution from
// ResolvePod with the code gpu_workload's pods are rendered with, and
// marks its topology request (Kueue's pod-set annotations, or pod affinity
// to the pods of its selector labels).
func RenderPod(resolved Resolved, opts Options) (*PodRendered, gpudiag.Diagnostics) {
	diags := gpudiag.Unresolved("pod", resolved.Strict, resolved.Findings)
	if diags.HasError() {
		return nil, diags
	}
	if resolved.Intent.DRA {
		version, _ := DRAAPIVersion(opts.ServerVersion)
		if diags.Append(CheckDRAAPIVersion(DRARequestOf(resolved.Workload.GPU, resolved.Intent), version)); diags.HasError() {
			return nil, diags
		}
	}
	r, place, ok := newRendered(resolved, opts)
	var pod corev1.PodTemplateSpec
	if ok {
		pod, ok = buildPod(resolved, opts, place, r)
	}
	if !ok {
		diags.AddError(nil, "Could not render the pod",
			"The configuration passed validation but could not be rendered; this is a provider bug, please report it.")
		return nil, diags
	}
	if resolved.Topology != nil {
		markPodTopology(&pod, r.SelectorLabels, resolved.Topology)
	}
	return &PodRendered{Pod: pod, Objects: r.Objects, ResourceName: r.ResourceName, Network: r.Network,
		DRAAPIVersion: r.DRAAPIVersion, DRAAPIVersionAssumed: r.DRAAPIVersionAssumed, Rendered: r}, diags
}
