package operatorvalues

// FiftyOne Enterprise's block: its schema, its model and its conversion
// into fiftyone.Values, registered in charts.go.

import (
	"maps"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

func fiftyOneImageBlock() schema.SingleNestedBlock {
	return schema.SingleNestedBlock{
		MarkdownDescription: "Executor image override; unset fields keep the chart's.",
		Attributes: map[string]schema.Attribute{
			"repository": schema.StringAttribute{Optional: true, MarkdownDescription: "Image repository."},
			"tag":        schema.StringAttribute{Optional: true, MarkdownDescription: "Image tag."},
		},
	}
}

// fiftyOneEntryAttributes are what deployments and job templates share.
func fiftyOneEntryAttributes(kind, nameRule string) map[string]schema.Attribute {
	attrs := map[string]schema.Attribute{
		"key": schema.StringAttribute{
			MarkdownDescription: "camelCase chart key, e.g. `gpuL4`; the chart names the " + kind + " `kebabcase(key)`" +
				nameRule + ", which must be a DNS-1123 label. Keys with digits get a warning when Helm's kebabcase splits " +
				"them unexpectedly.",
			Required:   true,
			Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
		},
		"enabled": schema.BoolAttribute{
			MarkdownDescription: "Whether the chart renders this " + kind + "; unset keeps the chart's rule.",
			Optional:            true,
		},
		"node_pool": poolRefAttribute("this " + kind + " runs on (needs a `gpu` block)"),
	}
	maps.Copy(attrs, podSizingAttributes("this "+kind))
	return attrs
}

func fiftyOneBlock() schema.SingleNestedBlock {
	deployment := fiftyOneEntryAttributes("deployment", "")
	deployment["replicas"] = schema.Int64Attribute{
		MarkdownDescription: "`replicaCount`, at least 1; to stop a runner set `enabled = false`.",
		Optional:            true,
		Validators:          []validator.Int64{int32Range()},
	}
	deployment["description"] = schema.StringAttribute{
		MarkdownDescription: "Description shown for the runner.",
		Optional:            true,
	}
	job := fiftyOneEntryAttributes("job", " truncated to 48 characters, then `-<operation id>`")
	for name, description := range map[string]string{
		"backoff_limit":              "Retries before the Job fails (0 or more).",
		"ttl_seconds_after_finished": "Delete the finished Job after this many seconds (0 or more).",
		"parallelism":                "Pods running at once (1 or more).",
	} {
		job[name] = schema.Int64Attribute{MarkdownDescription: description, Optional: true,
			Validators: []validator.Int64{int32Range()}}
	}
	job["active_deadline_seconds"] = schema.Int64Attribute{
		MarkdownDescription: "Wall-clock limit of the Job in seconds (1 or more).",
		Optional:            true,
	}
	entryBlocks := func() map[string]schema.Block {
		return map[string]schema.Block{
			"gpu":   valuesGPUBlock("GPUs of the runner; leave it out for a CPU-only runner."),
			"image": fiftyOneImageBlock(),
		}
	}
	return schema.SingleNestedBlock{
		MarkdownDescription: "FiftyOne Enterprise (`voxel51/fiftyone-teams-app`) delegated operators, for target " +
			"`fiftyone`: `delegatedOperatorDeployments.deployments.<key>` and `delegatedOperatorJobTemplates.jobs.<key>`. " +
			"Unset fields inherit the chart's template; tolerations replace the template's list.",
		Blocks: map[string]schema.Block{
			"deployment": schema.ListNestedBlock{
				MarkdownDescription: "A delegated-operator Deployment (a long-running runner).",
				NestedObject:        schema.NestedBlockObject{Attributes: deployment, Blocks: entryBlocks()},
			},
			"job_template": schema.ListNestedBlock{
				MarkdownDescription: "An on-demand Job template the FiftyOne API launches per operation.",
				NestedObject:        schema.NestedBlockObject{Attributes: job, Blocks: entryBlocks()},
			},
		},
	}
}
