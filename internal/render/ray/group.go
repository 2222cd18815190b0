package ray

import (
	"maps"
	"slices"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// Container names of the Ray container (KubeRay runs `ray start` in the
// first container of the pod; the names are its samples').
const (
	HeadContainer   = "ray-head"
	WorkerContainer = "ray-worker"
)

// Defaults of a group without GPUs: a pod the Ray head (GCS, dashboard,
// driver) runs in comfortably. Sizing presets size from a GPU, which such a
// pod does not have.
const (
	DefaultCPU    = "2"
	DefaultMemory = "8Gi"
)

// group is one Ray group resolved: the group as configured, the workload
// its pod is rendered as, and where its findings go.
type group struct {
	spec.RayGroup
	// head is true for the head group.
	head bool
	// index is the worker group's index (-1 for the head).
	index int
	// workload is the group's pod as gpu_workload's pipeline sees it.
	workload spec.Workload
	// gpus is false for a group without a gpu block: its workload asks for
	// one GPU only so that its pool places it, and the render takes the
	// GPU away again.
	gpus     bool
	resolved workload.Resolved
}

// path is where a finding about attr of the group goes.
func (g group) path(attr ...any) []any {
	if g.head {
		return headPath(attr...)
	}
	return workerPath(g.index, attr...)
}

// label is the group's name in messages.
func (g group) label() string {
	if g.head {
		return "head"
	}
	return "worker group " + quote(g.Name)
}

// groupName is the group's name in object names and labels.
func (g group) groupName() string {
	if g.head {
		return "head"
	}
	return g.Name
}

// clusterAttributes are attributes of the cluster that reach every
// group's pod: their findings stay on the cluster, reported once.
var clusterAttributes = []string{"cloud", "queue", "queue_scheduler", "service_account_name", "image_pull_secrets",
	"priority_class_name", "labels", "annotations", "namespace", "name"}

// groupWorkload is the group's pod as a gpu_workload: named
// <cluster>-<group> (its DRA claim template is <cluster>-<group>-gpu),
// selected by the cluster's name and the group's instance, in the
// cluster's queue.
func groupWorkload(c spec.RayCluster, g group) spec.Workload {
	w := spec.Workload{
		Name:               c.Name + "-" + g.groupName(),
		Namespace:          c.Namespace,
		Cloud:              c.Cloud,
		Image:              c.Image,
		Env:                g.Env,
		SecretEnv:          g.SecretEnv,
		PodLabels:          g.PodLabels,
		PodAnnotations:     g.PodAnnotations,
		ServiceAccountName: c.ServiceAccountName,
		ImagePullSecrets:   c.ImagePullSecrets,
		PriorityClassName:  c.PriorityClassName,
		Queue:              c.Queue,
		Kueue:              c.Kueue,
		Size:               g.Size,
		CPU:                g.CPU,
		Memory:             g.Memory,
		ShmSize:            g.ShmSize,
		Spot:               g.Spot,
		Topology:           g.Topology,
		ContainerName:      WorkerContainer,
		SelectorLabels: map[string]string{spec.LabelName: c.Name,
			spec.LabelInstance: c.Name + "-" + g.groupName()},
	}
	if g.head {
		w.ContainerName = HeadContainer
	}
	if g.Image != "" {
		w.Image = g.Image
	}
	if g.GPU != nil {
		w.GPU = *g.GPU
		return w
	}
	// No GPUs: the pipeline places a pod by its GPU, so the pod asks for
	// one on the group's pool (or on a generic cluster without a pool, whose
	// placement is then dropped) and Render takes it away again.
	w.GPU = spec.GPU{Count: 1}
	if g.NodePool == nil {
		w.Cloud = string(spec.CloudGeneric)
	}
	if w.CPU == "" && w.Size == "" {
		w.CPU = DefaultCPU
	}
	if w.Memory == "" && w.Size == "" {
		w.Memory = DefaultMemory
	}
	w.Topology = g.Topology
	return w
}

// podKind is what the group's pod rules count with: the pods of a worker
// group run together and exchange tensors and objects, so they get the
// pool's GPU network; Ray's object store needs /dev/shm in every pod.
func podKind(c spec.RayCluster, g group) workload.PodKind {
	k := workload.PodKind{Pods: 1, PodsAttr: "head", SharedMemory: true}
	if g.head || !g.gpus {
		return k
	}
	k.MultiNode = true
	k.Pods, k.PodsAttr = int64(desiredReplicas(g.RayGroup)), pathString(g.path("replicas"))
	if c.Autoscaling != nil && g.MaxReplicas != nil {
		k.Pods, k.PodsAttr = int64(*g.MaxReplicas), pathString(g.path("max_replicas"))
	}
	return k
}

// resolveGroup places the group on its pool and runs gpu_workload's pod
// rules on it, with their findings moved onto the group's block.
func resolveGroup(c spec.RayCluster, g group, strict bool) (group, gpudiag.Diagnostics) {
	w := groupWorkload(c, g)
	var diags gpudiag.Diagnostics
	if g.NodePool != nil {
		placed, findings := pool.Apply(w, *g.NodePool)
		w = placed
		diags.Append(findings)
	}
	if g.GPU == nil {
		// What the pool filled in only served its placement.
		w.GPU.Requests = nil
	}
	g.workload, g.gpus = w, g.GPU != nil
	g.resolved = workload.ResolvePod(w, g.NodePool, podKind(c, g), strict)
	diags.Append(g.resolved.Findings)
	if !g.gpus {
		diags = slices.DeleteFunc(diags, func(d gpudiag.Diagnostic) bool {
			return len(d.Path) > 0 && d.Path[0] == "gpu" // the stand-in GPU's, not the user's
		})
	}
	return g, onGroup(g, diags)
}

// onGroup moves findings on the pod's attributes onto the group's block;
// those on the cluster's own attributes stay where they are. An image
// finding is the group's when it sets its own image.
func onGroup(g group, diags gpudiag.Diagnostics) gpudiag.Diagnostics {
	out := make(gpudiag.Diagnostics, 0, len(diags))
	for _, d := range diags {
		if len(d.Path) > 0 {
			attr, _ := d.Path[0].(string)
			clusterWide := slices.Contains(clusterAttributes, attr) || (attr == "image" && g.Image == "")
			if !clusterWide {
				d.Path = append(g.path(), d.Path...)
			}
		}
		out = append(out, d)
	}
	return out
}

// desiredReplicas is the pods a worker group starts with: replicas, else
// min_replicas, else one.
func desiredReplicas(g spec.RayGroup) int32 {
	switch {
	case g.Replicas != nil:
		return *g.Replicas
	case g.MinReplicas != nil:
		return *g.MinReplicas
	}
	return 1
}

// dedupe drops repeated findings (a cluster attribute reported by every
// group), keeping the first.
func dedupe(diags gpudiag.Diagnostics) gpudiag.Diagnostics {
	seen := map[string]bool{}
	return slices.DeleteFunc(diags, func(d gpudiag.Diagnostic) bool {
		key := d.String()
		if seen[key] {
			return true
		}
		seen[key] = true
		return false
	})
}

func pathString(path []any) string { return gpudiag.Diagnostic{Path: path}.PathString() }

func cloneMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return maps.Clone(m)
}
