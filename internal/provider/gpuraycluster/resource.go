package gpuraycluster

import (
	"context"
	"errors"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
)

// Timeouts: a Ray cluster starts when its last group's pods run, on GPU
// nodes that pull multi-gigabyte Ray images, as gpu_workload's.
const (
	defaultCreateTimeout = 20 * time.Minute
	defaultUpdateTimeout = 20 * time.Minute
	defaultDeleteTimeout = 10 * time.Minute
)

// NewResource returns the gpu_ray_cluster resource.
func NewResource() resource.Resource { return resourcekit.New[rayClusterResource]("_ray_cluster") }

type rayClusterResource struct{ resourcekit.Resource }

var (
	_ resource.ResourceWithModifyPlan     = &rayClusterResource{}
	_ resource.ResourceWithValidateConfig = &rayClusterResource{}
	_ resource.ResourceWithImportState    = &rayClusterResource{}
)

func (r *rayClusterResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan clusterModel
	if resp.Diagnostics.Append(getModel(ctx, req.Plan, &plan)...); resp.Diagnostics.HasError() {
		return
	}
	r.applyWithin(ctx, plan.Timeouts.Create, defaultCreateTimeout, &plan, nil, &resp.State, &resp.Diagnostics)
}

func (r *rayClusterResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, prior clusterModel
	resp.Diagnostics.Append(getModel(ctx, req.Plan, &plan)...)
	resp.Diagnostics.Append(getModel(ctx, req.State, &prior)...)
	if resp.Diagnostics.HasError() {
		return
	}
	r.applyWithin(ctx, plan.Timeouts.Update, defaultUpdateTimeout, &plan, &prior, &resp.State, &resp.Diagnostics)
}

// applyWithin applies within the timeouts block's limit for the operation.
func (r *rayClusterResource) applyWithin(ctx context.Context, timeout resourcekit.Timeout, def time.Duration,
	plan, prior *clusterModel, state *tfsdk.State, diags *diag.Diagnostics) {
	ctx, cancel, ok := resourcekit.WithTimeout(ctx, timeout, def, diags)
	defer cancel()
	if ok {
		r.applyCluster(ctx, plan, prior, state, diags)
	}
}

func (r *rayClusterResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state clusterModel
	if resp.Diagnostics.Append(getModel(ctx, req.State, &state)...); resp.Diagnostics.HasError() {
		return
	}
	if !state.Apply.ValueBool() {
		resp.Diagnostics.Append(setState(ctx, &resp.State, &state)...)
		return
	}
	client, err := r.Data.Kube.Client()
	if errors.Is(err, kube.ErrConfigUnknown) {
		resp.Diagnostics.Append(setState(ctx, &resp.State, &state)...)
		return // planned offline; refreshed once the cluster is known
	}
	if err != nil {
		resp.Diagnostics.AddError("Cannot read gpu_ray_cluster", err.Error())
		return
	}
	gone, diags := refreshCluster(ctx, client, &state, r.DefaultCloud())
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	if gone {
		resp.State.RemoveResource(ctx)
		return
	}
	resp.Diagnostics.Append(setState(ctx, &resp.State, &state)...)
}

func (r *rayClusterResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state clusterModel
	resp.Diagnostics.Append(getModel(ctx, req.State, &state)...)
	if resp.Diagnostics.HasError() || !state.Apply.ValueBool() {
		return
	}
	ctx, cancel, client, ok := r.Data.Operation(ctx, "Cannot delete gpu_ray_cluster", state.Timeouts.Delete,
		defaultDeleteTimeout, &resp.Diagnostics)
	defer cancel()
	if ok {
		resp.Diagnostics.Append(deleteCluster(ctx, client, state, r.DefaultCloud())...)
	}
}
