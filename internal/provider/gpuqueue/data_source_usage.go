package gpuqueue

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/queue"
)

// NewUsageDataSource returns the gpu_queue_usage data source.
func NewUsageDataSource() datasource.DataSource {
	return resourcekit.New[queueUsageDataSource]("_queue_usage")
}

// queueUsageDataSource reports Kueue's ClusterQueues: quota, reserved and
// used per flavor and resource, admitted and pending workloads. It is
// gpu_cluster_capacity's sibling for shared fleets: capacity says what the
// nodes have, this what the teams may use and use.
type queueUsageDataSource struct{ resourcekit.DataSource }

type queueUsageModel struct {
	Name   types.String      `tfsdk:"name"`
	Queues []queueUsageValue `tfsdk:"queues"`
}

type queueUsageValue struct {
	Name      string               `tfsdk:"name"`
	Cohort    string               `tfsdk:"cohort"`
	Active    bool                 `tfsdk:"active"`
	Inactive  string               `tfsdk:"inactive_reason"`
	Pending   int64                `tfsdk:"pending_workloads"`
	Admitted  int64                `tfsdk:"admitted_workloads"`
	Reserving int64                `tfsdk:"reserving_workloads"`
	Resources []resourceUsageValue `tfsdk:"resources"`
}

type resourceUsageValue struct {
	Flavor   string `tfsdk:"flavor"`
	Resource string `tfsdk:"resource"`
	Quota    string `tfsdk:"quota"`
	Reserved string `tfsdk:"reserved"`
	Used     string `tfsdk:"used"`
	Borrowed string `tfsdk:"borrowed"`
}

func (d *queueUsageDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{MarkdownDescription: desc, Computed: true}
	}
	count := func(desc string) schema.Int64Attribute {
		return schema.Int64Attribute{MarkdownDescription: desc, Computed: true}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Kueue's ClusterQueues as Kueue reports them: per flavor (node pool) and resource the quota, " +
			"what admitted work reserves and uses and what is borrowed from the cohort, and how many workloads are " +
			"admitted and pending. Reads the cluster while planning. Empty when Kueue is not installed.",
		Attributes: map[string]schema.Attribute{
			"name": schema.StringAttribute{
				MarkdownDescription: "Only the ClusterQueue of this name (a `gpu_queue`'s `name`). Unset: every ClusterQueue.",
				Optional:            true,
				Validators:          []validator.String{tfconv.DNSLabel("queue name")},
			},
			"queues": schema.ListNestedAttribute{
				MarkdownDescription: "One entry per ClusterQueue, sorted by name.",
				Computed:            true,
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name":                str("ClusterQueue name."),
					"cohort":              str("Cohort, empty when none."),
					"active":              schema.BoolAttribute{MarkdownDescription: "Kueue's `Active` condition.", Computed: true},
					"inactive_reason":     str("Why the queue is not active (for example a missing flavor), empty when active."),
					"pending_workloads":   count("Workloads waiting for quota."),
					"admitted_workloads":  count("Workloads admitted and running."),
					"reserving_workloads": count("Workloads holding quota (admitted, or reserved and waiting for admission checks)."),
					"resources": schema.ListNestedAttribute{
						MarkdownDescription: "Per flavor and resource, in the queue's order.",
						Computed:            true,
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"flavor":   str("ResourceFlavor: the node pool's name for a `gpu_queue`."),
							"resource": str("Resource, e.g. `nvidia.com/gpu`, `nvidia.com/mig-2g.10gb`, `cpu`."),
							"quota":    str("Nominal quota (a Kubernetes quantity)."),
							"reserved": str("Reserved by admitted workloads."),
							"used":     str("Used by admitted workloads."),
							"borrowed": str("Part of `used` borrowed from the cohort."),
						}},
					},
				}},
			},
		},
	}
}

func (d *queueUsageDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	// The framework's Get: this model holds plain Go values, which the model
	// codec does not.
	var m queueUsageModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	client, ok := d.Client(&resp.Diagnostics)
	if !ok {
		return
	}
	queues, err := client.ClusterQueues(ctx)
	if err != nil && !client.KueueMissing(ctx) {
		resp.Diagnostics.AddError("Cannot read Kueue's ClusterQueues", err.Error())
		return
	}
	m.Queues = []queueUsageValue{}
	for _, cq := range queues {
		if name := m.Name.ValueString(); name != "" && cq.Name != name {
			continue
		}
		m.Queues = append(m.Queues, queueUsageValueOf(queue.UsageOf(cq)))
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func queueUsageValueOf(u queue.Usage) queueUsageValue {
	v := queueUsageValue{Name: u.Name, Cohort: u.Cohort, Active: u.Active, Inactive: u.Inactive, Pending: u.Pending,
		Admitted: u.Admitted, Reserving: u.Reserving, Resources: []resourceUsageValue{}}
	for _, r := range u.Resources {
		v.Resources = append(v.Resources, resourceUsageValue(r))
	}
	return v
}
