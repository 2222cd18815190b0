package gpuqueue

import (
	"context"
	_ "embed"
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/refs"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/queue"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// queueModel is gpu_queue's configuration and state.
type queueModel struct {
	// Intent holds what only render reads: cloud, namespaces,
	// local_queue_name, cohort, queueing_strategy, and the preemption and
	// flavor blocks (Terraform values until decoded, so a dynamic block over
	// values known only after apply stays unknown instead of failing).
	Intent    tfconv.Attributes
	ID        types.String `tfsdk:"id"`
	Ref       types.Object `tfsdk:"ref"`
	Name      types.String `tfsdk:"name"`
	Apply     types.Bool   `tfsdk:"apply"`
	Manifests types.List   `tfsdk:"manifests"`
	// DeviceClassMappings is what Kueue's Configuration must map for the
	// DRA flavors (queue.Rendered.DeviceClassMappings).
	DeviceClassMappings types.List     `tfsdk:"kueue_device_class_mappings"`
	Timeouts            timeouts.Value `tfsdk:"timeouts"`
}

// queueFromModelWith converts the model; unknown values become zero values (and set
// c.unknown), as for workloads. The provider's default_cloud plays no part:
// every pool ref names its cloud, and the queue takes the first pool's, so
// the configuration alone decides (and import restores it exactly). An
// unknown flavor (a dynamic block over values known after apply) keeps its
// place, so later indices still match the configuration.
func queueFromModelWith(c *tfconv.Converter, m queueModel) spec.Queue {
	q := spec.Queue{Name: c.Str(m.Name)}
	m.Intent.DecodeInto(c, &q)
	return q
}

// description is gpu_queue's description, which opens its docs page.
//
//go:embed gpu_queue.md
var description string

// Schema describes gpu_queue.
func (r *queueResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: tfconv.MarkdownFile(description),
		Attributes:          queueAttributes(),
		Blocks: map[string]schema.Block{
			"flavor":     queueFlavorBlock(),
			"preemption": queuePreemptionBlock(),
			"timeouts":   timeouts.Block(ctx, timeouts.Opts{Delete: true}),
		},
		Version: 2,
	}
}

// UpgradeState reads states written while manifest held the objects
// (version 0) and while the id carried the queue's reference and each
// flavor's node_pool the pool's legacy id (versions 0 and 1).
func (r *queueResource) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	return resourcekit.ManifestsThenRefsUpgraders(upgradeRefs)
}

// upgradeRefs turns the legacy id into the name and ref, and each flavor's
// legacy pool id into the pool's ref.
func upgradeRefs(_ context.Context, attrs map[string]any) error {
	attrs["ref"] = nil
	if id, ok := attrs["id"].(string); ok {
		ref, isLegacy, err := refs.QueueRefOfLegacyID(id)
		if err != nil {
			return fmt.Errorf("the stored id of this gpu_queue: %w", err)
		}
		if isLegacy {
			if attrs["ref"], err = refs.QueueStateJSON(*ref); err != nil {
				return err
			}
			attrs["id"] = queue.ID(*ref)
		}
	}
	flavors, _ := attrs["flavor"].([]any)
	for i, f := range flavors {
		flavor, ok := f.(map[string]any)
		if !ok {
			continue
		}
		if err := refs.UpgradePoolReference(flavor, "node_pool"); err != nil {
			return fmt.Errorf("flavor[%d]: %w", i, err)
		}
	}
	return nil
}

func queueAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"id": schema.StringAttribute{
			MarkdownDescription: "The queue's `name`.",
			Computed:            true,
		},
		"ref": schema.ObjectAttribute{
			MarkdownDescription: "What a workload is checked against, as one object, for `gpu_workload.queue`: the LocalQueue " +
				"name, the namespaces, and per flavor the pool's accelerator, GPU resource, quota and node labels. Known at plan.",
			AttributeTypes: refs.QueueType.AttrTypes,
			Computed:       true,
		},
		"name": schema.StringAttribute{
			MarkdownDescription: "Name of the `ClusterQueue` (a DNS-1123 label), and of the LocalQueues unless `local_queue_name` is set.",
			Required:            true,
			Validators:          []validator.String{tfconv.DNSLabel("queue name")},
			PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
		},
		"cloud": tfconv.OneOf(clouds.PoolNames(), "Cloud of the cluster: one of ", ". Every pool must be on it. "+
			"Defaults to the first pool's cloud (the provider's `default_cloud` plays no part: pools name their cloud)."),
		"namespaces": schema.ListAttribute{
			MarkdownDescription: "Team namespaces: each gets a `LocalQueue`, and the ClusterQueue admits work from these " +
				"namespaces only. The namespaces must exist. Empty: no LocalQueue is created and any namespace may point one at the ClusterQueue.",
			ElementType: types.StringType,
			Optional:    true,
			Validators:  []validator.List{listvalidator.UniqueValues(), listvalidator.ValueStringsAre(tfconv.DNSLabel("namespace"))},
		},
		"local_queue_name": schema.StringAttribute{
			MarkdownDescription: "Name of the LocalQueues (a DNS-1123 label). Defaults to `name`.",
			Optional:            true,
			Validators:          []validator.String{tfconv.DNSLabel("LocalQueue name")},
		},
		"cohort": schema.StringAttribute{
			MarkdownDescription: "Cohort of the ClusterQueue: queues of one cohort lend unused quota of the same pool to " +
				"each other. Required for `borrowing_limit` and `lending_limit`.",
			Optional:   true,
			Validators: []validator.String{tfconv.DNSLabel("cohort")},
		},
		"queueing_strategy": tfconv.OneOf(spec.QueueingStrategyNames(), "Order of admission: one of ", ". Defaults to `"+
			spec.QueueingBestEffortFIFO+"` (a workload that does not fit does not block smaller ones behind it)."),
		"apply": resourcekit.ApplyAttribute(),
		"kueue_device_class_mappings": schema.ListNestedAttribute{
			MarkdownDescription: "For flavors on DRA pools (`gpu_allocation = \"dra\"`): the entries Kueue's own " +
				"Configuration must hold under `resources.deviceClassMappings`, with its `DynamicResourceAllocation` feature " +
				"gate on (alpha in Kueue v0.17), for Kueue to count the pools' devices against the quota. A ClusterQueue " +
				"cannot set them: put them in Kueue's configuration (its Helm chart's manager config). Without them Kueue " +
				"refuses the workloads' claims (\"DeviceClass ... is not mapped\"), and with the gate off it admits them " +
				"without counting their GPUs. Each maps the pool's DeviceClass (`gpu_node_pool_policy.device_class_name`) to " +
				"the resource the ClusterQueue's quota is in, `<device class>/devices`. Empty without DRA pools; known at plan.",
			Computed: true,
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"name": schema.StringAttribute{
					MarkdownDescription: "The resource Kueue counts the devices as, which the ClusterQueue's quota names.",
					Computed:            true,
				},
				"device_class_names": schema.ListAttribute{
					MarkdownDescription: "The DeviceClasses counted as `name`: the pool's.",
					Computed:            true,
					ElementType:         types.StringType,
				},
			}},
		},
		"manifests": resourcekit.ManifestsAttribute("Every object (ResourceFlavors, ClusterQueue, LocalQueues) as canonical YAML, " +
			"one document per object, known at plan: `join(\"---\\n\", gpu_queue.x.manifests)` is one file of them for GitOps. " +
			"After a refresh they show the live objects' managed fields, so drift appears as a diff."),
	}
}

func queueFlavorBlock() schema.ListNestedBlock {
	return schema.ListNestedBlock{
		MarkdownDescription: "One node pool's share of the queue (at least one, at most " + strconv.Itoa(queue.MaxFlavors) + "). The GPU quota " +
			"is in the pool's own unit: exactly one of " + tfconv.MarkdownList(queue.Units()) + ", or none with `nodes` for the whole pool.",
		Validators: []validator.List{listvalidator.SizeAtLeast(1), listvalidator.SizeAtMost(queue.MaxFlavors)},
		NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
			"node_pool": refs.PoolAttribute("The node pool. Its ResourceFlavor is named after the pool and shared by every "+
				"queue using it; its node labels select exactly the pool's nodes (the cloud's pool-name label, so on GKE, AKS and EKS "+
				"name the cloud's node pool like the policy; GPU Feature Discovery's labels on generic clusters) plus what Kueue "+
				"needs to keep each pool's work in its own flavor. A queue Kueue could never admit a pool's work into is a plan error.", true),
			"nodes": schema.Int64Attribute{
				MarkdownDescription: "Size of the pool, when known: a quota above what it holds is refused, and without a quota the queue gets the whole pool.",
				Optional:            true,
				Validators:          []validator.Int64{int64validator.AtLeast(1)},
			},
			"gpus":          quotaAttribute("Whole GPUs (`nvidia.com/gpu`), for pools that neither partition nor share GPUs."),
			"mig_instances": quotaAttribute("MIG instances, for pools with `partition`: a pool of 8 GPUs cut into `2g.10gb` has 24 per node."),
			"shared_slots":  quotaAttribute("Shared slots, for pools with `sharing`: GPUs x `replicas`."),
			"cpu": schema.StringAttribute{
				MarkdownDescription: "CPU quota (a Kubernetes quantity). Defaults to the GPU quota x what a `gpu_workload` asking for one " +
					"unit of the pool requests by default: a whole GPU takes the sizing preset of the pool's model (e.g. 10 CPU on " +
					"A100 and H100), a MIG instance or shared slot that preset's small share (e.g. 1 CPU per `2g.10gb` instance).",
				Optional: true,
			},
			"memory": schema.StringAttribute{
				MarkdownDescription: "Memory quota (a Kubernetes quantity). Defaults like `cpu`.",
				Optional:            true,
			},
			"borrowing_limit": schema.Int64Attribute{
				MarkdownDescription: "At most this much more than the quota may be borrowed from the cohort, in the quota's unit. Unset: no limit. Needs `cohort`.",
				Optional:            true,
				Validators:          []validator.Int64{int64validator.AtLeast(0)},
			},
			"lending_limit": schema.Int64Attribute{
				MarkdownDescription: "At most this much of the quota is lent to the cohort, in the quota's unit. Unset: all unused quota. Needs `cohort`.",
				Optional:            true,
				Validators:          []validator.Int64{int64validator.AtLeast(0)},
			},
			"cpu_borrowing_limit":    hostLimitAttribute("CPU", "borrowed from the cohort", "borrowing_limit"),
			"memory_borrowing_limit": hostLimitAttribute("Memory", "borrowed from the cohort", "borrowing_limit"),
			"cpu_lending_limit":      hostLimitAttribute("CPU", "lent to the cohort", "lending_limit"),
			"memory_lending_limit":   hostLimitAttribute("Memory", "lent to the cohort", "lending_limit"),
		}},
	}
}

// hostLimitAttribute is a CPU or memory borrowing or lending limit.
func hostLimitAttribute(what, verb, gpuLimit string) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: what + " that may be " + verb + " (a Kubernetes quantity). Defaults to `" + gpuLimit + "`'s share of " +
			"this flavor's " + strings.ToLower(what) + " quota (a flavor that may borrow 4 of its 8 GPUs may borrow half its " +
			strings.ToLower(what) + " quota), and to no limit when `" + gpuLimit + "` is unset. Needs `cohort`.",
		Optional: true,
	}
}

func quotaAttribute(what string) schema.Int64Attribute {
	return schema.Int64Attribute{
		MarkdownDescription: "GPU quota in " + what + " Exactly one of " + tfconv.MarkdownList(queue.Units()) + " fits a pool; the others are plan errors.",
		Optional:            true,
		Validators: []validator.Int64{
			int64validator.AtLeast(0),
			int64validator.ConflictsWith(path.MatchRelative().AtParent().AtName("gpus"), path.MatchRelative().AtParent().AtName("mig_instances"),
				path.MatchRelative().AtParent().AtName("shared_slots")),
		},
	}
}

func queuePreemptionBlock() schema.SingleNestedBlock {
	return schema.SingleNestedBlock{
		MarkdownDescription: "When Kueue may evict admitted work to admit other work. Unset: never.",
		Attributes: map[string]schema.Attribute{
			"within_cluster_queue": preemptionAttribute("Preempt workloads of this queue: one of ", spec.WithinClusterQueuePolicyNames()),
			"reclaim_within_cohort": preemptionAttribute("Take back quota this queue lent to the cohort by preempting the borrowers: one of ",
				spec.ReclaimWithinCohortPolicyNames()),
			"borrow_within_cohort": preemptionAttribute("Preempt in other queues of the cohort while borrowing: one of ",
				spec.BorrowWithinCohortPolicyNames()),
		},
	}
}

func preemptionAttribute(what string, allowed []string) schema.StringAttribute {
	return tfconv.OneOf(allowed, what, ". Defaults to `Never`.")
}

var deviceClassMappingType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"name": types.StringType, "device_class_names": types.ListType{ElemType: types.StringType},
}}

// deviceClassMappingsFrom is the kueue_device_class_mappings attribute of
// a rendered queue: an empty list without DRA flavors.
func deviceClassMappingsFrom(rendered *queue.Rendered) types.List {
	elems := make([]attr.Value, 0, len(rendered.DeviceClassMappings))
	for _, m := range rendered.DeviceClassMappings {
		classes := make([]attr.Value, len(m.DeviceClassNames))
		for i, c := range m.DeviceClassNames {
			classes[i] = types.StringValue(c)
		}
		elems = append(elems, types.ObjectValueMust(deviceClassMappingType.AttrTypes, map[string]attr.Value{
			"name": types.StringValue(m.Name), "device_class_names": types.ListValueMust(types.StringType, classes),
		}))
	}
	return types.ListValueMust(deviceClassMappingType, elems)
}
