package flyte

import (
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// What Flyte's plugin config cannot express on a cloud, beyond what the
// cloud's profile places. These are facts about Flyte (its settings, its
// v2 chart), so they live here rather than in the clouds package, keyed by
// the cloud they concern; a cloud without an entry needs no note.

// cloudNotes are Flyte's warnings for one cloud.
type cloudNotes struct {
	// placement warns about placement Flyte cannot express, whatever the
	// Flyte version. sharing is the flyte block's sharing ("" when unset).
	placement func(sharing string, diags *gpudiag.Diagnostics)
	// v2 warns about what Flyte v2's chart cannot carry; nil when nothing.
	v2 func(diags *gpudiag.Diagnostics)
}

var notesByCloud = map[spec.Cloud]cloudNotes{
	spec.CloudGKE:          {placement: warnGKESharing, v2: warnGKEV2LibraryPath},
	spec.CloudGKEAutopilot: {placement: warnAutopilot},
}

// flyteCloudNotes warns about placement rules Flyte cannot express.
func flyteCloudNotes(cloud clouds.Cloud, sharing string, diags *gpudiag.Diagnostics) {
	if n := notesByCloud[cloud.Name]; n.placement != nil {
		n.placement(sharing, diags)
	}
}

// flyteV2Notes warns about what Flyte v2's chart cannot carry on the cloud.
func flyteV2Notes(cloud clouds.Cloud, diags *gpudiag.Diagnostics) {
	if n := notesByCloud[cloud.Name]; n.v2 != nil {
		n.v2(diags)
	}
}

// warnAutopilot: Autopilot sizes GPU nodes from the pod's own selection of
// the accelerator and count, which Flyte adds only in part. Autopilot's
// sharing is GKE's, hence the GKE note too.
func warnAutopilot(sharing string, diags *gpudiag.Diagnostics) {
	diags.AddWarning(gpudiag.At(Block), "GPU tasks need an accelerator on Autopilot",
		"Autopilot provisions GPU nodes only for pods that select "+clouds.GKELabelAccelerator+"; Flyte adds that selection only "+
			"for tasks that set an accelerator, and never adds "+clouds.GKELabelAcceleratorCount+". Allowed: give every GPU task an accelerator.")
	warnGKESharing(sharing, diags)
}

// warnGKESharing: GKE tells shared nodes apart only by a label Flyte has no
// setting for, so shared tasks cannot be kept on shared nodes.
func warnGKESharing(sharing string, diags *gpudiag.Diagnostics) {
	if sharing == "" {
		return
	}
	diags.AddWarning(gpudiag.At(Block, "sharing"), "Flyte cannot select shared GPU nodes on GKE",
		"GKE advertises shared GPUs as nvidia.com/gpu and marks the nodes with "+clouds.GKELabelSharingStrategy+
			", a label Flyte has no setting for: GPU tasks land on shared and exclusive nodes alike. Allowed: "+
			"keep shared and exclusive GPUs in separate clusters, or set default_node_selector.")
}

// warnGKEV2LibraryPath: v1 gets GKE's LD_LIBRARY_PATH through
// default-env-vars, which Flyte v2's chart owns. Only GKE Standard is
// warned.
func warnGKEV2LibraryPath(diags *gpudiag.Diagnostics) {
	diags.AddWarning(gpudiag.At(Block, "flyte_version"), "LD_LIBRARY_PATH not set on Flyte v2",
		"On GKE the driver libraries are at "+clouds.GKENvidiaLibraryPath+"; Flyte v2's chart sets default-env-vars itself, "+
			"so they are not added here. Allowed: use CUDA images that search "+clouds.GKENvidiaLibraryPath+" (NVIDIA's do), or add "+
			"LD_LIBRARY_PATH to the chart's base default-env-vars.")
}
