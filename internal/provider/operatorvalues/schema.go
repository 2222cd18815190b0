package operatorvalues

import (
	"context"
	_ "embed"
	"maps"
	"math"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/gpuintent"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/refs"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// Schema is part of resource.Resource.
var _ resource.Resource = &valuesResource{}

// description is gpu_operator_values' description, which opens its docs
// page.
//
//go:embed gpu_operator_values.md
var description string

// Schema describes gpu_operator_values. Attribute names and nesting mirror
// render's input structs (values.Input) exactly, because render's
// diagnostic paths (fiftyone.deployment[2].gpu.count) are used as they are.
// Allowed values in descriptions come from the same render functions the
// validators use.
func (r *valuesResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: tfconv.MarkdownFile(description),
		Attributes:          operatorValuesAttributes(),
		Blocks:              operatorValuesBlocks(),
		Version:             1,
	}
}

// UpgradeState reads states of version 0, whose node_pool and node_pools
// held legacy pool ids: they become the refs those ids carried.
func (r *valuesResource) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	return map[int64]resource.StateUpgrader{0: resourcekit.RawStateUpgrader(refs.UpgradePoolReferencesIn)}
}

func operatorValuesAttributes() map[string]schema.Attribute {
	attrs := map[string]schema.Attribute{
		"target": schema.StringAttribute{
			MarkdownDescription: "Chart the values are for: one of " + tfconv.MarkdownList(targetNames()) + ". Only " +
				"that chart's block may be set (`flyte-core` and `flyte-binary` share the `flyte` block).",
			Required:   true,
			Validators: []validator.String{stringvalidator.OneOf(targetNames()...)},
		},
		"cloud": resourcekit.PlannedCloudAttribute(clouds.Names(), "Cloud whose GPU node conventions apply: one of ",
			". Defaults to the cloud of the referenced node pools, then to the provider's `default_cloud`; GPU "+
				"placement needs one of them."),
		"base_values_yaml": schema.ListAttribute{
			MarkdownDescription: "Values files (YAML strings, e.g. `file(\"values.yaml\")`) the generated values are merged " +
				"over, as `helm install -f base[0] -f base[1] ... -f generated` would: maps merge key by key, and the " +
				"generated values win. Nothing you wrote is dropped silently: `tolerations` lists keep your entries (yours " +
				"first, then the generated ones), and a key the provider owns (a GPU limit or request, a node selector or " +
				"affinity entry, Flyte's GPU plugin keys such as `gpu-device-node-label`) that a file sets to another value " +
				"is a plan error naming the key. Other lists and scalars are replaced by the generated ones.",
			Optional:    true,
			ElementType: types.StringType,
		},
		"chart_path": schema.StringAttribute{
			MarkdownDescription: "Local chart directory or packaged `.tgz` (relative to the working directory; " +
				"`${path.module}/...` is safest). The merged values, coalesced with the chart's defaults, are validated " +
				"against its `values.schema.json` at plan time, and violations are reported on the attribute that " +
				"produced the value. Nothing is downloaded.",
			Optional:   true,
			Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
		},
		"render_preview": schema.BoolAttribute{
			MarkdownDescription: "With `chart_path`, render the chart offline as `helm template` would, expose the " +
				"manifests that carry GPU settings in `preview_manifests`, and fail the plan when a GPU limit, node " +
				"selector or toleration of the values does not reach a rendered pod.",
			Optional: true,
		},
	}
	maps.Copy(attrs, operatorValuesComputedAttributes())
	return attrs
}

func operatorValuesComputedAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"id": schema.StringAttribute{
			MarkdownDescription: "`<target>/<hash>`: the target and the first 16 hex digits of the SHA-256 of `values_yaml`, " +
				"so it changes exactly when the values do.",
			Computed: true,
		},
		"values_yaml": schema.StringAttribute{
			MarkdownDescription: "The merged values as canonical YAML (keys sorted, one trailing newline): pass it to " +
				"`helm_release`'s `values` or write it to a file for `helm upgrade -f`. Known at plan time.",
			Computed: true,
		},
		"values": schema.DynamicAttribute{
			MarkdownDescription: "The merged values as an object, for `yamlencode`, `merge` or indexing " +
				"(`values.devicePlugin.config.name`).",
			Computed: true,
		},
		"pod_fragments_yaml": schema.StringAttribute{
			MarkdownDescription: "YAML list of the pod specs the values will produce once the chart (or Numaflow, or " +
				"flytepropeller) applies them, with only the GPU-relevant fields: resources, node selector, affinity, " +
				"tolerations, resource claims, environment. Images the chart chooses are placeholders.",
			Computed: true,
		},
		"preview_manifests": schema.MapAttribute{
			MarkdownDescription: "With `render_preview`: the rendered manifests that carry GPU settings, keyed by " +
				"template path. Null otherwise.",
			Computed:    true,
			ElementType: types.StringType,
		},
	}
}

// int32Range keeps values that render holds as int32 from wrapping.
func int32Range() validator.Int64 {
	return int64validator.Between(math.MinInt32, math.MaxInt32)
}

func poolRefAttribute(what string) schema.ObjectAttribute {
	return refs.PoolAttribute("The node pool "+what+": unset GPU fields come from the pool, and its labels and taints "+
		"are selected and tolerated, exactly as for `gpu_workload.node_pool`.", false)
}

func poolRefsAttribute(what string) schema.ListAttribute {
	return schema.ListAttribute{
		MarkdownDescription: "The `ref`s of the `gpu_node_pool_policy` pools " + what + ", e.g. " +
			"`[gpu_node_pool_policy.a100.ref]`: objects with each pool's settings, read while planning.",
		Optional:    true,
		ElementType: refs.PoolType,
	}
}

func sizeAttribute() schema.StringAttribute {
	return tfconv.OneOf(workload.SizeNames(), "CPU and memory per GPU preset: one of ",
		". Needs a `gpu` block; `cpu`/`memory` override it. Without any of them the chart's own resources apply.")
}

// podSizingAttributes are the container attributes FiftyOne entries and
// the Numaflow UDF share with gpu_workload.
func podSizingAttributes(what string) map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"spot": schema.BoolAttribute{
			MarkdownDescription: "Run " + what + " on spot/preemptible GPU nodes: adds the cloud's spot selector and toleration.",
			Optional:            true,
		},
		"size": sizeAttribute(),
		"cpu": schema.StringAttribute{
			MarkdownDescription: "CPU of the container, total (a Kubernetes quantity, e.g. `8` or `7500m`).",
			Optional:            true,
		},
		"memory": schema.StringAttribute{
			MarkdownDescription: "Memory of the container, total (a Kubernetes quantity, e.g. `32Gi`).",
			Optional:            true,
		},
		"env": schema.MapAttribute{
			MarkdownDescription: "Environment variables. The cloud's driver environment (GKE's `LD_LIBRARY_PATH`) is added " +
				"unless set here.",
			Optional:    true,
			ElementType: types.StringType,
		},
	}
}

// valuesGPUBlock is gpu_workload's gpu block (the same attributes and
// validators, built by the same function), optional here: without it a
// FiftyOne entry is a CPU runner.
//
// count cannot be Required here: the framework checks required attributes
// of absent optional blocks too, so gpuCountRequired enforces it when the
// block is present.
func valuesGPUBlock(description string) schema.SingleNestedBlock {
	b := gpuintent.Block()
	b.MarkdownDescription = description + " Same attributes as `gpu_workload`'s `gpu` block."
	b.Validators = []validator.Object{gpuCountRequired{}}
	if count, ok := b.Attributes["count"].(schema.Int64Attribute); ok {
		count.Required, count.Optional = false, true
		count.MarkdownDescription += " Required in this block."
		b.Attributes["count"] = count
	}
	return b
}

// gpuCountRequired reports a present gpu block without count.
type gpuCountRequired struct{}

var _ validator.Object = gpuCountRequired{}

func (gpuCountRequired) Description(context.Context) string {
	return "count must be set when the gpu block is present"
}

func (v gpuCountRequired) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (gpuCountRequired) ValidateObject(_ context.Context, req validator.ObjectRequest, resp *validator.ObjectResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if count, ok := req.ConfigValue.Attributes()["count"]; ok && count.IsNull() {
		resp.Diagnostics.AddAttributeError(req.Path.AtName("count"), "Missing GPU count",
			"A gpu block needs count: GPUs (or MIG partitions, or shared slots) per pod. Allowed: count = 1 or more; "+
				"leave the gpu block out for a CPU-only runner.")
	}
}

func tolerationsBlock(description string) schema.ListNestedBlock {
	operators := []string{string(corev1.TolerationOpEqual), string(corev1.TolerationOpExists)}
	return schema.ListNestedBlock{
		MarkdownDescription: description + " Checked as the API server checks pod tolerations.",
		NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
			"key": schema.StringAttribute{
				MarkdownDescription: "Taint key; empty matches every key (with `operator = \"Exists\"`).",
				Optional:            true,
			},
			"operator": tfconv.OneOf(operators, "One of ", " (default `Equal`)."),
			"value": schema.StringAttribute{
				MarkdownDescription: "Taint value, with `operator = \"Equal\"`.",
				Optional:            true,
			},
			"effect": tfconv.OneOf(spec.TaintEffectNames(), "Taint effect: one of ", "; empty matches all."),
			"toleration_seconds": schema.Int64Attribute{
				MarkdownDescription: "How long a `NoExecute` taint is tolerated before eviction.",
				Optional:            true,
			},
		}},
	}
}
