package nvidia

import (
	"slices"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// GPUOperatorInputPath maps a key path inside the generated GPU Operator
// values to the gpu_operator attribute that set it; nil when none did.
func GPUOperatorInputPath(in *GPUOperatorValues, keys []string) []any {
	if in == nil || len(keys) == 0 {
		return nil
	}
	switch {
	case len(keys) >= 4 && keys[0] == "devicePlugin" && keys[1] == "config" && keys[2] == "data":
		return poolPath(in.NodePools, keys[3])
	case keys[0] == "devicePlugin" && len(keys) > 2 && keys[2] == "name":
		return gpudiag.At("config_map_name")
	}
	for _, section := range gpuOperatorSections {
		if len(keys) >= len(section.keys) && slices.Equal(keys[:len(section.keys)], section.keys) {
			return gpudiag.At(section.attribute)
		}
	}
	return nil
}

// gpuOperatorSections are the GPU Operator values sections each set by one
// gpu_operator attribute, by the keys they start with; the first match
// wins, so a sub-section comes before its section.
var gpuOperatorSections = []struct {
	keys      []string
	attribute string
}{
	{[]string{"migManager"}, "mig_layout"},
	{[]string{"mig"}, "mig_strategy"},
	{[]string{"dcgmExporter", "serviceMonitor"}, "service_monitor"},
	{[]string{"dcgmExporter"}, "dcgm_exporter"},
	{[]string{"driver"}, "driver_enabled"},
	{[]string{"toolkit"}, "toolkit_enabled"},
	{[]string{"daemonsets"}, "tolerations"},
	{[]string{"node-feature-discovery"}, "tolerations"},
}

// DevicePluginInputPath maps a key path inside the generated device plugin
// values to the nvidia_device_plugin attribute that set it; nil when none did.
func DevicePluginInputPath(in *DevicePluginValues, keys []string) []any {
	if in == nil || len(keys) == 0 {
		return nil
	}
	switch {
	case len(keys) >= 3 && keys[0] == "config" && keys[1] == "map":
		return poolPath(in.NodePools, keys[2])
	case keys[0] == "tolerations":
		return gpudiag.At("tolerations")
	}
	return nil
}

// poolPath finds the node pool a device plugin config entry belongs to;
// the default entry comes from mig_strategy.
func poolPath(pools []spec.PoolPolicy, name string) []any {
	if name == DefaultDevicePluginConfigName {
		return gpudiag.At("mig_strategy")
	}
	if i := slices.IndexFunc(pools, func(p spec.PoolPolicy) bool { return p.Name == name }); i >= 0 {
		return gpudiag.At("node_pools", i)
	}
	return gpudiag.At("node_pools")
}
