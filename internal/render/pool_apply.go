package render

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	corev1 "k8s.io/api/core/v1"
)

// workloadGPU is the gpu block of a one-unit workload on the pool. ApplyPool
// fills workloads from it and RenderPool places with it, which is what keeps
// the two in agreement.
func (pi poolIntent) workloadGPU() GPU {
	g := GPU{Count: 1, Sharing: pi.sharing, MaxSharedClients: pi.selectableClients()}
	if pi.accel != nil {
		g.Accelerator = pi.accel.Name
	}
	if pi.hasMIG() {
		// all-balanced: any profile places the same under "mixed" (only the
		// resource name differs), so the first stands for the layout.
		g.Partition = pi.cut[0].profile.Name
		g.MIGStrategy = pi.migStrategy
	}
	return g
}

// selectableClients is the replicas count where a node label records it
// (GKE's gke-max-shared-clients-per-gpu; GFD's nvidia.com/gpu.replicas,
// which covers nvidia.com/gpu only), so workloads select exactly this
// pool's sharing; 0 elsewhere, where max_shared_clients selects nothing.
func (pi poolIntent) selectableClients() int64 {
	switch {
	case pi.sharing == "":
		return 0
	case rulesFor(pi.cloud).selectsSharedClients(pi):
		return pi.replicas
	}
	return 0
}

// ApplyPool places a workload on a node pool: it fills the workload's
// cloud, accelerator, partition, mig_strategy, sharing, max_shared_clients
// and spot from the pool where they are unset, and reports settings that
// contradict the pool (at the workload attribute, or at node_pool when the
// pool itself cannot serve gpu_workload). The returned workload is only
// meaningful without error diagnostics. Merge PoolPlacementExtras into the
// rendered pod so it also selects the pool's extra labels and tolerates its
// extra taints.
func ApplyPool(w Workload, p PoolPolicy) (Workload, gpudiag.Diagnostics) {
	var diags gpudiag.Diagnostics
	pi, poolDiags := validatePool(p, true)
	if poolDiags.HasError() {
		diags.AddError(gpudiag.At("node_pool"), "Invalid node pool",
			"The node pool policy "+strconv.Quote(p.Name)+" does not validate: "+diagSummaries(poolDiags.Errors())+
				". Allowed: the id of a gpu_node_pool_policy that plans without errors.")
		return w, diags
	}
	out := w
	out.GPU.Accelerators = slices.Clone(w.GPU.Accelerators)
	ref := poolRef(pi)
	applyPoolCloud(&out, pi, ref, &diags)
	applyPoolAccelerator(&out, pi, ref, &diags)
	applyPoolPartition(&out, pi, ref, &diags)
	applyPoolSharing(&out, pi, ref, &diags)
	checkPoolCount(out.GPU, pi, ref, &diags)
	applyPoolSpot(&out, pi, ref, &diags)
	if w.GPU.DRA != nil {
		diags.AddError(gpudiag.At("gpu", "dra"), "DRA with a node pool",
			ref+" serves GPUs through the NVIDIA device plugin (extended resources), not DRA claims. "+
				"Allowed: remove dra, or remove node_pool.")
	}
	return out, diags
}

func diagSummaries(ds gpudiag.Diagnostics) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = d.PathString() + ": " + d.Summary
	}
	return strings.Join(parts, "; ")
}

func applyPoolCloud(w *Workload, pi poolIntent, ref string, diags *gpudiag.Diagnostics) {
	switch w.Cloud {
	case "":
		w.Cloud = string(pi.cloud)
	case string(pi.cloud):
	default:
		diags.AddError(gpudiag.At("cloud"), "Cloud differs from the node pool",
			"cloud is "+strconv.Quote(w.Cloud)+" but "+ref+" is on "+strconv.Quote(string(pi.cloud))+
				". Allowed: cloud = "+strconv.Quote(string(pi.cloud))+", or leave cloud unset to take the pool's.")
	}
}

func applyPoolAccelerator(w *Workload, pi poolIntent, ref string, diags *gpudiag.Diagnostics) {
	g := &w.GPU
	want := pi.accel.Name
	switch {
	case g.Accelerator == "" && len(g.Accelerators) == 0:
		g.Accelerator = want
	case g.Accelerator != "":
		if g.Accelerator != want {
			diags.AddError(gpudiag.At("gpu", "accelerator"), "Accelerator differs from the node pool",
				"accelerator is "+strconv.Quote(g.Accelerator)+" but "+ref+" has "+pi.accel.DisplayName+
					" GPUs. Allowed: accelerator = "+strconv.Quote(want)+", or leave it unset to take the pool's.")
		}
	case slices.Contains(g.Accelerators, want):
		// The pool has one model: the preference list narrows to it.
		g.Accelerators, g.Accelerator = nil, want
	default:
		diags.AddError(gpudiag.At("gpu", "accelerators"), "No listed accelerator is in the node pool",
			ref+" has "+pi.accel.DisplayName+" GPUs, which accelerators does not list. Allowed: include "+
				strconv.Quote(want)+", or remove accelerators to take the pool's.")
	}
}

func applyPoolPartition(w *Workload, pi poolIntent, ref string, diags *gpudiag.Diagnostics) {
	g := &w.GPU
	if !pi.hasMIG() {
		if g.Partition != "" {
			diags.AddError(gpudiag.At("gpu", "partition"), "The node pool has whole GPUs",
				"partition is "+strconv.Quote(g.Partition)+" but "+ref+" does not partition its GPUs. "+
					"Allowed: remove partition, or use a pool with partition = "+strconv.Quote(g.Partition)+".")
		}
		return
	}
	names := sliceProfileNames(pi.cut)
	switch {
	case g.Partition == "" && len(names) == 1:
		g.Partition = names[0]
	case g.Partition == "":
		diags.AddError(gpudiag.At("gpu", "partition"), "Choose a partition of the node pool",
			ref+" cuts every GPU into several profiles ("+pi.layout+"). Allowed: partition = one of "+gpudiag.QuoteList(names)+".")
	case !slices.Contains(names, g.Partition):
		diags.AddError(gpudiag.At("gpu", "partition"), "Partition not in the node pool",
			"partition is "+strconv.Quote(g.Partition)+" but "+ref+" offers "+gpudiag.QuoteList(names)+
				". Allowed: one of those, or leave partition unset"+singleHint(names)+".")
	}
	switch g.MIGStrategy {
	case "":
		g.MIGStrategy = pi.migStrategy
	case pi.migStrategy:
	default:
		diags.AddError(gpudiag.At("gpu", "mig_strategy"), "MIG strategy differs from the node pool",
			"mig_strategy is "+strconv.Quote(g.MIGStrategy)+" but "+ref+" uses "+strconv.Quote(pi.migStrategy)+
				", which decides the resource name. Allowed: "+strconv.Quote(pi.migStrategy)+", or leave it unset.")
	}
}

func singleHint(names []string) string {
	if len(names) == 1 {
		return " to take the pool's"
	}
	return ""
}

func applyPoolSharing(w *Workload, pi poolIntent, ref string, diags *gpudiag.Diagnostics) {
	g := &w.GPU
	if pi.sharing == "" {
		if g.Sharing != "" {
			diags.AddError(gpudiag.At("gpu", "sharing"), "The node pool does not share GPUs",
				"sharing is "+strconv.Quote(g.Sharing)+" but "+ref+" gives each pod whole GPUs or MIG instances. "+
					"Allowed: remove sharing, or use a pool with sharing = "+strconv.Quote(g.Sharing)+".")
		}
		return
	}
	if pi.hasMIG() {
		diags.AddError(gpudiag.At("node_pool"), "Shared MIG pools cannot run gpu_workload",
			ref+" time-shares MIG partitions; gpu_workload requests either a partition or a shared GPU, never both. "+
				"Allowed: a node pool without sharing or without partition.")
		return
	}
	switch g.Sharing {
	case "":
		g.Sharing = pi.sharing
	case pi.sharing:
	default:
		diags.AddError(gpudiag.At("gpu", "sharing"), "Sharing differs from the node pool",
			"sharing is "+strconv.Quote(g.Sharing)+" but "+ref+" uses "+strconv.Quote(pi.sharing)+
				". Allowed: "+strconv.Quote(pi.sharing)+", or leave sharing unset.")
	}
	switch {
	case g.MaxSharedClients == 0:
		g.MaxSharedClients = pi.selectableClients()
	case g.MaxSharedClients != pi.replicas:
		diags.AddError(gpudiag.At("gpu", "max_shared_clients"), "max_shared_clients differs from the node pool",
			"max_shared_clients is "+strconv.FormatInt(g.MaxSharedClients, 10)+" but "+ref+" shares each GPU among "+
				strconv.FormatInt(pi.replicas, 10)+". Allowed: "+strconv.FormatInt(pi.replicas, 10)+", or leave it unset.")
	}
}

// checkPoolCount: a pod cannot span nodes, and a shared slot is one slot.
func checkPoolCount(g GPU, pi poolIntent, ref string, diags *gpudiag.Diagnostics) {
	if g.Count <= 0 {
		return // unknown; Validate reports invalid counts
	}
	path := gpudiag.At("gpu", "count")
	count := strconv.FormatInt(g.Count, 10)
	switch {
	case pi.sharing != "" && !pi.hasMIG():
		if g.Count > 1 {
			diags.AddError(path, "Shared GPUs come one slot at a time",
				"gpu.count is "+count+" but "+ref+" shares each GPU among "+strconv.FormatInt(pi.replicas, 10)+
					" pods; more than one slot per pod is rejected (or is two slices of the same GPU). "+
					"Allowed: count = 1, or a pool without sharing for "+count+" whole GPUs.")
		}
	case pi.hasMIG():
		s, ok := findSlice(pi.cut, g.Partition)
		if limit := mulSat(pi.gpus, s.perGPU); ok && g.Count > limit {
			diags.AddError(path, "More MIG instances than a node has",
				"gpu.count is "+count+" but a node of "+ref+" has "+strconv.FormatInt(limit, 10)+" "+g.Partition+
					" instances ("+strconv.FormatInt(pi.gpus, 10)+" GPUs x "+strconv.FormatInt(s.perGPU, 10)+
					"). Allowed: 1 to "+strconv.FormatInt(limit, 10)+".")
		}
	case g.Count > pi.gpus:
		diags.AddError(path, "More GPUs than a node of the pool has",
			"gpu.count is "+count+" but "+ref+" has "+strconv.FormatInt(pi.gpus, 10)+
				" GPUs per node, and a pod cannot span nodes. Allowed: 1 to "+strconv.FormatInt(pi.gpus, 10)+
				", or a pool with more gpus_per_node.")
	}
}

func applyPoolSpot(w *Workload, pi poolIntent, ref string, diags *gpudiag.Diagnostics) {
	switch {
	case pi.spot:
		// Spot nodes are labelled (and on AKS tainted) as such; the workload
		// must select and tolerate that to land there.
		w.Spot = true
	case w.Spot:
		diags.AddError(gpudiag.At("spot"), "The node pool is not spot capacity",
			"spot = true but "+ref+" runs on-demand nodes, so the spot selector would match none of them. "+
				"Allowed: remove spot, or use a pool with spot = true.")
	}
}

// PoolPlacementExtras returns the node selector entries and tolerations a
// workload needs on top of its cloud's defaults to land on the pool: a
// selector for each extra label and a toleration for each extra taint. The
// dedicated GPU taint and spot are already covered by the cloud placement
// (after ApplyPool). It does not validate p.
func PoolPlacementExtras(p PoolPolicy) (map[string]string, []corev1.Toleration) {
	return poolExtras(p.Labels, p.Taints)
}

func poolExtras(labels map[string]string, taints []Taint) (map[string]string, []corev1.Toleration) {
	var selector map[string]string
	if len(labels) > 0 {
		selector = maps.Clone(labels)
	}
	var tolerations []corev1.Toleration
	for _, t := range taints {
		if t.Key == "" {
			continue // an empty-key Exists toleration would tolerate every taint
		}
		tol := corev1.Toleration{Key: t.Key, Operator: corev1.TolerationOpEqual, Value: t.Value, Effect: corev1.TaintEffect(t.Effect)}
		if t.Value == "" {
			tol.Operator, tol.Value = corev1.TolerationOpExists, ""
		}
		tolerations = append(tolerations, tol)
	}
	return selector, normalizeTolerations(tolerations)
}
