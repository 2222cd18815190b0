package operatorvalues

import (
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/fiftyone"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/flyte"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/numaflow"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/nvidia"
)

// chartBlocks is the Terraform side of render's chart registry
// (values/registry.go): one entry per chart block, in the same order, each
// carrying the block's schema and how its model converts into the chart's
// render input. The resource's schema, its decoding and its values.Input
// are built by iterating them, so a new chart target is its render package
// and registration, its block's file here, and one entry below.
var chartBlocks = []chartBlock{
	blockOf[fiftyone.Values](fiftyone.Block, fiftyOneBlock),
	blockOf[flyte.Values](flyte.Block, flyteBlock),
	blockOf[nvidia.GPUOperatorValues](nvidia.BlockGPUOperator, gpuOperatorBlock),
	blockOf[nvidia.DevicePluginValues](nvidia.BlockDevicePlugin, devicePluginBlock),
	blockOf[numaflow.Values](numaflow.Block, numaflowBlock, numaflowNeedsGPU),
}

// chartBlock is one chart block of gpu_operator_values.
type chartBlock struct {
	// name is the block's attribute name, the chart registration's Block.
	name   string
	schema func() schema.SingleNestedBlock
	// input converts the block into the chart's render input (the *V its
	// chartkit.Chart reads); false when the block is null or unknown.
	input func(c *valuesConverter, v types.Object) (any, bool)
	// check reports what configuration alone decides and render does not
	// see (ValidateConfig); nothing for an unset block.
	check func(c *valuesConverter, v types.Object) gpudiag.Diagnostics
}

// blockOf builds a chart block's entry from its schema: the block decodes
// straight into the chart's render input V, attribute by field
// (tfconv.Decode; pool ids through valuesConverter's hooks), and checks
// report what render leaves to the provider.
func blockOf[V any](name string, schema func() schema.SingleNestedBlock,
	checks ...func(block types.Object) gpudiag.Diagnostics) chartBlock {
	return chartBlock{
		name:   name,
		schema: schema,
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

// OperatorValuesBlocks are the chart blocks' schemas by block name.
func OperatorValuesBlocks() map[string]schema.Block {
	blocks := make(map[string]schema.Block, len(chartBlocks))
	for _, b := range chartBlocks {
		blocks[b.name] = b.schema()
	}
	return blocks
}

// isChartBlock reports whether name is a chart block's attribute.
func isChartBlock(name string) bool {
	return slices.ContainsFunc(chartBlocks, func(b chartBlock) bool { return b.name == name })
}
