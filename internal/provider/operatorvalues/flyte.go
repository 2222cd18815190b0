package operatorvalues

// Flyte's block (flyte-core and flyte-binary): its schema, its model and its
// conversion into flyte.Values, registered in charts.go.

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/flyte"
)

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
			"sharing": tfconv.OneOf(spec.SharingNames(), "Make GPU tasks request shared slots: one of ", "."),
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
			"node_pools": poolRefsAttribute("GPU tasks run on: each pool's resource names get its tolerations"),
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
