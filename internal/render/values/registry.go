package values

import (
	"slices"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/chartkit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/fiftyone"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/flyte"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/numaflow"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/nvidia"
	corev1 "k8s.io/api/core/v1"
)

// The registry of chart targets, after Kueue's integration manager
// (jobframework): each chart package describes itself once as a
// chartkit.Chart (its target names, its input block, its callbacks) and is
// registered here once. Everything in this package that depends on the
// target (Generate, ValidateInput, PodFragments, InputPathForValues, the
// one-block check, TargetNames for the provider's validator and
// description) asks the registry, so no code switches on a target name.

// Values targets, one per chart (or CRD) a values map is generated for.
// Each chart package owns its names; these re-export them for callers of
// the front door.
const (
	TargetFiftyOne           = fiftyone.Target
	TargetFlyteCore          = flyte.TargetCore
	TargetFlyteBinary        = flyte.TargetBinary
	TargetGPUOperator        = nvidia.TargetGPUOperator
	TargetNvidiaDevicePlugin = nvidia.TargetDevicePlugin
	TargetNumaflow           = numaflow.Target
)

// registry holds every chart once, in documentation order (TargetNames).
// Adding a chart is its package (exporting a chartkit.Chart), one
// registration here, and its Terraform block's entry in the provider's
// gpu_operator_values table.
var registry = slices.Concat(
	register(fiftyone.Chart()),
	register(flyte.Chart()),
	register(nvidia.GPUOperatorChart()),
	register(nvidia.DevicePluginChart()),
	register(numaflow.Chart()),
)

// targetEntry is one registered target name: its chart's callbacks bound to the
// chart's block in Input, so the rest of the package never sees block types.
type targetEntry struct {
	name, block string
	// isSet: the target's block is set in the input.
	isSet     func(Input) bool
	generate  func(in Input, cloud clouds.Cloud, strict bool) (map[string]any, gpudiag.Diagnostics)
	pods      func(values map[string]any) ([]corev1.PodSpec, error)
	inputPath func(in Input, keys []string) []any
}

// register turns a chart's registration into one target per name it
// answers to, each reading the chart's block from Input.Blocks.
func register[V any](c chartkit.Chart[V]) []targetEntry {
	block := func(in Input) *V {
		v, _ := in.Blocks[c.Block].(*V)
		return v
	}
	out := make([]targetEntry, 0, len(c.Targets))
	for _, name := range c.Targets {
		out = append(out, targetEntry{
			name:  name,
			block: c.Block,
			isSet: func(in Input) bool { return block(in) != nil },
			// Called only once checkValuesTarget found the block set.
			generate: func(in Input, cloud clouds.Cloud, strict bool) (map[string]any, gpudiag.Diagnostics) {
				return c.Generate(name, cloud, *block(in), strict)
			},
			pods: func(values map[string]any) ([]corev1.PodSpec, error) { return c.Pods(name, values) },
			inputPath: func(in Input, keys []string) []any {
				if c.InputPath == nil {
					return nil
				}
				return c.InputPath(name, block(in), keys)
			},
		})
	}
	return out
}

// lookup finds a registered target by name.
func lookup(name string) (targetEntry, bool) {
	i := slices.IndexFunc(registry, func(t targetEntry) bool { return t.name == name })
	if i < 0 {
		return targetEntry{}, false
	}
	return registry[i], true
}

// TargetNames lists the accepted target values in documentation order: the
// provider's validator and the attribute's description both call it.
func TargetNames() []string {
	names := make([]string, len(registry))
	for i, t := range registry {
		names[i] = t.name
	}
	return names
}

// setBlocks names the blocks that are set, each once, in TargetNames order.
func (in Input) setBlocks() []string {
	var out []string
	for _, t := range registry {
		if t.isSet(in) && !slices.Contains(out, t.block) {
			out = append(out, t.block)
		}
	}
	return out
}
