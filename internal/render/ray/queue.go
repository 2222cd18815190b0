package ray

import (
	"strconv"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/queue"
)

// Kueue's pod sets of a Ray object (Kueue v0.17.0
// pkg/controller/jobs/raycluster/common.go BuildPodSets,
// rayjob/rayjob_controller.go): "head" with one pod, one per worker group
// named after it with replicas pods (times numOfHosts, which the provider
// leaves at 1), and for a RayJob in K8sJobMode "submitter" with one pod.
const (
	PodSetHead      = "head"
	PodSetSubmitter = "submitter"
)

// PodSet is one of Kueue's pod sets of the rendered object.
type PodSet struct {
	Name  string
	Count int64
	// Group is the index of the group in Rendered.Groups; -1 for the
	// submitter, which the provider does not render (KubeRay writes its
	// Job; Kueue counts it with 500m CPU and 200Mi memory requested).
	Group int
}

// PodSets are the pod sets Kueue makes of the rendered object, in its
// order.
func (r *Rendered) PodSets() []PodSet {
	out := []PodSet{{Name: PodSetHead, Count: 1, Group: 0}}
	for i, wg := range r.ClusterSpec().WorkerGroupSpecs {
		out = append(out, PodSet{Name: wg.GroupName, Count: int64(valueOr(wg.Replicas, 1)), Group: i + 1})
	}
	if r.Job != nil {
		out = append(out, PodSet{Name: PodSetSubmitter, Count: 1, Group: -1})
	}
	return out
}

// CheckQueue reports, at plan time, a group Kueue can never admit to the
// queue: gpu_workload's check (queue.CheckWorkload: a namespace without
// the LocalQueue, GPUs no flavor covers, a placement no flavor's labels
// match, more than a flavor holds) for each group's pod set, on the
// group's block. Kueue assigns each pod set a flavor of its own, so a
// group is judged alone.
func CheckQueue(ref queue.Ref, r *Rendered) gpudiag.Diagnostics {
	var diags gpudiag.Diagnostics
	namespace := r.Object().GetNamespace()
	for _, ps := range r.PodSets() {
		if ps.Group < 0 {
			continue
		}
		g := r.Groups[ps.Group]
		d := queue.PodSetDemand(queue.PodSet{Namespace: namespace, Cloud: g.Cloud, GPU: g.GPU, Pods: ps.Count,
			Template: &g.Pod.Pod, Rendered: g.Pod.Rendered})
		if g.GPUs == 0 {
			d.Resource, d.PerPod = "", 0 // a pod without GPUs: only its namespace is the queue's concern
		}
		for _, f := range queue.CheckWorkload(ref, d) {
			if ps.Group > 0 && f.Summary == "No LocalQueue in this namespace" {
				continue // said once, for the head
			}
			f.Detail = "Pod set " + strconv.Quote(ps.Name) + " (" + strconv.FormatInt(ps.Count, 10) + " pods): " + f.Detail
			f.Path = groupPath(g, ps.Group)
			diags = append(diags, f)
		}
	}
	return diags
}

// groupPath is the block of the group at index i of Rendered.Groups.
func groupPath(g GroupRendered, i int) []any {
	if g.Head {
		return headPath()
	}
	return workerPath(i - 1)
}
