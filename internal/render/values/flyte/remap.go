package flyte

import (
	"slices"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
)

func FlyteInputPath(target string, keys []string) []any {
	prefix := FlytePluginPath(target)
	if len(keys) <= len(prefix) || !slices.Equal(keys[:len(prefix)], prefix) {
		return nil
	}
	switch keys[len(prefix)] {
	case flyteKeyDefaultTolerations:
		return gpudiag.At("default_tolerations")
	case flyteKeyDefaultNodeSelector:
		return gpudiag.At("default_node_selector")
	case FlyteKeyDefaultEnvVars:
		return gpudiag.At("default_env_vars")
	case FlyteKeyAcceleratorDevices:
		return gpudiag.At("accelerators")
	case FlyteKeyGPUResourceName:
		return gpudiag.At("sharing")
	case flyteKeyInterruptibleReq, flyteKeyNonInterruptibleReq, flyteKeyInterruptibleTolerations:
		return gpudiag.At("interruptible")
	}
	return nil
}
