package operatorvalues

import (
	"context"
	"math"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/gpuintent"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/flyte"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/numaflow"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/nvidia"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// Schema is part of resource.Resource.
var _ resource.Resource = &valuesResource{}

// Schema describes gpu_operator_values. Attribute names and nesting mirror
// render's input structs (values.Input) exactly, because render's
// diagnostic paths (fiftyone.deployment[2].gpu.count) are used as they are.
// Allowed values in descriptions come from the same render functions the
// validators use.
func (r *valuesResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Helm values (or, for Numaflow, a vertex fragment or manifest) for the charts that run GPU " +
			"work, generated from the same GPU intent and cloud rules as `gpu_workload` and `gpu_node_pool_policy`, so a " +
			"chart's pods land where the pools are and tolerate what they carry. Everything is computed at plan time " +
			"from configuration alone: this resource never contacts a cluster, and destroying it only forgets the values.",
		Attributes: operatorValuesAttributes(),
		Blocks:     OperatorValuesBlocks(),
	}
}

// operatorValuesBlocks are the target blocks, one per render input struct.
func OperatorValuesBlocks() map[string]schema.Block {
	return map[string]schema.Block{
		"fiftyone":             fiftyOneBlock(),
		"flyte":                flyteBlock(),
		"gpu_operator":         gpuOperatorBlock(),
		"nvidia_device_plugin": devicePluginBlock(),
		"numaflow":             numaflowBlock(),
	}
}

func operatorValuesAttributes() map[string]schema.Attribute {
	attrs := map[string]schema.Attribute{
		"target": schema.StringAttribute{
			MarkdownDescription: "Chart the values are for: one of " + tfconv.MarkdownList(values.TargetNames()) + ". Only " +
				"that chart's block may be set (`flyte-core` and `flyte-binary` share the `flyte` block).",
			Required:   true,
			Validators: []validator.String{stringvalidator.OneOf(values.TargetNames()...)},
		},
		"cloud": schema.StringAttribute{
			MarkdownDescription: "Cloud whose GPU node conventions apply: one of " + tfconv.MarkdownList(clouds.Names()) +
				". Defaults to the cloud of the referenced node pools, then to the provider's `default_cloud`; GPU " +
				"placement needs one of them.",
			Optional:   true,
			Computed:   true,
			Validators: []validator.String{stringvalidator.OneOf(clouds.Names()...)},
		},
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
	for name, a := range operatorValuesComputedAttributes() {
		attrs[name] = a
	}
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

func poolIDAttribute(what string) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: "The `id` of a `gpu_node_pool_policy` " + what + ": unset GPU fields come from the pool, and " +
			"its labels and taints are selected and tolerated, exactly as for `gpu_workload.node_pool`. The id carries " +
			"the whole policy, so it is decoded at plan time.",
		Optional:   true,
		Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
	}
}

func poolIDsAttribute(what string) schema.ListAttribute {
	return schema.ListAttribute{
		MarkdownDescription: "The `id`s of the `gpu_node_pool_policy` pools " + what + ". Each id carries its whole " +
			"policy, so it is decoded at plan time.",
		Optional:    true,
		ElementType: types.StringType,
		Validators:  []validator.List{listvalidator.ValueStringsAre(stringvalidator.LengthAtLeast(1))},
	}
}

func sizeAttribute() schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: "CPU and memory per GPU preset: one of " + tfconv.MarkdownList(workload.SizeNames()) +
			". Needs a `gpu` block; `cpu`/`memory` override it. Without any of them the chart's own resources apply.",
		Optional:   true,
		Validators: []validator.String{stringvalidator.OneOf(workload.SizeNames()...)},
	}
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
			"operator": schema.StringAttribute{
				MarkdownDescription: "One of " + tfconv.MarkdownList(operators) + " (default `Equal`).",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.OneOf(operators...)},
			},
			"value": schema.StringAttribute{
				MarkdownDescription: "Taint value, with `operator = \"Equal\"`.",
				Optional:            true,
			},
			"effect": schema.StringAttribute{
				MarkdownDescription: "Taint effect: one of " + tfconv.MarkdownList(spec.TaintEffectNames()) + "; empty matches all.",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.OneOf(spec.TaintEffectNames()...)},
			},
			"toleration_seconds": schema.Int64Attribute{
				MarkdownDescription: "How long a `NoExecute` taint is tolerated before eviction.",
				Optional:            true,
			},
		}},
	}
}

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

func flyteBlock() schema.SingleNestedBlock {
	return schema.SingleNestedBlock{
		MarkdownDescription: "flytepropeller's k8s plugin, for targets `flyte-core` (`configmap.k8s.plugins.k8s`) and " +
			"`flyte-binary` (`configuration.inline.plugins.k8s`): the GPU resource name, `resource-tolerations` (in the " +
			"list-of-single-key-maps form every Flyte v1 release reads), device and partition labels. Cluster-wide, so " +
			"it holds no GPU count: tasks ask for that.",
		Attributes: map[string]schema.Attribute{
			"flyte_version": schema.Int64Attribute{
				MarkdownDescription: "Flyte major version: `1` (default; flyte-core, and flyte-binary of the v1 line) or `2` " +
					"(flyte-binary of Flyte v2, configured through `accelerator-devices` and `accelerator-device-classes`).",
				Optional:   true,
				Validators: []validator.Int64{int64validator.OneOf(1, 2)},
			},
			"accelerators": schema.ListAttribute{
				MarkdownDescription: "Accelerators tasks may request: any of " + tfconv.MarkdownList(catalog.AcceleratorNames()) +
					". Each must be offered on the cloud; Flyte v2 maps each to its device.",
				Optional:    true,
				ElementType: types.StringType,
				Validators: []validator.List{
					listvalidator.UniqueValues(),
					listvalidator.ValueStringsAre(stringvalidator.OneOf(catalog.AcceleratorNames()...)),
				},
			},
			"sharing": schema.StringAttribute{
				MarkdownDescription: "Make GPU tasks request shared slots: one of " + tfconv.MarkdownList(spec.SharingNames()) + ".",
				Optional:            true,
				Validators:          []validator.String{stringvalidator.OneOf(spec.SharingNames()...)},
			},
			"interruptible": schema.BoolAttribute{
				MarkdownDescription: "Send interruptible tasks to spot capacity and keep the others off it.",
				Optional:            true,
			},
			"default_node_selector": schema.MapAttribute{
				MarkdownDescription: "Node selector added to every task pod.",
				Optional:            true,
				ElementType:         types.StringType,
			},
			"default_env_vars": schema.MapAttribute{
				MarkdownDescription: "Environment of every task pod (Flyte v1 only: v2's chart sets its own). Must not " +
					"contain `{{`: the charts pass these values through Helm's `tpl`.",
				Optional:    true,
				ElementType: types.StringType,
			},
			"node_pools": poolIDsAttribute("GPU tasks run on: each pool's resource names get its tolerations"),
			"gpu_resource_name": schema.StringAttribute{
				MarkdownDescription: "`gpu-resource-name` (v1) or the NVIDIA device class's `resource-name` (v2): the " +
					"extended resource GPU tasks request. Defaults per cloud: " + flyte.ClassDefaults() + ".",
				Optional: true,
			},
			"gpu_device_node_label": schema.StringAttribute{
				MarkdownDescription: "`gpu-device-node-label`: the node label propeller selects a task's device by. " +
					"Defaults to the cloud's (see `gpu_resource_name`). Set it here, not in `base_values_yaml`, which " +
					"may not override it.",
				Optional: true,
			},
			"gpu_partition_size_node_label": schema.StringAttribute{
				MarkdownDescription: "`gpu-partition-size-node-label`: the node label of a MIG partition size; " +
					"`gpu-unpartitioned-node-selector-requirement` follows it. Defaults to the cloud's (see `gpu_resource_name`).",
				Optional: true,
			},
		},
		Blocks: map[string]schema.Block{
			"default_tolerations": tolerationsBlock("Tolerations added to every task pod."),
		},
	}
}

func gpuOperatorBlock() schema.SingleNestedBlock {
	optionalBool := func(description string) schema.BoolAttribute {
		return schema.BoolAttribute{MarkdownDescription: description, Optional: true}
	}
	return schema.SingleNestedBlock{
		MarkdownDescription: "NVIDIA GPU Operator (`NVIDIA/gpu-operator`), for target `gpu-operator`: one device plugin " +
			"config per pool that shares or partitions its GPUs (`devicePlugin.config`), operand and NFD tolerations for " +
			"the pools' taints, and driver/toolkit switches per cloud.",
		Attributes: map[string]schema.Attribute{
			"node_pools": poolIDsAttribute("the operator serves; each pool's device plugin config becomes an entry named " +
				"after the pool"),
			"config_map_name": schema.StringAttribute{
				MarkdownDescription: "Name of the device plugin ConfigMap the chart creates (default `" +
					nvidia.DefaultDevicePluginConfigMap + "`).",
				Optional: true,
			},
			"mig_strategy": schema.StringAttribute{
				MarkdownDescription: "Cluster-wide `mig.strategy`: one of " + tfconv.MarkdownList(spec.MIGStrategyNames()) +
					" (default `single`); pools override it per node through their config.",
				Optional:   true,
				Validators: []validator.String{stringvalidator.OneOf(spec.MIGStrategyNames()...)},
			},
			"dcgm_exporter":   optionalBool("Deploy the DCGM exporter (default `true`)."),
			"service_monitor": optionalBool("Create its ServiceMonitor (default `true` with `dcgm_exporter`)."),
			"driver_enabled": optionalBool("Install the NVIDIA driver. Defaults per cloud: off on GKE, AKS, EKS and EKS " +
				"Auto Mode, whose GPU nodes come with a driver."),
			"toolkit_enabled": optionalBool("Install the NVIDIA container toolkit. Defaults as `driver_enabled`."),
		},
		Blocks: map[string]schema.Block{
			"mig_layout": schema.ListNestedBlock{
				MarkdownDescription: "Custom mig-parted layout, selected per node with the `nvidia.com/mig.config` label. " +
					"Only needed for layouts other than the operator's built-in `all-<profile>` and `all-balanced`.",
				NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
					"name": schema.StringAttribute{
						MarkdownDescription: "Layout name: the `nvidia.com/mig.config` value.",
						Required:            true,
					},
					"accelerator": schema.StringAttribute{
						MarkdownDescription: "Accelerator the layout cuts, to check its profiles: one of " +
							tfconv.MarkdownList(catalog.MIGAcceleratorNames()) + ".",
						Required:   true,
						Validators: []validator.String{stringvalidator.OneOf(catalog.MIGAcceleratorNames()...)},
					},
					"devices": schema.MapAttribute{
						MarkdownDescription: "MIG profile → instances per GPU, e.g. `{ \"1g.5gb\" = 7 }`.",
						Required:            true,
						ElementType:         types.Int64Type,
						Validators:          []validator.Map{mapvalidator.SizeAtLeast(1)},
					},
				}},
			},
			"tolerations": tolerationsBlock("Extra operand tolerations, beside those of the cloud's GPU nodes and the pools."),
		},
	}
}

// devicePluginMIGStrategies adds the standalone plugin's "none" (its
// default) to the operator's strategies.
func devicePluginMIGStrategies() []string {
	return append([]string{"none"}, spec.MIGStrategyNames()...)
}

func devicePluginBlock() schema.SingleNestedBlock {
	return schema.SingleNestedBlock{
		MarkdownDescription: "Standalone NVIDIA device plugin (`NVIDIA/k8s-device-plugin`), for target " +
			"`nvidia-device-plugin` on clusters without the GPU Operator: `config.map` per pool, node selection, " +
			"tolerations of the pools' taints. Where the plugin is ours to configure (not `gke`, `eks-auto`) it " +
			"turns on GPU Feature Discovery (`gfd.enabled`), whose labels (`nvidia.com/gpu.product`, " +
			"`nvidia.com/gpu.sharing-strategy`) workloads select, together with the chart's Node Feature " +
			"Discovery subchart, whose worker tolerates the pools' taints; set `nfd.enabled: false` in " +
			"`base_values_yaml` if the cluster already runs NFD.",
		Attributes: map[string]schema.Attribute{
			"node_pools": poolIDsAttribute("the plugin serves"),
			"mig_strategy": schema.StringAttribute{
				MarkdownDescription: "`flags.migStrategy` of the default config: one of " +
					tfconv.MarkdownList(devicePluginMIGStrategies()) + " (default `none`).",
				Optional:   true,
				Validators: []validator.String{stringvalidator.OneOf(devicePluginMIGStrategies()...)},
			},
		},
		Blocks: map[string]schema.Block{
			"tolerations": tolerationsBlock("Extra DaemonSet tolerations."),
		},
	}
}

func numaflowBlock() schema.SingleNestedBlock {
	attrs := map[string]schema.Attribute{
		"kind": schema.StringAttribute{
			MarkdownDescription: "Object kind: one of " + tfconv.MarkdownList(numaflow.KindNames()) + " (default `" +
				numaflow.KindPipeline + "`).",
			Optional:   true,
			Validators: []validator.String{stringvalidator.OneOf(numaflow.KindNames()...)},
		},
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
		"node_pool": poolIDAttribute("the UDF runs on"),
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
	for name, a := range podSizingAttributes("the UDF") {
		attrs[name] = a
	}
	return schema.SingleNestedBlock{
		MarkdownDescription: "A Numaflow GPU UDF, for target `numaflow`: the vertex (or MonoVertex spec) fields that " +
			"place its pods on GPUs, or with `manifest` a whole minimal object.",
		Attributes: attrs,
		Blocks: map[string]schema.Block{
			"gpu": valuesGPUBlock("GPUs of the UDF container (required)."),
		},
	}
}
