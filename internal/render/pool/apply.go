package pool

import (
	"slices"
	"strconv"
	"strings"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/dra"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// Apply places a workload on a node pool: it fills the workload's
// cloud, accelerator, partition, mig_strategy, sharing, max_shared_clients
// and spot from the pool where they are unset, and reports settings that
// contradict the pool (at the workload attribute, or at node_pool when the
// pool itself cannot serve gpu_workload). The returned workload is only
// meaningful without error diagnostics. Merge PoolPlacementExtras into the
// rendered pod so it also selects the pool's extra labels and tolerates its
// extra taints.
func Apply(w spec.Workload, p spec.PoolPolicy) (spec.Workload, gpudiag.Diagnostics) {
	placed, diags := applyTo(onPool{Cloud: w.Cloud, GPU: w.GPU, Spot: w.Spot}, p)
	w.Cloud, w.GPU, w.Spot = placed.Cloud, placed.GPU, placed.Spot
	return w, diags
}

// ApplyToContainer is Apply for one GPU container of a chart on cloud: the
// pool fills the container's GPU block and spot the way it fills a
// workload's.
func ApplyToContainer(cloud spec.Cloud, c workload.Container, p spec.PoolPolicy) (workload.Container, gpudiag.Diagnostics) {
	placed, diags := applyTo(onPool{Cloud: string(cloud), GPU: c.GPU, Spot: c.Spot}, p)
	c.GPU, c.Spot = placed.GPU, placed.Spot
	return c, diags
}

// onPool is what a node pool decides of whatever runs on it.
type onPool struct {
	Cloud string
	GPU   spec.GPU
	Spot  bool
}

func applyTo(w onPool, p spec.PoolPolicy) (onPool, gpudiag.Diagnostics) {
	var diags gpudiag.Diagnostics
	pi, poolDiags := strictPools.validateStrict(p)
	if poolDiags.HasError() {
		diags.AddError(gpudiag.At("node_pool"), "Invalid node pool",
			"The node pool policy "+strconv.Quote(p.Name)+" does not validate: "+DiagSummaries(poolDiags.Errors())+
				". Allowed: the ref of a gpu_node_pool_policy that plans without errors.")
		return w, diags
	}
	out := w
	out.GPU.Accelerators = slices.Clone(w.GPU.Accelerators)
	// ref names the pool in findings; built only for one.
	ref := func() string { return poolRef(pi) }
	applyPoolCloud(&out, pi, ref, &diags)
	applyPoolAccelerator(&out, pi, ref, &diags)
	applyPoolPartition(&out, pi, ref, &diags)
	applyPoolSharing(&out, pi, ref, &diags)
	checkPoolCount(out.GPU, pi, ref, &diags)
	applyPoolSpot(&out, pi, ref, &diags)
	switch {
	case pi.DRA:
		applyPoolDRA(&out, pi, ref, &diags)
	case w.GPU.DRA != nil:
		diags.AddError(gpudiag.At("gpu", "dra"), "DRA with a node pool",
			ref()+" serves GPUs through the NVIDIA device plugin (extended resources), not DRA claims. "+
				"Allowed: remove dra, or remove node_pool, or use a pool with gpu_allocation = \""+spec.GPUAllocationDRA+"\".")
	}
	return out, diags
}

// applyPoolDRA: a workload on a DRA pool asks for its GPUs through a claim
// on the pool's DeviceClass, with or without a gpu.dra block. The class
// selects the pool's model and profile, so the claim carries no selector
// of its own and Kueue can count it (dra.PoolClaim's shape).
func applyPoolDRA(w *onPool, pi clouds.PoolIntent, ref func() string, diags *gpudiag.Diagnostics) {
	class := dra.PoolDeviceClassName(pi.Name)
	if w.GPU.DRA == nil {
		w.GPU.DRA = &spec.DRA{DeviceClass: class}
		return
	}
	d := *w.GPU.DRA // the caller's block stays as configured
	takePoolValue(&d.DeviceClass, class, func() {
		diags.AddError(gpudiag.At("gpu", "dra", "device_class"), "Device class differs from the node pool",
			"device_class is "+strconv.Quote(d.DeviceClass)+" but "+ref()+" hands out GPUs through its own DeviceClass "+
				strconv.Quote(class)+". Allowed: leave device_class unset to take the pool's, or \""+class+"\".")
	})
	w.GPU.DRA = &d
}

// takePoolValue is one setting the pool decides: unset, it takes the
// pool's; set to another value, differs reports it.
func takePoolValue[T comparable](value *T, pools T, differs func()) {
	var unset T
	switch *value {
	case unset:
		*value = pools
	case pools:
	default:
		differs()
	}
}

func DiagSummaries(ds gpudiag.Diagnostics) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = d.PathString() + ": " + d.Summary
	}
	return strings.Join(parts, "; ")
}

func applyPoolCloud(w *onPool, pi clouds.PoolIntent, ref func() string, diags *gpudiag.Diagnostics) {
	cloud := string(pi.Cloud.Name())
	takePoolValue(&w.Cloud, cloud, func() {
		diags.AddError(gpudiag.At("cloud"), "Cloud differs from the node pool", "cloud is "+strconv.Quote(w.Cloud)+" but "+
			ref()+" is on "+strconv.Quote(cloud)+". Allowed: cloud = "+strconv.Quote(cloud)+", or leave cloud unset to take the pool's.")
	})
}

func applyPoolAccelerator(w *onPool, pi clouds.PoolIntent, ref func() string, diags *gpudiag.Diagnostics) {
	g := &w.GPU
	want := pi.Accel.Name
	switch {
	case g.Accelerator == "" && len(g.Accelerators) == 0:
		g.Accelerator = want
	case g.Accelerator != "":
		if g.Accelerator != want {
			diags.AddError(gpudiag.At("gpu", "accelerator"), "Accelerator differs from the node pool",
				"accelerator is "+strconv.Quote(g.Accelerator)+" but "+ref()+" has "+pi.Accel.DisplayName+
					" GPUs. Allowed: accelerator = "+strconv.Quote(want)+", or leave it unset to take the pool's.")
		}
	case slices.Contains(g.Accelerators, want):
		// The pool has one model: the preference list narrows to it.
		g.Accelerators, g.Accelerator = nil, want
	default:
		diags.AddError(gpudiag.At("gpu", "accelerators"), "No listed accelerator is in the node pool",
			ref()+" has "+pi.Accel.DisplayName+" GPUs, which accelerators does not list. Allowed: include "+
				strconv.Quote(want)+", or remove accelerators to take the pool's.")
	}
}

func applyPoolPartition(w *onPool, pi clouds.PoolIntent, ref func() string, diags *gpudiag.Diagnostics) {
	g := &w.GPU
	if !pi.HasMIG() {
		if g.Partition != "" {
			diags.AddError(gpudiag.At("gpu", "partition"), "The node pool has whole GPUs",
				"partition is "+strconv.Quote(g.Partition)+" but "+ref()+" does not partition its GPUs. "+
					"Allowed: remove partition, or use a pool with partition = "+strconv.Quote(g.Partition)+".")
		}
		return
	}
	names := SliceProfileNames(pi.Cut)
	switch {
	case g.Partition == "" && len(names) == 1:
		g.Partition = names[0]
	case g.Partition == "":
		diags.AddError(gpudiag.At("gpu", "partition"), "Choose a partition of the node pool",
			ref()+" cuts every GPU into several profiles ("+pi.Layout+"). Allowed: partition = one of "+gpudiag.QuoteList(names)+".")
	case !slices.Contains(names, g.Partition):
		diags.AddError(gpudiag.At("gpu", "partition"), "Partition not in the node pool",
			"partition is "+strconv.Quote(g.Partition)+" but "+ref()+" offers "+gpudiag.QuoteList(names)+
				". Allowed: one of those, or leave partition unset"+singleHint(names)+".")
	}
	if pi.DRA {
		return // no device plugin strategy to take (a workload's own is refused with DRA)
	}
	takePoolValue(&g.MIGStrategy, pi.MIGStrategy, func() {
		diags.AddError(gpudiag.At("gpu", "mig_strategy"), "MIG strategy differs from the node pool",
			"mig_strategy is "+strconv.Quote(g.MIGStrategy)+" but "+ref()+" uses "+strconv.Quote(pi.MIGStrategy)+
				", which decides the resource name. Allowed: "+strconv.Quote(pi.MIGStrategy)+", or leave it unset.")
	})
}

func singleHint(names []string) string {
	if len(names) == 1 {
		return " to take the pool's"
	}
	return ""
}

func applyPoolSharing(w *onPool, pi clouds.PoolIntent, ref func() string, diags *gpudiag.Diagnostics) {
	g := &w.GPU
	if pi.Sharing == "" {
		if g.Sharing != "" {
			diags.AddError(gpudiag.At("gpu", "sharing"), "The node pool does not share GPUs",
				"sharing is "+strconv.Quote(g.Sharing)+" but "+ref()+" gives each pod whole GPUs or MIG instances. "+
					"Allowed: remove sharing, or use a pool with sharing = "+strconv.Quote(g.Sharing)+".")
		}
		return
	}
	if pi.HasMIG() {
		diags.AddError(gpudiag.At("node_pool"), "Shared MIG pools cannot run gpu_workload",
			ref()+" time-shares MIG partitions; gpu_workload requests either a partition or a shared GPU, never both. "+
				"Allowed: a node pool without sharing or without partition.")
		return
	}
	takePoolValue(&g.Sharing, pi.Sharing, func() {
		diags.AddError(gpudiag.At("gpu", "sharing"), "Sharing differs from the node pool",
			"sharing is "+strconv.Quote(g.Sharing)+" but "+ref()+" uses "+strconv.Quote(pi.Sharing)+
				". Allowed: "+strconv.Quote(pi.Sharing)+", or leave sharing unset.")
	})
	switch {
	case g.MaxSharedClients == 0:
		g.MaxSharedClients = pi.SelectableClients()
	case g.MaxSharedClients != pi.Replicas:
		diags.AddError(gpudiag.At("gpu", "max_shared_clients"), "max_shared_clients differs from the node pool",
			"max_shared_clients is "+strconv.FormatInt(g.MaxSharedClients, 10)+" but "+ref()+" shares each GPU among "+
				strconv.FormatInt(pi.Replicas, 10)+". Allowed: "+strconv.FormatInt(pi.Replicas, 10)+", or leave it unset.")
	}
}

// checkPoolCount: a pod cannot span nodes, and a shared slot is one slot.
func checkPoolCount(g spec.GPU, pi clouds.PoolIntent, ref func() string, diags *gpudiag.Diagnostics) {
	if g.Count <= 0 {
		return // unknown; Validate reports invalid counts
	}
	path := gpudiag.At("gpu", "count")
	count := strconv.FormatInt(g.Count, 10)
	switch {
	case pi.Sharing != "" && !pi.HasMIG():
		if g.Count > 1 {
			diags.AddError(path, "Shared GPUs come one slot at a time",
				"gpu.count is "+count+" but "+ref()+" shares each GPU among "+strconv.FormatInt(pi.Replicas, 10)+
					" pods; more than one slot per pod is rejected (or is two slices of the same GPU). "+
					"Allowed: count = 1, or a pool without sharing for "+count+" whole GPUs.")
		}
	case pi.HasMIG():
		s, ok := findSlice(pi.Cut, g.Partition)
		if limit := clouds.MulSat(pi.GPUs, s.PerGPU); ok && g.Count > limit {
			diags.AddError(path, "More MIG instances than a node has",
				"gpu.count is "+count+" but a node of "+ref()+" has "+strconv.FormatInt(limit, 10)+" "+g.Partition+
					" instances ("+strconv.FormatInt(pi.GPUs, 10)+" GPUs x "+strconv.FormatInt(s.PerGPU, 10)+
					"). Allowed: 1 to "+strconv.FormatInt(limit, 10)+".")
		}
	case g.Count > pi.GPUs:
		diags.AddError(path, "More GPUs than a node of the pool has",
			"gpu.count is "+count+" but "+ref()+" has "+strconv.FormatInt(pi.GPUs, 10)+
				" GPUs per node, and a pod cannot span nodes. Allowed: 1 to "+strconv.FormatInt(pi.GPUs, 10)+
				", or a pool with more gpus_per_node.")
	}
}

func applyPoolSpot(w *onPool, pi clouds.PoolIntent, ref func() string, diags *gpudiag.Diagnostics) {
	switch {
	case pi.Spot:
		// Spot nodes are labelled (and on AKS tainted) as such; the workload
		// must select and tolerate that to land there.
		w.Spot = true
	case w.Spot:
		diags.AddError(gpudiag.At("spot"), "The node pool is not spot capacity",
			"spot = true but "+ref()+" runs on-demand nodes, so the spot selector would match none of them. "+
				"Allowed: remove spot, or use a pool with spot = true.")
	}
}
