package flyte

import (
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/chartkit"
)

// Block is the gpu_operator_values block both Flyte targets read, the first
// step of their diagnostic paths.
const Block = "flyte"

// Chart is Flyte's registration with the values front door, registered
// when the package is linked: flyte-core and flyte-binary share the flyte
// block and differ only in where the k8s plugin config sits in their values
// (PluginPath), so every function takes the target.
func Chart() chartkit.Chart[Values] { return registration }

var registration = chartkit.Register(chartkit.Chart[Values]{
	Targets:   []string{TargetCore, TargetBinary},
	Block:     Block,
	Generate:  Generate,
	Pods:      Pods,
	InputPath: func(target string, _ *Values, keys []string) []any { return InputPath(target, keys) },
})
