package queue

import (
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kueuever"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// checkDRAPoolTopology: a DRA pool with a topology gets a Topology Aware
// Scheduling flavor, and Kueue places work on such a flavor by topology
// (all work of a queue whose flavors all have one: tas_flavorassigner.go,
// isTASImplied; elsewhere only work asking for a topology, the rest being
// refused "supports only TopologyAwareScheduling"). No release counts DRA
// devices when it picks the nodes (kueuever.DRAWithTopology), so pods
// would be pinned where no device may be free.
func checkDRAPoolTopology(f flavor, levels []spec.TopologyLevel, diags *gpudiag.Diagnostics) {
	rule := kueuever.DRAWithTopology
	if len(levels) == 0 || rule.In(kueuever.Oldest) {
		return
	}
	diags.AddError(f.path("node_pool"), "Kueue cannot place DRA devices by topology", f.ref()+" is a DRA pool with "+
		"a topology, so its flavor is one of Kueue's Topology Aware Scheduling: Kueue places the work it admits there "+
		"by topology, or admits there only work that asks for one. Kueue counts "+rule.Name+" "+rule.Since()+" ("+
		rule.Ref+"): it would place pods by their CPU and memory alone, on nodes whose devices may be taken, where they "+
		"stay pending. Allowed: a DRA pool without a topology block, or a pool with gpu_allocation = \""+
		spec.GPUAllocationDevicePlugin+"\" for work placed by topology.")
}
