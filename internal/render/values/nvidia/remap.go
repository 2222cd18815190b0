package nvidia

import (
	"slices"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

func GPUOperatorInputPath(in *GPUOperatorValues, keys []string) []any {
	if in == nil || len(keys) == 0 {
		return nil
	}
	switch {
	case len(keys) >= 4 && keys[0] == "devicePlugin" && keys[1] == "config" && keys[2] == "data":
		return poolPath(in.NodePools, keys[3])
	case keys[0] == "devicePlugin" && len(keys) > 2 && keys[2] == "name":
		return gpudiag.At("config_map_name")
	case keys[0] == "migManager":
		return gpudiag.At("mig_layout")
	case keys[0] == "mig":
		return gpudiag.At("mig_strategy")
	case keys[0] == "dcgmExporter" && len(keys) > 1 && keys[1] == "serviceMonitor":
		return gpudiag.At("service_monitor")
	case keys[0] == "dcgmExporter":
		return gpudiag.At("dcgm_exporter")
	case keys[0] == "driver":
		return gpudiag.At("driver_enabled")
	case keys[0] == "toolkit":
		return gpudiag.At("toolkit_enabled")
	case keys[0] == "daemonsets", keys[0] == "node-feature-discovery":
		return gpudiag.At("tolerations")
	}
	return nil
}

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
