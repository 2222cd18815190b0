package operatorvalues

import (
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/chartkit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/fiftyone"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/flyte"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/numaflow"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/nvidia"
)

// chartBlocks is gpu_operator_values' table of charts, in the order the
// documentation lists their targets: one entry per chart, each carrying the
// chart's own render registration (its chartkit.Chart, so the block's name,
// its targets and its render input type come from render and cannot
// disagree with it) and the block's schema. Render keeps no list of charts:
// a chart package registers itself when it is linked, and this table's
// import is what links it into the provider. The block decodes straight into
// the chart's input. The resource's schema, its target attribute, its
// decoding and its values.Input are built by iterating the table, so a new
// chart target is its render package plus one entry below carrying its
// Terraform block (whose schema sits in a file here);
// TestChartBlocksServeEveryTarget fails when render registers a target the
// table does not offer.
var chartBlocks = []chartBlock{
	blockOf(fiftyone.Chart(), fiftyOneBlock),
	blockOf(flyte.Chart(), flyteBlock),
	blockOf(nvidia.GPUOperatorChart(), gpuOperatorBlock),
	blockOf(nvidia.DevicePluginChart(), devicePluginBlock),
	blockOf(numaflow.Chart(), numaflowBlock, numaflowNeedsGPU),
}

// chartBlock is one chart block of gpu_operator_values.
type chartBlock struct {
	// name is the block's attribute name, the chart registration's Block.
	name string
	// targets are the target values the block serves, the chart's Targets.
	targets []string
	schema  func() schema.SingleNestedBlock
	// input converts the block into the chart's render input (the *V its
	// chartkit.Chart reads); false when the block is null or unknown.
	input func(c *valuesConverter, v types.Object) (any, bool)
	// check reports what configuration alone decides and render does not
	// see (ValidateConfig); nothing for an unset block.
	check func(c *valuesConverter, v types.Object) gpudiag.Diagnostics
}

// blockOf builds a chart block's entry from the chart and its schema: the block decodes
// straight into the chart's render input V, attribute by field
// (tfconv.Decode; pool ids through valuesConverter's hooks), and checks
// report what render leaves to the provider.
func blockOf[V any](chart chartkit.Chart[V], schema func() schema.SingleNestedBlock,
	checks ...func(block types.Object) gpudiag.Diagnostics) chartBlock {
	name := chart.Block
	return chartBlock{
		name:    name,
		targets: chart.Targets,
		schema:  schema,
		input: func(c *valuesConverter, v types.Object) (any, bool) {
			in := tfconv.DecodeAt[V](c.Converter, []any{name}, v)
			return in, in != nil
		},
		check: func(_ *valuesConverter, v types.Object) gpudiag.Diagnostics {
			var diags gpudiag.Diagnostics
			if v.IsNull() || v.IsUnknown() {
				return diags
			}
			for _, check := range checks {
				diags = append(diags, check(v)...)
			}
			return diags
		},
	}
}

// operatorValuesBlocks are the chart blocks' schemas by block name.
func operatorValuesBlocks() map[string]schema.Block {
	blocks := make(map[string]schema.Block, len(chartBlocks))
	for _, b := range chartBlocks {
		blocks[b.name] = b.schema()
	}
	return blocks
}

// targetNames are the targets the table offers, in its order: the target
// attribute's allowed values.
func targetNames() []string {
	var names []string
	for _, b := range chartBlocks {
		names = append(names, b.targets...)
	}
	return names
}
