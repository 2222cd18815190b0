package gpuqueue

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/refs"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/queue"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// defaultQueueDeleteTimeout bounds the wait for Kueue to release a deleted
// ClusterQueue and its flavors.
const defaultQueueDeleteTimeout = 5 * time.Minute

// NewResource returns the gpu_queue resource.
func NewResource() resource.Resource { return resourcekit.New[queueResource]("_queue") }

type queueResource struct{ resourcekit.Resource }

// ValidateConfig runs every rule configuration alone decides, where
// Terraform can point at the line.
func (r *queueResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	config, ok := resourcekit.Get[queueModel](ctx, req.Config, &resp.Diagnostics)
	if !ok {
		return
	}
	q, _ := queueFromModel(ctx, config, &resp.Diagnostics)
	resp.Diagnostics.Append(resourcekit.RenderDiagnostics(queue.Validate(q, false))...)
}

// ModifyPlan renders every object from configuration: no cluster call.
func (r *queueResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	plan, ok := resourcekit.Planned[queueModel](ctx, req, &resp.Diagnostics)
	if !ok {
		return
	}
	if plan.Apply.ValueBool() {
		r.Data.CheckCluster("This gpu_queue", &resp.Diagnostics)
	}
	q, unknown := queueFromModel(ctx, plan, &resp.Diagnostics)
	if unknown {
		plan.ID, plan.Manifests = plan.Name, types.ListUnknown(types.StringType)
		plan.Ref = types.ObjectUnknown(refs.QueueType.AttrTypes)
		plan.DeviceClassMappings = types.ListUnknown(deviceClassMappingType)
		resp.Diagnostics.Append(resourcekit.SetPlan(ctx, &resp.Plan, &plan)...)
		return
	}
	rendered, findings := queue.Render(q)
	// ValidateConfig reported what configuration alone decides.
	resp.Diagnostics.Append(resourcekit.RenderDiagnostics(resourcekit.Subtract(findings, queue.Validate(q, false)))...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(plan.setRendered(rendered)...)
	resp.Diagnostics.Append(resourcekit.SetPlan(ctx, &resp.Plan, &plan)...)
}

func (r *queueResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	plan, ok := resourcekit.Get[queueModel](ctx, req.Plan, &resp.Diagnostics)
	if !ok {
		return
	}
	r.applyQueue(ctx, &plan, nil, &resp.State, &resp.Diagnostics)
}

func (r *queueResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	plan, prior, ok := resourcekit.PlanAndPrior[queueModel](ctx, req, &resp.Diagnostics)
	if !ok {
		return
	}
	r.applyQueue(ctx, &plan, &prior, &resp.State, &resp.Diagnostics)
}

func (r *queueResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	state, ok := resourcekit.Get[queueModel](ctx, req.State, &resp.Diagnostics)
	if !ok || !state.Apply.ValueBool() {
		return
	}
	client, ok := r.Data.RefreshClient("gpu_queue", &resp.Diagnostics)
	if !ok {
		return
	}
	gone, diags := refreshQueue(ctx, client, &state)
	resp.Diagnostics.Append(diags...)
	switch {
	case resp.Diagnostics.HasError():
	case gone:
		resp.State.RemoveResource(ctx)
	default:
		resp.Diagnostics.Append(resourcekit.SetState(ctx, &resp.State, &state)...)
	}
}

func (r *queueResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	state, ok := resourcekit.Get[queueModel](ctx, req.State, &resp.Diagnostics)
	if !ok || !state.Apply.ValueBool() {
		return
	}
	ctx, cancel, client, ok := r.Data.Operation(ctx, "Cannot delete gpu_queue", state.Timeouts.Delete,
		defaultQueueDeleteTimeout, &resp.Diagnostics)
	defer cancel()
	if !ok {
		return
	}
	rendered, ok := renderQueueState(ctx, state, &resp.Diagnostics)
	if ok {
		resp.Diagnostics.Append(deleteQueue(ctx, client, rendered)...)
	}
}

// ImportState takes a ClusterQueue name and reads the configuration back
// from the annotation gpu_queue writes on it.
func (r *queueResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	client, ok := r.Data.Client("Cannot import gpu_queue", &resp.Diagnostics)
	if !ok {
		return
	}
	model, diags := importQueue(ctx, client, resp.State, req.ID)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resourcekit.SetState(ctx, &resp.State, model)...)
}

func renderQueueState(ctx context.Context, m queueModel, diags *diag.Diagnostics) (*queue.Rendered, bool) {
	q, _ := queueFromModel(ctx, m, diags)
	rendered, findings := queue.Render(q)
	diags.Append(resourcekit.RenderDiagnostics(findings)...)
	return rendered, !diags.HasError()
}

// queueFromModel converts the model, reporting what the conversion found; unknown
// says a value is not known until apply.
func queueFromModel(ctx context.Context, m queueModel, diags *diag.Diagnostics) (q spec.Queue, unknown bool) {
	conv := &tfconv.Converter{Ctx: ctx}
	q = queueFromModelWith(conv, m)
	diags.Append(conv.Diags...)
	return q, conv.Unknown
}
