package operatorvalues

// Numaflow's block: its schema, its model, its conversion into
// numaflow.Values and its configuration check, registered in charts.go.

import (
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/numaflow"
)

func numaflowBlock() schema.SingleNestedBlock {
	attrs := map[string]schema.Attribute{
		"kind": tfconv.OneOf(numaflow.KindNames(), "Object kind: one of ", " (default `"+numaflow.KindPipeline+"`)."),
		"name": schema.StringAttribute{
			MarkdownDescription: "Name of the Pipeline or MonoVertex and of the DRA claim template; required with " +
				"`manifest` or `gpu.dra`.",
			Optional: true,
		},
		"namespace": schema.StringAttribute{
			MarkdownDescription: "Namespace of the manifest; empty leaves it to whoever applies it.",
			Optional:            true,
		},
		"vertex_name": schema.StringAttribute{
			MarkdownDescription: "Name of the UDF vertex of a pipeline (default `" + numaflow.DefaultNumaflowVertex + "`).",
			Optional:            true,
		},
		"image": schema.StringAttribute{
			MarkdownDescription: "UDF container image; required with `manifest`.",
			Optional:            true,
		},
		"node_pool": poolRefAttribute("the UDF runs on"),
		"annotations": schema.MapAttribute{
			MarkdownDescription: "Annotations of the vertex pods.",
			Optional:            true,
			ElementType:         types.StringType,
		},
		"manifest": schema.BoolAttribute{
			MarkdownDescription: "Generate a whole minimal object (generator source → GPU UDF → log sink), with its " +
				"ResourceClaimTemplate for DRA, instead of the vertex fragment.",
			Optional: true,
		},
	}
	maps.Copy(attrs, podSizingAttributes("the UDF"))
	return schema.SingleNestedBlock{
		MarkdownDescription: "A Numaflow GPU UDF, for target `numaflow`: the vertex (or MonoVertex spec) fields that " +
			"place its pods on GPUs, or with `manifest` a whole minimal object.",
		Attributes: attrs,
		Blocks: map[string]schema.Block{
			"gpu": valuesGPUBlock("GPUs of the UDF container (required)."),
		},
	}
}

// numaflowNeedsGPU: a Numaflow GPU UDF cannot do without its gpu block,
// which the schema cannot require (see valuesGPUBlock).
func numaflowNeedsGPU(block types.Object) gpudiag.Diagnostics {
	if gpu, ok := block.Attributes()["gpu"]; ok && !gpu.IsNull() {
		return nil
	}
	return gpudiag.Diagnostics{errorAt([]any{numaflow.Block}, "Missing gpu block",
		"A Numaflow GPU UDF needs a gpu block (at least count). Allowed: add gpu { count = 1 }.")}
}
