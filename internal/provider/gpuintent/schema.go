package gpuintent

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/objectvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// Block is the `gpu` block's schema.
func Block() schema.SingleNestedBlock {
	return schema.SingleNestedBlock{
		// Terraform's protocol has no required blocks, so the generated docs
		// list this one as optional: the description says otherwise, and
		// IsRequired makes a configuration without it a plan error.
		MarkdownDescription: "What the workload needs from GPUs. **Required**, although listed as optional " +
			"(Terraform cannot mark a block required): a `gpu_workload` without it is a plan error.",
		Validators: []validator.Object{objectvalidator.IsRequired()},
		Attributes: map[string]schema.Attribute{
			"count": schema.Int64Attribute{
				MarkdownDescription: "GPUs (or MIG partitions, or shared GPU slices) per pod. Set as the container " +
					"limit, with an equal request: Kubernetes never overcommits extended resources. All of a pod's " +
					"GPUs are on one machine, so a count no machine of the cloud holds for the accelerator (the " +
					"provider's machine tables) is a plan error listing the counts that exist; on " +
					"`gke-autopilot` the count must be one Autopilot offers for the model. Unknown machines " +
					"(`generic`) accept any count. With a preference list, models that cannot hold the count get a warning.",
				Required: true,
			},
			"requests": schema.Int64Attribute{
				MarkdownDescription: "Optional explicit request; it must equal `count` (Kubernetes rejects anything else).",
				Optional:            true,
			},
			"accelerator": tfconv.OneOf(catalog.AcceleratorNames(), "Accelerator the pods must run on: one of ", ".",
				stringvalidator.ConflictsWith(path.MatchRelative().AtParent().AtName("accelerators"))),
			"accelerators": schema.ListAttribute{
				MarkdownDescription: "Acceptable accelerators in order of preference: the pods may run on any of them and " +
					"prefer the earlier ones. Values as for `accelerator`.",
				Optional:    true,
				ElementType: types.StringType,
				Validators: []validator.List{
					listvalidator.SizeAtLeast(1),
					listvalidator.UniqueValues(),
					listvalidator.ValueStringsAre(stringvalidator.OneOf(catalog.AcceleratorNames()...)),
				},
			},
			"partition": schema.StringAttribute{
				MarkdownDescription: "MIG profile of each GPU, e.g. `2g.10gb`; must be one the accelerator supports.",
				Optional:            true,
			},
			"mig_strategy": tfconv.OneOf(spec.MIGStrategyNames(), "How the device plugin exposes MIG devices: one of ",
				". `single` requests `nvidia.com/gpu` on nodes labelled with the partition; `mixed` requests "+
					"`nvidia.com/mig-<profile>`. Defaults to `single`."),
			"sharing": tfconv.OneOf(spec.SharingNames(), "GPU sharing the pods accept: one of ", "."),
			"max_shared_clients": schema.Int64Attribute{
				MarkdownDescription: "Maximum pods sharing one GPU (GKE `gke-max-shared-clients-per-gpu`). Requires `sharing`.",
				Optional:            true,
			},
		},
		Blocks: map[string]schema.Block{
			"dra": schema.SingleNestedBlock{
				MarkdownDescription: "Allocate GPUs with Dynamic Resource Allocation instead of the device plugin: a " +
					"ResourceClaimTemplate is created and referenced by the pods (Kubernetes 1.32+).",
				Attributes: map[string]schema.Attribute{
					"device_class": schema.StringAttribute{
						MarkdownDescription: "DeviceClass, e.g. `gpu.nvidia.com` (the default for whole GPUs) or `mig.nvidia.com` (the default with `partition`).",
						Optional:            true,
					},
					"selectors": schema.ListAttribute{
						MarkdownDescription: "CEL expressions a device must also satisfy: the escape hatch for what no attribute " +
							"says. Each is compiled at plan time with Kubernetes' own CEL library; one that does not compile, " +
							"names an attribute NVIDIA's driver does not publish (`index`, `minor`) or is false on every device " +
							"of the requested accelerator or partition is an error on that selector. Without selectors the " +
							"claim is derived from `count`, `accelerator(s)`, `partition`, `min_memory` and `same`.",
						Optional:    true,
						ElementType: types.StringType,
					},
					"min_memory": schema.StringAttribute{
						MarkdownDescription: "Least memory each device must have, a Kubernetes quantity such as `40Gi`: a " +
							"selector on the driver's `memory` capacity. More than every requested model has is a plan error.",
						Optional: true,
					},
					"same": tfconv.OneOf(spec.DRASameNames(), "Put every device of the claim on one: ",
						" (a `matchAttribute` constraint on the standard `resource.kubernetes.io/pcieRoot` or "+
							"`resource.kubernetes.io/numaNode` attribute). NVIDIA's DRA driver publishes the NUMA node from v0.5.0 on; v0.4.x does not."),
				},
			},
		},
	}
}

// OptionalBlock is the gpu block of a pod that may have no GPUs (a Ray
// cluster's head or worker group): Block's attributes under the caller's
// description, the block itself optional. count cannot stay Required: the
// framework then demands it of an absent single nested block too, so the
// block requires it instead whenever it is there.
func OptionalBlock(description string) schema.SingleNestedBlock {
	b := Block()
	b.MarkdownDescription = description
	b.Validators = []validator.Object{objectvalidator.AlsoRequires(path.MatchRelative().AtName("count"))}
	count, _ := b.Attributes["count"].(schema.Int64Attribute)
	count.Required, count.Optional = false, true
	count.MarkdownDescription += " Required in the block."
	b.Attributes["count"] = count
	return b
}
