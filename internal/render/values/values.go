package values

import (
	"slices"
	"strconv"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/chartkit"
)

// Where things live: this package is the front door (the dispatch to the
// chart registry in registry.go, the input model, Generate, PodFragments,
// RemapDiagnostics, chart schema validation and previews); each chart's
// rules are in its own package (fiftyone, flyte, nvidia for the GPU
// Operator and device plugin, numaflow), each registering itself, and what
// they share (placement through the clouds rules, YAML paths, Helm's merge)
// is chartkit's. Placement always comes from the same cloud profiles a
// gpu_workload uses (chartkit/placement.go), so a chart and a gpu_workload
// on the same cloud and accelerator can never disagree.

// Input is the intent behind one target's values. Cloud is shared;
// exactly the block of the target is set (flyte-core and flyte-binary share
// the flyte block). Blocks holds each set block's input under its block
// name (fiftyone.Block: *fiftyone.Values, ...), the gpu_operator_values
// attribute name that gpudiag.Diagnostic paths start with; the chart's
// registration says which type its block holds. Zero values mean "unset OR
// unknown" as for Workload.
type Input struct {
	Cloud string // cloud: one of CloudNames()

	Blocks map[string]any
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
	t, cloud, ok := checkValuesTarget(target, in, strict, &diags)
	if !ok {
		return nil, diags
	}
	values, more := t.Generate(in.Blocks[t.Block], cloud, strict)
	diags.Append(more)
	return values, diags
}

// checkValuesTarget checks the target, the cloud and that exactly the
// target's block is set, and returns the registered target. It is the
// values path's resolve step: the cloud is looked up here once
// (chartkit.ResolveCloud) and the chart gets the clouds.Cloud, never the
// name. ok is false when generation cannot proceed; the cloud is the
// unknown one (Known false) when unset or invalid at plan time.
func checkValuesTarget(target string, in Input, strict bool, diags *gpudiag.Diagnostics) (chartkit.Target, clouds.Cloud, bool) {
	var none clouds.Cloud
	t, known := lookup(target)
	if !known {
		diags.AddError(gpudiag.At("target"), "Unknown target",
			strconv.Quote(target)+" is not a values target. Allowed values: "+gpudiag.QuoteList(TargetNames())+".")
		return t, none, false
	}
	block := t.Block
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
		return t, none, false
	}
	cloud := chartkit.ResolveCloud(in.Cloud, strict, diags)
	if strict && !cloud.Known() {
		return t, none, false
	}
	return t, cloud, !diags.HasError() || !strict
}
