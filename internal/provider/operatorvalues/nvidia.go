package operatorvalues

// NVIDIA's two blocks (GPU Operator, standalone device plugin): their
// schemas, models and conversions into the nvidia package's inputs,
// registered in charts.go.

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/nvidia"
)

func gpuOperatorBlock() schema.SingleNestedBlock {
	optionalBool := func(description string) schema.BoolAttribute {
		return schema.BoolAttribute{MarkdownDescription: description, Optional: true}
	}
	return schema.SingleNestedBlock{
		MarkdownDescription: "NVIDIA GPU Operator (`NVIDIA/gpu-operator`), for target `gpu-operator`: one device plugin " +
			"config per pool that shares or partitions its GPUs (`devicePlugin.config`), operand and NFD tolerations for " +
			"the pools' taints, and driver/toolkit switches per cloud.",
		Attributes: map[string]schema.Attribute{
			"node_pools": poolRefsAttribute("the operator serves; each pool's device plugin config becomes an entry named " +
				"after the pool"),
			"config_map_name": schema.StringAttribute{
				MarkdownDescription: "Name of the device plugin ConfigMap the chart creates (default `" +
					nvidia.DefaultDevicePluginConfigMap + "`).",
				Optional: true,
			},
			"mig_strategy": tfconv.OneOf(spec.MIGStrategyNames(), "Cluster-wide `mig.strategy`: one of ",
				" (default `single`); pools override it per node through their config."),
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
			"node_pools": poolRefsAttribute("the plugin serves"),
			"mig_strategy": tfconv.OneOf(devicePluginMIGStrategies(), "`flags.migStrategy` of the default config: one of ",
				" (default `none`)."),
		},
		Blocks: map[string]schema.Block{
			"tolerations": tolerationsBlock("Extra DaemonSet tolerations."),
		},
	}
}
