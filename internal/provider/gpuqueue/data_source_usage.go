package gpuqueue

import (
	"context"
	_ "embed"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/queue"
)

// NewUsageDataSource returns the gpu_queue_usage data source. It reports
// Kueue's ClusterQueues: quota, reserved and used per flavor and resource,
// admitted and pending workloads. It is gpu_cluster_capacity's sibling for
// shared fleets: capacity says what the nodes have, this what the teams may
// use and use.
func NewUsageDataSource() datasource.DataSource {
	return resourcekit.NewDataSource(resourcekit.DataSourceSpec[queueUsageModel]{
		TypeSuffix: "_queue_usage", Schema: usageSchema, NeedsCluster: true, Read: readUsage,
	})
}

type queueUsageModel struct {
	Name   types.String `tfsdk:"name"`
	Queues types.List   `tfsdk:"queues"`
}

// usageDescription is gpu_queue_usage's description, which opens its docs
// page.
//
//go:embed gpu_queue_usage.md
var usageDescription string

// usageSchema is gpu_queue_usage's schema, read into queueUsageModel.
func usageSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: tfconv.MarkdownFile(usageDescription),
		Attributes: map[string]schema.Attribute{
			"name": schema.StringAttribute{
				MarkdownDescription: "Only the ClusterQueue of this name (a `gpu_queue`'s `name`). Unset: every ClusterQueue.",
				Optional:            true,
				Validators:          []validator.String{tfconv.DNSLabel("queue name")},
			},
			"queues": queuesAttribute(),
		},
	}
}

// queuesAttribute is the schema of the result and, through
// tfconv.EncodeOutput, its conversion from render's queue.Usage.
func queuesAttribute() schema.ListNestedAttribute {
	return resourcekit.ComputedObjects("One entry per ClusterQueue, sorted by name.",
		map[string]schema.Attribute{
			"name":                resourcekit.ComputedString("ClusterQueue name."),
			"cohort":              resourcekit.ComputedString("Cohort, empty when none."),
			"active":              schema.BoolAttribute{MarkdownDescription: "Kueue's `Active` condition.", Computed: true},
			"inactive_reason":     resourcekit.ComputedString("Why the queue is not active (for example a missing flavor), empty when active."),
			"pending_workloads":   resourcekit.ComputedInt64("Workloads waiting for quota."),
			"admitted_workloads":  resourcekit.ComputedInt64("Workloads admitted and running."),
			"reserving_workloads": resourcekit.ComputedInt64("Workloads holding quota (admitted, or reserved and waiting for admission checks)."),
			"resources": resourcekit.ComputedObjects("Per flavor and resource, in the queue's order.",
				map[string]schema.Attribute{
					"flavor":   resourcekit.ComputedString("ResourceFlavor: the node pool's name for a `gpu_queue`."),
					"resource": resourcekit.ComputedString("Resource, e.g. `nvidia.com/gpu`, `nvidia.com/mig-2g.10gb`, `cpu`."),
					"quota":    resourcekit.ComputedString("Nominal quota (a Kubernetes quantity)."),
					"reserved": resourcekit.ComputedString("Reserved by admitted workloads."),
					"used":     resourcekit.ComputedString("Used by admitted workloads."),
					"borrowed": resourcekit.ComputedString("Part of `used` borrowed from the cohort."),
				}),
		})
}

func readUsage(ctx context.Context, env resourcekit.ReadEnv, m *queueUsageModel, diags *diag.Diagnostics) {
	queues, err := env.Client.ClusterQueues(ctx)
	if err != nil && !env.Client.KueueMissing(ctx) {
		diags.AddError("Cannot read Kueue's ClusterQueues", err.Error())
		return
	}
	var usage []queue.Usage
	for _, cq := range queues {
		if name := m.Name.ValueString(); name == "" || cq.Name == name {
			usage = append(usage, queue.UsageOf(cq))
		}
	}
	m.Queues = tfconv.EncodeOutput[types.List](queuesAttribute(), usage, diags)
}
