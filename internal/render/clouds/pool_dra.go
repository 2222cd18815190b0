package clouds

import (
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// What every DRA pool shares (docs/design/dra.md §9.1); each cloud's own
// DRA rules (labels, node-pool shape, refusals) are in its file.

// DeployDevicePluginOff is the value of spec.LabelDeployDevicePlugin on a
// DRA pool's nodes. It is the GPU Operator's per-node switch (the operator
// sets its deploy labels only where absent, dra.md §9.7) and the one the
// device plugin chart's values skip, so whichever of the two installs the
// device plugin leaves the pool's GPUs to the DRA driver. Every cloud whose
// DRA pools the provider renders runs one of them there or may (GKE through
// its GPU Operator guide), so every DRA pool carries it, and workloads on
// the pool select it (DRAPoolSelector).
const DeployDevicePluginOff = "false"

// draLabels adds what the DRA pool's nodes need beyond a device-plugin
// pool's: the shared device-plugin switch, then the cloud's own
// (PoolRules.draPoolLabels).
func draLabels(pi PoolIntent, toAdd, cloudSet map[string]string) {
	if !pi.DRA {
		return
	}
	toAdd[spec.LabelDeployDevicePlugin] = DeployDevicePluginOff
	pi.Cloud.draPoolLabels(pi, toAdd, cloudSet)
}

func draSelector(pi PoolIntent) map[string]string {
	if !pi.DRA {
		return nil
	}
	return map[string]string{spec.LabelDeployDevicePlugin: DeployDevicePluginOff}
}

// devicePluginPoolExclusions keep a device-plugin pool's workloads off
// DRA nodes where no pool-name label holds them to the pool's own nodes. A
// generic pool is told apart by GPU Feature Discovery's labels, which a DRA
// pool's nodes of the same model carry too (gfdIdentity). On Kubernetes
// 1.34 and 1.35 those nodes advertise no nvidia.com/gpu, so this changes
// nothing there; from 1.36 a DRA pool's DeviceClass serves nvidia.com/gpu
// through its extendedResourceName (docs/design/dra-versions.md), and
// without this the scheduler would put the pool's pod on the other pool and
// hand it a DRA device. NotIn also matches nodes without the label (the
// standalone device plugin sets none). Clouds with a pool-name label need
// nothing: the other pool's name differs. A pod that names no pool may take
// a DRA node's GPU that way: it asked for the model, and gets it.
func devicePluginPoolExclusions(pi PoolIntent) []LabelRequirement {
	if pi.DRA || !pi.Cloud.Known() || pi.Cloud.PoolNameLabel() != "" {
		return nil
	}
	return []LabelRequirement{{Key: spec.LabelDeployDevicePlugin, Values: deployDevicePluginOffValues, notIn: true}}
}

// deployDevicePluginOffValues is read-only (see LabelRequirement).
var deployDevicePluginOffValues = []string{DeployDevicePluginOff}

// draNotOnCloud is the error of a cloud that cannot run a DRA pool at all,
// on gpu_allocation.
func draNotOnCloud(diags *gpudiag.Diagnostics, summary, reason string) {
	diags.AddError(gpudiag.At("gpu_allocation"), summary, reason+" Allowed: gpu_allocation = \""+
		spec.GPUAllocationDevicePlugin+"\" on this cloud, or a DRA pool on "+gpudiag.QuoteList(draPoolClouds())+".")
}

// draPoolClouds are the clouds whose node pools can hand out GPUs through
// DRA without a refusal.
func draPoolClouds() []string {
	return []string{string(spec.CloudGKE), string(spec.CloudEKS), string(spec.CloudAKS), string(spec.CloudGeneric)}
}
