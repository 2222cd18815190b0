package workload

import (
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds/kindkit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// Kueue's Topology Aware Scheduling pod-template annotations
// (sigs.k8s.io/kueue apis/kueue/v1beta2/topology_types.go; docs/design/topology.md §4.4).
const (
	AnnotationKueueRequiredTopology      = "kueue.x-k8s.io/podset-required-topology"
	AnnotationKueuePreferredTopology     = "kueue.x-k8s.io/podset-preferred-topology"
	AnnotationKueueSliceRequiredTopology = "kueue.x-k8s.io/podset-slice-required-topology"
	AnnotationKueueSliceSize             = "kueue.x-k8s.io/podset-slice-size"
)

// TopologyRequest is a workload's topology block resolved on its pool: the
// node labels of the levels it names.
type TopologyRequest struct {
	LevelLabel string
	Preferred  bool
	SliceLabel string
	SliceSize  int64
	// Kueue: the workload is in a Kueue queue, so Kueue places the pods
	// (annotations); otherwise the default scheduler does (pod affinity).
	Kueue bool
	// ComputeDomain: nvlink_domain passed its checks; the workload renders
	// a ComputeDomain and its pods claim its channel (computedomain.go).
	ComputeDomain bool
}

// checkTopologyValues: the values a schema validator checks too, for
// callers that build a workload without the schema (import, tests).
func checkTopologyValues(w spec.Workload, diags *gpudiag.Diagnostics) {
	t := w.Topology
	if t == nil {
		return
	}
	if t.Mode != "" && !slices.Contains(spec.TopologyModeNames(), t.Mode) {
		diags.AddError(topologyPath("mode"), "Invalid topology mode", strconv.Quote(t.Mode)+" is not a mode. Allowed: "+
			gpudiag.QuoteList(spec.TopologyModeNames())+".")
	}
	if t.SliceSize < 0 {
		diags.AddError(topologyPath("slice_size"), "Invalid slice size", "slice_size must be at least 1.")
	}
}

// topologyPath is where a topology finding goes.
func topologyPath(attr ...any) []any { return append([]any{"topology"}, attr...) }

// resolveTopology checks the workload's topology block against its pool
// (or, without a pool, its cloud) and resolves the levels to node labels.
// nil when there is no block or a level is unknown or invalid.
// Without strict an empty queue may be one not known yet, so what depends
// on there being none waits for final values.
func resolveTopology(w spec.Workload, kind kindkit.Kind, cloud clouds.Topology, pool *spec.PoolPolicy, strict bool, diags *gpudiag.Diagnostics) *TopologyRequest {
	t := w.Topology
	if t == nil {
		return nil
	}
	inKueue := w.Queue != "" && (w.QueueScheduler == "" || w.QueueScheduler == spec.QueueSchedulerKueue)
	checkTopologyScheduler(w, t, inKueue, strict, diags)
	levels, fromPool, ok := topologyLevelsOf(cloud, pool, inKueue, diags)
	if !ok {
		return nil
	}
	req := &TopologyRequest{Preferred: t.Mode == spec.TopologyPreferred, SliceSize: t.SliceSize, Kueue: inKueue}
	level, found := findTopologyLevel(levels, t.Level, "level", fromPool, diags)
	req.LevelLabel = level.NodeLabel
	var slice spec.TopologyLevel
	if t.SliceLevel != "" {
		var sliceFound bool
		slice, sliceFound = findTopologyLevel(levels, t.SliceLevel, "slice_level", fromPool, diags)
		found = found && sliceFound
		req.SliceLabel = slice.NodeLabel
		checkSliceNesting(levels, t, diags)
	}
	if !found {
		return nil
	}
	checkTopologyFit(w, kind, pool, level, slice, diags)
	warnTopologyKind(w, kind, inKueue, strict, diags)
	return req
}

// checkTopologyScheduler: Kueue's annotations or the default scheduler's
// pod affinity are what the provider renders; slices exist only in Kueue.
func checkTopologyScheduler(w spec.Workload, t *spec.WorkloadTopology, inKueue, strict bool, diags *gpudiag.Diagnostics) {
	if w.Queue != "" && !inKueue {
		diags.AddError(topologyPath(), "Topology with "+w.QueueScheduler, "topology is rendered as Kueue's topology "+
			"annotations, or as pod affinity for the default scheduler; "+strconv.Quote(w.QueueScheduler)+" places pods "+
			"itself and reads neither. Allowed: a Kueue queue (queue_scheduler = \"kueue\"), or no queue.")
	}
	if strict && w.Queue == "" && t.SliceSize > 0 {
		// Final: an empty queue may be one known only at plan.
		diags.AddFinalError(topologyPath("slice_size"), "Slices need Kueue", "Only Kueue's Topology Aware Scheduling places "+
			"pods in slices of slice_size; the default scheduler's pod affinity keeps all pods in one domain or "+
			"none. Allowed: a queue (a gpu_queue ref), or no slice_size and slice_level.")
	}
}

// topologyLevelsOf are the levels a request may name: the pool's topology
// when it has one; in a Kueue queue nothing else (the flavor needs the
// pool's Topology); otherwise every level the cloud knows.
func topologyLevelsOf(cloud clouds.Topology, pool *spec.PoolPolicy, inKueue bool, diags *gpudiag.Diagnostics) ([]spec.TopologyLevel, bool, bool) {
	if pool != nil && pool.Topology != nil {
		levels, findings := clouds.PoolTopology(cloud, pool.Topology, true)
		return levels, true, !findings.HasError() && len(levels) > 0
	}
	if inKueue && pool != nil {
		diags.AddError(topologyPath("level"), "The queue's flavor has no topology", "Kueue places a workload by topology only "+
			"through a ResourceFlavor with a Topology, and node pool "+strconv.Quote(pool.Name)+" declares none, so "+
			"its flavor has none. Allowed: add a topology block to the gpu_node_pool_policy (its cloud's levels: "+
			gpudiag.QuoteList(cloud.TopologyLevelNames())+"), or remove topology.")
		return nil, false, false
	}
	if !cloud.Known() {
		return nil, false, false
	}
	var levels []spec.TopologyLevel
	for _, l := range cloud.TopologyLevels() {
		levels = append(levels, spec.TopologyLevel{Name: l.Name, NodeLabel: l.NodeLabel})
	}
	return levels, false, true
}

// findTopologyLevel finds name among the levels. Without a pool topology a
// node label key is accepted as is (a queue managed elsewhere may use it).
func findTopologyLevel(levels []spec.TopologyLevel, name, attr string, fromPool bool, diags *gpudiag.Diagnostics) (spec.TopologyLevel, bool) {
	if name == "" {
		return spec.TopologyLevel{}, false // unknown at plan time; required by the schema
	}
	if i, ok := clouds.FindLevel(levels, name); ok {
		return levels[i], true
	}
	if !fromPool {
		if l, ok := clouds.LabelKeyLevel(name); ok {
			return l, true
		}
	}
	where := "the cloud's topology levels"
	if fromPool {
		where = "the node pool's topology levels"
	}
	diags.AddError(topologyPath(attr), "Unknown topology level", strconv.Quote(name)+" is not one of "+where+
		". Allowed: "+gpudiag.QuoteList(clouds.LevelNames(levels))+".")
	return spec.TopologyLevel{}, false
}

// checkSliceNesting: a slice is a part of the whole set, so its level is the
// request's level or one inside it.
func checkSliceNesting(levels []spec.TopologyLevel, t *spec.WorkloadTopology, diags *gpudiag.Diagnostics) {
	outer, ok1 := clouds.FindLevel(levels, t.Level)
	inner, ok2 := clouds.FindLevel(levels, t.SliceLevel)
	if ok1 && ok2 && inner < outer {
		diags.AddError(topologyPath("slice_level"), "Slice level outside the level", "slice_level "+strconv.Quote(t.SliceLevel)+
			" is above level "+strconv.Quote(t.Level)+": every pod is already in one "+t.Level+". Allowed: "+
			gpudiag.QuoteList(clouds.LevelNames(levels[outer:]))+".")
	}
}

// topologyPods is how many pods the request places together, and the
// attribute that says so; 0 when unknown or left to an autoscaler.
func topologyPods(kind kindkit.Kind, w spec.Workload) (int64, string) {
	if kind.Pods != nil {
		return kind.Pods(w)
	}
	return 0, ""
}

// checkTopologyFit: with the pool's shape known, the pods (or each slice)
// must fit one domain, counting how many of the pods a node holds.
func checkTopologyFit(w spec.Workload, kind kindkit.Kind, pool *spec.PoolPolicy, level, slice spec.TopologyLevel, diags *gpudiag.Diagnostics) {
	t := w.Topology
	pods, attr := topologyPods(kind, w)
	if t.SliceSize > 0 && pods > 0 {
		checkSliceCount(pods, attr, t.SliceSize, diags)
	}
	perNode := podsPerNode(w, pool)
	if perNode == 0 || pods == 0 {
		return
	}
	if t.SliceSize > 0 && slice.Nodes > 0 && t.SliceSize > slice.Nodes*perNode {
		diags.AddError(topologyPath("slice_size"), "A slice larger than its domain", strconv.FormatInt(t.SliceSize, 10)+
			" pods of "+strconv.FormatInt(w.GPU.Count, 10)+" GPUs need "+nodesFor(t.SliceSize, perNode)+", and one "+slice.Name+
			" of node pool "+strconv.Quote(pool.Name)+" has "+strconv.FormatInt(slice.Nodes, 10)+" nodes of "+
			strconv.FormatInt(pool.GPUsPerNode, 10)+" GPUs. Allowed: slice_size at most "+strconv.FormatInt(slice.Nodes*perNode, 10)+
			", or a larger slice_level.")
	}
	if level.Nodes == 0 || pods <= level.Nodes*perNode {
		return
	}
	detail := strconv.FormatInt(pods, 10) + " pods (" + attr + ") of " + strconv.FormatInt(w.GPU.Count, 10) + " GPUs need " +
		nodesFor(pods, perNode) + ", and one " + level.Name + " of node pool " + strconv.Quote(pool.Name) + " has " +
		strconv.FormatInt(level.Nodes, 10) + " nodes of " + strconv.FormatInt(pool.GPUsPerNode, 10) + " GPUs (room for " +
		strconv.FormatInt(level.Nodes*perNode, 10) + " pods)."
	if t.Mode == spec.TopologyPreferred {
		diags.AddWarning(topologyPath("level"), "The pods cannot share one "+level.Name, detail+
			" With mode = \"preferred\" they are spread over several domains.")
		return
	}
	diags.AddError(topologyPath("level"), "The pods cannot fit one "+level.Name, detail+" Allowed: at most "+
		strconv.FormatInt(level.Nodes*perNode, 10)+" pods, a larger level, mode = \"preferred\", or slice_size with slice_level.")
}

// checkSliceCount: Kueue cuts the pod set into whole slices.
func checkSliceCount(pods int64, attr string, size int64, diags *gpudiag.Diagnostics) {
	if size > pods || pods%size != 0 {
		diags.AddError(topologyPath("slice_size"), "Slices do not divide the pods", "slice_size "+strconv.FormatInt(size, 10)+
			" does not divide the "+strconv.FormatInt(pods, 10)+" pods ("+attr+") into whole slices. Allowed: a divisor of "+
			strconv.FormatInt(pods, 10)+".")
	}
}

// podsPerNode is how many of the workload's pods one node of the pool
// holds; 0 when unknown or not counted in whole GPUs (MIG, sharing).
func podsPerNode(w spec.Workload, pool *spec.PoolPolicy) int64 {
	if pool == nil || pool.GPUsPerNode == 0 || w.GPU.Count == 0 || w.GPU.Partition != "" || w.GPU.Sharing != "" {
		return 0
	}
	return pool.GPUsPerNode / w.GPU.Count
}

func nodesFor(pods, perNode int64) string {
	n := (pods + perNode - 1) / perNode
	if n == 1 {
		return "1 node"
	}
	return strconv.FormatInt(n, 10) + " nodes"
}

// warnTopologyKind: Kueue admits each pod of some kinds (a Deployment) as
// its own workload, so no request spans their replicas; a single pod has
// nothing to keep together.
func warnTopologyKind(w spec.Workload, k kindkit.Kind, inKueue, strict bool, diags *gpudiag.Diagnostics) {
	if inKueue && k.Kueue.PodByPod {
		kind := k.GVK.Kind
		diags.AddWarning(topologyPath(), "Kueue places a "+kind+"'s pods one by one", "Kueue admits every pod of a "+
			kind+" as a workload of its own, so the topology request holds for each pod, not for the replicas "+
			"together. A StatefulSet's pods are admitted as one group: use kind = \"statefulset\" to keep them in one domain.")
	}
	if pods, attr := topologyPods(k, w); strict && pods == 1 && attr != "" {
		diags.AddWarning(topologyPath(), "Topology for one pod", "The workload runs one pod ("+attr+"), which is always "+
			"in one domain. The request matters from two pods up.")
	}
}

// markTopology renders the request: Kueue's pod-template annotations in a
// Kueue queue, else pod affinity to the workload's own pods on the level's
// label (the default scheduler has no gang: the first pod picks the
// domain, and the rest follow or stay Pending).
func markTopology(r *Rendered, req *TopologyRequest) {
	if req == nil {
		return
	}
	markPodTopology(r.PodTemplate(), r.SelectorLabels, req)
}

// markPodTopology renders the request into one pod template; selector
// labels select the pods that keep together.
func markPodTopology(pod *corev1.PodTemplateSpec, selector map[string]string, req *TopologyRequest) {
	if req.Kueue {
		key := AnnotationKueueRequiredTopology
		if req.Preferred {
			key = AnnotationKueuePreferredTopology
		}
		pod.Annotations = withEntry(pod.Annotations, key, req.LevelLabel)
		if req.SliceSize > 0 && req.SliceLabel != "" {
			pod.Annotations = withEntry(pod.Annotations, AnnotationKueueSliceRequiredTopology, req.SliceLabel)
			pod.Annotations = withEntry(pod.Annotations, AnnotationKueueSliceSize, strconv.FormatInt(req.SliceSize, 10))
		}
		return
	}
	term := corev1.PodAffinityTerm{
		LabelSelector: &metav1.LabelSelector{MatchLabels: selector},
		TopologyKey:   req.LevelLabel,
	}
	affinity := pod.Spec.Affinity.DeepCopy()
	if affinity == nil {
		affinity = &corev1.Affinity{}
	}
	if affinity.PodAffinity == nil {
		affinity.PodAffinity = &corev1.PodAffinity{}
	}
	pa := affinity.PodAffinity
	if req.Preferred {
		pa.PreferredDuringSchedulingIgnoredDuringExecution = append(slices.Clone(pa.PreferredDuringSchedulingIgnoredDuringExecution),
			corev1.WeightedPodAffinityTerm{Weight: 100, PodAffinityTerm: term})
	} else {
		pa.RequiredDuringSchedulingIgnoredDuringExecution = append(slices.Clone(pa.RequiredDuringSchedulingIgnoredDuringExecution), term)
	}
	pod.Spec.Affinity = affinity
}
