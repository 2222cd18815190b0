package nvidia

import (
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/chartkit"
)

// What the pools' GPU networks need of the GPU Operator (issue #42,
// docs/design/gpu-networks.md#operator-values):
//
//   - EFA (EKS): NVIDIA's device plugin from v0.19.0 defaults
//     --mofed-enabled (env MOFED_ENABLED) to true and mounts every
//     /dev/infiniband/uverbs* into GPU containers, clashing with the EFA
//     device plugin's devices; the EKS user guide says to turn it off.
//   - InfiniBand and RDMA (AKS, generic): GPUDirect RDMA needs the
//     nvidia-peermem module, which the operator's driver loads with
//     driver.rdma.enabled; only where the operator installs the driver (on
//     AKS's preinstalled driver, Azure's nvidia-peermem-reloader does it).

// addDevicePluginNetworkSwitches is addNetworkSwitches for the standalone
// device plugin chart, whose top-level mofedEnabled sets the same flag.
func addDevicePluginNetworkSwitches(values map[string]any, networks map[string]bool) {
	if networks[clouds.NetworkEFA] {
		values["mofedEnabled"] = false
	}
}

// addNetworkSwitches sets those for the networks of the GPU Operator's pools.
func addNetworkSwitches(values map[string]any, networks map[string]bool) {
	if networks[clouds.NetworkEFA] {
		chartkit.SetPath(values, []any{map[string]any{"name": "MOFED_ENABLED", "value": "false"}}, "devicePlugin", "env")
	}
	if !networks[clouds.NetworkInfiniBand] && !networks[clouds.NetworkRDMA] {
		return
	}
	if driver, _ := values["driver"].(map[string]any); driver != nil && driver["enabled"] == true {
		chartkit.SetPath(values, true, "driver", "rdma", "enabled")
	}
}
