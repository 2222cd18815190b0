package operatorvalues

// FiftyOne Enterprise's block: its schema, its model and its conversion
// into fiftyone.Values, registered in charts.go.

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/render/values/fiftyone"
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
		"node_pool": poolIDAttribute("this " + kind + " runs on (needs a `gpu` block)"),
	}
	for name, a := range podSizingAttributes("this " + kind) {
		attrs[name] = a
	}
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

type fiftyOneModel struct {
	Deployment  types.List `tfsdk:"deployment"`
	JobTemplate types.List `tfsdk:"job_template"`
}

type fiftyOneImageModel struct {
	Repository types.String `tfsdk:"repository"`
	Tag        types.String `tfsdk:"tag"`
}

// fiftyOneEntryModel is what deployments and job templates share
// (fiftyOneEntryAttributes and the entries' gpu and image blocks).
type fiftyOneEntryModel struct {
	Key      types.String `tfsdk:"key"`
	Enabled  types.Bool   `tfsdk:"enabled"`
	Image    types.Object `tfsdk:"image"`
	GPU      types.Object `tfsdk:"gpu"`
	NodePool types.String `tfsdk:"node_pool"`
	podSizingModel
}

type fiftyOneDeploymentModel struct {
	fiftyOneEntryModel
	Replicas    types.Int64  `tfsdk:"replicas"`
	Description types.String `tfsdk:"description"`
}
type fiftyOneJobTemplateModel struct {
	fiftyOneEntryModel
	BackoffLimit            types.Int64 `tfsdk:"backoff_limit"`
	ActiveDeadlineSeconds   types.Int64 `tfsdk:"active_deadline_seconds"`
	TTLSecondsAfterFinished types.Int64 `tfsdk:"ttl_seconds_after_finished"`
	Parallelism             types.Int64 `tfsdk:"parallelism"`
}

func (c *valuesConverter) image(m fiftyOneImageModel) *fiftyone.FiftyOneImage {
	return &fiftyone.FiftyOneImage{Repository: c.Str(m.Repository), Tag: c.Str(m.Tag)}
}

func (c *valuesConverter) fiftyOne(m fiftyOneModel) *fiftyone.Values {
	out := &fiftyone.Values{}
	var deployments []fiftyOneDeploymentModel
	c.objects(m.Deployment, &deployments)
	for i, d := range deployments {
		out.Deployments = append(out.Deployments, fiftyone.FiftyOneDeployment{
			Key: c.Str(d.Key), Enabled: c.optBool(d.Enabled), Replicas: c.OptInt32(d.Replicas),
			Description: c.Str(d.Description), Image: objectAs(c, d.Image, c.image), Env: c.StringMap(d.Env),
			GPU: c.optGPU(d.GPU), NodePool: c.pool(d.NodePool, []any{fiftyone.Block, "deployment", i, "node_pool"}),
			Spot: c.Boolean(d.Spot), Size: c.Str(d.Size), CPU: c.Str(d.CPU), Memory: c.Str(d.Memory),
		})
	}
	var jobs []fiftyOneJobTemplateModel
	c.objects(m.JobTemplate, &jobs)
	for i, j := range jobs {
		out.JobTemplates = append(out.JobTemplates, fiftyone.JobTemplate{
			Key: c.Str(j.Key), Enabled: c.optBool(j.Enabled), Image: objectAs(c, j.Image, c.image), Env: c.StringMap(j.Env),
			GPU: c.optGPU(j.GPU), NodePool: c.pool(j.NodePool, []any{fiftyone.Block, "job_template", i, "node_pool"}),
			Spot: c.Boolean(j.Spot), Size: c.Str(j.Size), CPU: c.Str(j.CPU), Memory: c.Str(j.Memory),
			BackoffLimit: c.OptInt32(j.BackoffLimit), ActiveDeadlineSeconds: c.OptInt64(j.ActiveDeadlineSeconds),
			TTLSecondsAfterFinished: c.OptInt32(j.TTLSecondsAfterFinished), Parallelism: c.OptInt32(j.Parallelism),
		})
	}
	return out
}
