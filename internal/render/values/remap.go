package values

import (
	"slices"

	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
)

// RemapDiagnostics rewrites diagnostics whose Path starts with
// PathRoot (from ValidateAgainstChart and RenderChartPreview)
// to the input attribute that produced that value (InputPathForValues), so
// Terraform shows them on the configuration line to fix. Other diagnostics
// are returned unchanged; the location inside the values stays in Detail.
func RemapDiagnostics(target string, in Input, diags gpudiag.Diagnostics) gpudiag.Diagnostics {
	out := make(gpudiag.Diagnostics, len(diags))
	for i, d := range diags {
		if len(d.Path) > 0 && d.Path[0] == PathRoot {
			d.Path = InputPathForValues(target, in, d.Path[1:])
		}
		out[i] = d
	}
	return out
}

// InputPathForValues maps a location inside target's generated values
// (keys as strings, list indexes as ints) to the input attribute path it
// comes from, e.g. delegatedOperatorDeployments.deployments.gpuL4.
// resources.limits.cpu → fiftyone.deployment[2].cpu. Locations that no one
// attribute produces map to the target's block.
func InputPathForValues(target string, in Input, valuesPath []any) []any {
	block := valuesBlockFor(target)
	if block == "" {
		return nil
	}
	keys := make([]string, 0, len(valuesPath))
	for _, s := range valuesPath {
		if k, ok := s.(string); ok {
			keys = append(keys, k)
		} else {
			break // list indexes: the list is one attribute
		}
	}
	var path []any
	switch target {
	case TargetFiftyOne:
		path = fiftyOneInputPath(in.FiftyOne, keys)
	case TargetFlyteCore, TargetFlyteBinary:
		path = flyteInputPath(target, keys)
	case TargetGPUOperator:
		path = gpuOperatorInputPath(in.GPUOperator, keys)
	case TargetNvidiaDevicePlugin:
		path = devicePluginInputPath(in.NvidiaDevicePlugin, keys)
	}
	return append(gpudiag.At(block), path...)
}

func fiftyOneInputPath(in *FiftyOneValues, keys []string) []any {
	if in == nil || len(keys) < 3 {
		return nil
	}
	var list string
	index := -1
	switch {
	case keys[0] == "delegatedOperatorDeployments" && keys[1] == "deployments":
		list = "deployment"
		index = slices.IndexFunc(in.Deployments, func(d FiftyOneDeployment) bool { return d.Key == keys[2] })
	case keys[0] == "delegatedOperatorJobTemplates" && keys[1] == "jobs":
		list = "job_template"
		index = slices.IndexFunc(in.JobTemplates, func(j FiftyOneJobTemplate) bool { return j.Key == keys[2] })
	}
	if index < 0 {
		return nil
	}
	return append(gpudiag.At(list, index), fiftyOneField(keys[3:])...)
}

// fiftyOneField maps a key inside one deployment/job entry to its attribute.
func fiftyOneField(keys []string) []any {
	if len(keys) == 0 {
		return nil
	}
	direct := map[string]string{
		"enabled": "enabled", "replicaCount": "replicas", "description": "description",
		"backoffLimit": "backoff_limit", "activeDeadlineSeconds": "active_deadline_seconds",
		"ttlSecondsAfterFinished": "ttl_seconds_after_finished", "parallelism": "parallelism",
		// Placement is derived from the gpu block (and node_pool).
		"nodeSelector": "gpu", "tolerations": "gpu", "affinity": "gpu",
	}
	if attr, ok := direct[keys[0]]; ok {
		return gpudiag.At(attr)
	}
	switch keys[0] {
	case "env":
		if len(keys) > 1 {
			return gpudiag.At("env", gpudiag.MapKey(keys[1]))
		}
		return gpudiag.At("env")
	case "image":
		if len(keys) > 1 && (keys[1] == "repository" || keys[1] == "tag") {
			return gpudiag.At("image", keys[1])
		}
		return gpudiag.At("image")
	case "resources":
		if len(keys) > 2 {
			switch keys[2] {
			case "cpu":
				return gpudiag.At("cpu")
			case "memory":
				return gpudiag.At("memory")
			}
			if isExtendedResource(keys[2]) {
				return gpudiag.At("gpu", "count")
			}
		}
	}
	return nil
}

func flyteInputPath(target string, keys []string) []any {
	prefix := FlytePluginPath(target)
	if len(keys) <= len(prefix) || !slices.Equal(keys[:len(prefix)], prefix) {
		return nil
	}
	switch keys[len(prefix)] {
	case flyteKeyDefaultTolerations:
		return gpudiag.At("default_tolerations")
	case flyteKeyDefaultNodeSelector:
		return gpudiag.At("default_node_selector")
	case flyteKeyDefaultEnvVars:
		return gpudiag.At("default_env_vars")
	case flyteKeyAcceleratorDevices:
		return gpudiag.At("accelerators")
	case flyteKeyGPUResourceName:
		return gpudiag.At("sharing")
	case flyteKeyInterruptibleReq, flyteKeyNonInterruptibleReq, flyteKeyInterruptibleTolerations:
		return gpudiag.At("interruptible")
	}
	return nil
}

func gpuOperatorInputPath(in *GPUOperatorValues, keys []string) []any {
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

func devicePluginInputPath(in *DevicePluginValues, keys []string) []any {
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
