package values

import (
	"slices"

	"github.com/gpuform/terraform-provider-gpu/internal/render/values/chartkit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/fiftyone"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/flyte"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/numaflow"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/nvidia"
)

// The registry of chart targets is chartkit's (chartkit/registry.go): each
// chart package registers its chartkit.Chart from its own init, so this
// package keeps no list of charts. Everything here that depends on the
// target (Generate, ValidateInput, PodFragments, InputPathForValues, the
// one-block check, TargetNames) asks the registry, so no code switches on a
// target name.
//
// Adding a chart is its package (exporting its Chart and registering it in
// init) plus one entry, carrying its Terraform block, in the provider's
// gpu_operator_values table (provider/operatorvalues/charts.go), whose
// import links the package. Render never imports the provider.

// Values targets, one per chart (or CRD) a values map is generated for.
// Each chart package owns its names; these re-export them for callers of
// the front door (and, by importing the packages, register every chart
// whenever this package is linked, as render's own tests need).
const (
	TargetFiftyOne           = fiftyone.Target
	TargetFlyteCore          = flyte.TargetCore
	TargetFlyteBinary        = flyte.TargetBinary
	TargetGPUOperator        = nvidia.TargetGPUOperator
	TargetNvidiaDevicePlugin = nvidia.TargetDevicePlugin
	TargetNumaflow           = numaflow.Target
)

// lookup finds a registered target by name.
func lookup(name string) (chartkit.Target, bool) {
	registry := chartkit.Registered()
	i := slices.IndexFunc(registry, func(t chartkit.Target) bool { return t.Name == name })
	if i < 0 {
		return chartkit.Target{}, false
	}
	return registry[i], true
}

// TargetNames lists the accepted target values, sorted. The provider
// documents its targets in the order of its own table instead.
func TargetNames() []string {
	registry := chartkit.Registered()
	names := make([]string, len(registry))
	for i, t := range registry {
		names[i] = t.Name
	}
	return names
}

// setBlocks names the blocks that are set, each once, in TargetNames order.
func (in Input) setBlocks() []string {
	var out []string
	for _, t := range chartkit.Registered() {
		if t.IsSet(in.Blocks[t.Block]) && !slices.Contains(out, t.Block) {
			out = append(out, t.Block)
		}
	}
	return out
}
