package gpuworkload

import (
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/topologyblock"
)

// topologyBlock: the workload's pods kept close together in the pool's
// network (package topologyblock).
func topologyBlock() schema.SingleNestedBlock {
	return topologyblock.Block("the pods of a multi-pod workload (a Job with `job.parallelism`, a StatefulSet, a "+
		"Deployment with `replicas`)", "Kueue admits a Deployment's pods one by one, so there the request holds per "+
		"pod (use a StatefulSet).")
}

// checkTopologySlices: only Kueue places slices, so slice_size with no queue
// at all (null, not a value known later) fails while validating; render
// checks the same once every value is final.
func checkTopologySlices(m workloadModel, diags *diag.Diagnostics) {
	if !m.Queue.IsNull() || m.Topology.IsNull() || m.Topology.IsUnknown() {
		return
	}
	if !tfconv.AttributeSet(m.Topology, "slice_size") {
		return
	}
	diags.AddAttributeError(path.Root("topology").AtName("slice_size"), "Slices need Kueue", "Only Kueue's Topology Aware "+
		"Scheduling places pods in slices of slice_size; the default scheduler's pod affinity keeps all pods in one "+
		"domain or none. Allowed: a queue (a gpu_queue ref), or no slice_size and slice_level.")
}
