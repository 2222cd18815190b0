package flyte

import (
	"slices"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
)

func InputPath(target string, keys []string) []any {
	prefix := PluginPath(target)
	if len(keys) <= len(prefix) || !slices.Equal(keys[:len(prefix)], prefix) {
		return nil
	}
	switch keys[len(prefix)] {
	case flyteKeyDefaultTolerations:
		return gpudiag.At("default_tolerations")
	case flyteKeyDefaultNodeSelector:
		return gpudiag.At("default_node_selector")
	case KeyDefaultEnvVars:
		return gpudiag.At("default_env_vars")
	case KeyAcceleratorDevices:
		return gpudiag.At("accelerators")
	case KeyGPUResourceName:
		return gpudiag.At("sharing")
	case flyteKeyInterruptibleReq, flyteKeyNonInterruptibleReq, flyteKeyInterruptibleTolerations:
		return gpudiag.At("interruptible")
	}
	return nil
}
