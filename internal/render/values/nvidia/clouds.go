package nvidia

import (
	"strings"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// Why the user cannot, or should not, install NVIDIA's GPU stack on a
// cloud whose own stack runs the GPUs. This is knowledge about NVIDIA's
// charts against the cloud's stack, so it lives here, keyed by the cloud it
// concerns; the generic facts the values follow (driver preinstalled, a
// device plugin the cloud manages) stay the cloud profile's.

// stackChecks report, per cloud, what installing what (e.g. "the GPU
// Operator") there means. block is the values block the finding belongs to.
var stackChecks = map[spec.Cloud]func(what string, block []any, diags *gpudiag.Diagnostics){
	spec.CloudGKE:          warnGKEDevicePlugin,
	spec.CloudGKEAutopilot: refuseAutopilot,
	spec.CloudEKSAuto:      warnEKSAutoStack,
}

// checkNvidiaCloud rejects clouds whose GPU stack the user cannot manage.
func checkNvidiaCloud(cloud clouds.Named, block []any, what string, diags *gpudiag.Diagnostics) {
	if check := stackChecks[cloud.Name()]; check != nil {
		check(what, block, diags)
	}
}

// refuseAutopilot: Autopilot admits no privileged DaemonSets.
func refuseAutopilot(what string, _ []any, diags *gpudiag.Diagnostics) {
	diags.AddError(gpudiag.At("cloud"), strings.ToUpper(what[:1])+what[1:]+" cannot run on GKE Autopilot",
		"Autopilot manages the GPU driver and device plugin itself and does not admit the privileged DaemonSets "+
			what+" needs. Allowed: a GKE Standard cluster, or leave the GPU stack to Autopilot.")
}

// warnGKEDevicePlugin: GKE Standard runs its own device plugin unless a
// pool opts out, and two plugins advertise every GPU twice.
func warnGKEDevicePlugin(what string, block []any, diags *gpudiag.Diagnostics) {
	diags.AddWarning(block, "GKE runs its own device plugin",
		"GKE deploys its own NVIDIA device plugin on GPU node pools, and shares and partitions GPUs through node-pool "+
			"settings that gpu_workload already selects on. Running "+what+" too needs those pools to opt out of "+
			"GKE's plugin (see GKE's GPU Operator guide); otherwise both advertise the GPUs.")
}

// warnEKSAutoStack: EKS Auto Mode's driver and plugin cannot be replaced;
// the values disable them (the profile's DriverPreinstalled and
// ManagesDevicePlugin).
func warnEKSAutoStack(what string, block []any, diags *gpudiag.Diagnostics) {
	diags.AddWarning(block, "EKS Auto Mode manages the GPU stack",
		"EKS Auto Mode installs the NVIDIA driver and an AWS-managed device plugin on GPU nodes; "+what+
			" must not install them again (driver, toolkit and device plugin are disabled here).")
}
