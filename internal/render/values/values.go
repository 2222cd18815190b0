package values

import (
	"slices"
	"strconv"

	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
)

// Helm values generators: the same GPU intent that Render turns into a
// Deployment or Job, turned into the values of the charts people already run
// (FiftyOne Enterprise, Flyte, the NVIDIA GPU Operator and device plugin) and
// into the GPU part of a Numaflow vertex. Placement (node selector, affinity,
// tolerations, resource name, driver environment) always comes from the
// cloud profiles through Render itself (placement.go), so a chart and
// a gpu_workload on the same cloud and accelerator can never disagree.
//
// Where things live:
//   - values.go: targets, the input model, Generate.
//   - placement.go: the bridge to Render's placement (and checks of
//     user-typed tolerations and node selectors).
//   - fiftyone.go, kebab.go: FiftyOne Enterprise, and Helm's
//     kebabcase, which names its objects.
//   - flyte.go: flyte-core and flyte-binary (v1 and v2).
//   - nvidia.go, mig.go: gpu-operator and the standalone
//     device plugin; custom mig-parted layouts.
//   - numaflow.go: Numaflow vertex fragments and manifests.
//   - yaml.go: canonical YAML, Helm's merge, plain-value conversion.
//   - chart.go, preview.go: schema validation and offline
//     rendering through Helm's own loader, chartutil and engine.
//   - remap.go: values locations back to input attributes.
//   - pods.go: PodFragments, the pods a set of values will produce.

// Values targets, one per chart (or CRD) a values map is generated for.
const (
	TargetFiftyOne           = "fiftyone"
	TargetFlyteCore          = "flyte-core"
	TargetFlyteBinary        = "flyte-binary"
	TargetGPUOperator        = "gpu-operator"
	TargetNvidiaDevicePlugin = "nvidia-device-plugin"
	TargetNumaflow           = "numaflow"
)

// TargetNames lists the accepted target values in documentation order.
func TargetNames() []string {
	return []string{TargetFiftyOne, TargetFlyteCore, TargetFlyteBinary, TargetGPUOperator, TargetNvidiaDevicePlugin, TargetNumaflow}
}

// Input is the intent behind one target's values. Cloud is shared;
// exactly the block of the target is set (flyte-core and flyte-binary share
// the flyte block). Field names map 1:1 to the gpu_operator_values attribute
// names in snake_case, which gpudiag.Diagnostic paths use, and zero values mean
// "unset OR unknown" as for Workload.
type Input struct {
	Cloud string // cloud: one of CloudNames()

	FiftyOne           *FiftyOneValues     // fiftyone
	Flyte              *FlyteValues        // flyte (flyte-core and flyte-binary)
	GPUOperator        *GPUOperatorValues  // gpu_operator
	NvidiaDevicePlugin *DevicePluginValues // nvidia_device_plugin
	Numaflow           *NumaflowValues     // numaflow
}

// Attribute names of the target blocks, the first step of gpudiag.Diagnostic paths.
const (
	blockFiftyOne     = "fiftyone"
	blockFlyte        = "flyte"
	blockGPUOperator  = "gpu_operator"
	blockDevicePlugin = "nvidia_device_plugin"
	blockNumaflow     = "numaflow"
)

// valuesBlockFor is the input block a target reads.
func valuesBlockFor(target string) string {
	switch target {
	case TargetFiftyOne:
		return blockFiftyOne
	case TargetFlyteCore, TargetFlyteBinary:
		return blockFlyte
	case TargetGPUOperator:
		return blockGPUOperator
	case TargetNvidiaDevicePlugin:
		return blockDevicePlugin
	case TargetNumaflow:
		return blockNumaflow
	}
	return ""
}

// setBlocks names the blocks that are set, in TargetNames order.
func (in Input) setBlocks() []string {
	var out []string
	if in.FiftyOne != nil {
		out = append(out, blockFiftyOne)
	}
	if in.Flyte != nil {
		out = append(out, blockFlyte)
	}
	if in.GPUOperator != nil {
		out = append(out, blockGPUOperator)
	}
	if in.NvidiaDevicePlugin != nil {
		out = append(out, blockDevicePlugin)
	}
	if in.Numaflow != nil {
		out = append(out, blockNumaflow)
	}
	return out
}

// Generate builds the Helm values (or, for numaflow, the vertex
// fragment or manifest) of target from in, with every value final. On error
// diagnostics the map is nil; warnings come back with the values. The map
// holds only plain values (map[string]any, []any, string, bool, int64 and
// nil), ready for CanonicalYAML and Helm.
func Generate(target string, in Input) (map[string]any, gpudiag.Diagnostics) {
	values, diags := generateValues(target, in, true)
	if diags.HasError() {
		return nil, diags
	}
	return values, diags
}

// ValidateInput checks in for target from configuration alone, for
// plan time: zero values are unknown, so rules needing them are skipped and
// missing required values are not reported.
func ValidateInput(target string, in Input) gpudiag.Diagnostics {
	_, diags := generateValues(target, in, false)
	return diags
}

func generateValues(target string, in Input, strict bool) (map[string]any, gpudiag.Diagnostics) {
	var diags gpudiag.Diagnostics
	cloud, ok := checkValuesTarget(target, in, strict, &diags)
	if !ok {
		return nil, diags
	}
	var values map[string]any
	var more gpudiag.Diagnostics
	switch target {
	case TargetFiftyOne:
		values, more = fiftyOneValues(cloud, *in.FiftyOne, strict)
	case TargetFlyteCore, TargetFlyteBinary:
		values, more = flyteValues(target, cloud, *in.Flyte, strict)
	case TargetGPUOperator:
		values, more = gpuOperatorValues(cloud, *in.GPUOperator, strict)
	case TargetNvidiaDevicePlugin:
		values, more = devicePluginValues(cloud, *in.NvidiaDevicePlugin, strict)
	case TargetNumaflow:
		values, more = numaflowValues(cloud, *in.Numaflow, strict)
	}
	diags.Append(more)
	return values, diags
}

// checkValuesTarget checks the target, the cloud and that exactly the
// target's block is set. ok is false when generation cannot proceed; cloud
// is "" when unknown at plan time.
func checkValuesTarget(target string, in Input, strict bool, diags *gpudiag.Diagnostics) (spec.Cloud, bool) {
	block := valuesBlockFor(target)
	if block == "" {
		diags.AddError(gpudiag.At("target"), "Unknown target",
			strconv.Quote(target)+" is not a values target. Allowed values: "+gpudiag.QuoteList(TargetNames())+".")
		return "", false
	}
	for _, other := range in.setBlocks() {
		if other != block {
			diags.AddError(gpudiag.At(other), "Block not used by this target",
				"The "+other+" block configures another target, but target is "+strconv.Quote(target)+
					", which reads only the "+block+" block. Allowed: remove "+other+", or set target to the chart it describes.")
		}
	}
	if !slices.Contains(in.setBlocks(), block) {
		if strict {
			diags.AddError(gpudiag.At(block), "Missing block",
				"target = "+strconv.Quote(target)+" is generated from the "+block+" block. Allowed: add a "+block+" block.")
		}
		return "", false
	}
	cloud := workload.ValidateCloud(in.Cloud, strict, diags)
	if strict && cloud == "" {
		return "", false
	}
	return cloud, !diags.HasError() || !strict
}

// prefixDiags re-roots diagnostics produced for a nested input (a Workload
// built from a deployment block, say) under that block's path.
func prefixDiags(prefix []any, diags gpudiag.Diagnostics) gpudiag.Diagnostics {
	out := make(gpudiag.Diagnostics, len(diags))
	for i, d := range diags {
		d.Path = append(slices.Clone(prefix), d.Path...)
		out[i] = d
	}
	return out
}

// with returns path extended by steps without aliasing path's array, so
// sibling paths built from one prefix never share (and overwrite) elements.
func with(path []any, steps ...any) []any {
	return append(slices.Clone(path), steps...)
}
