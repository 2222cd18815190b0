package gpuraycluster

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"

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
	resourcekit.Within(ctx, plan.Timeouts.Create, defaultCreateTimeout, &resp.Diagnostics, func(ctx context.Context) {
		r.applyCluster(ctx, &plan, nil, &resp.State, &resp.Diagnostics)
	})
}

func (r *rayClusterResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, prior clusterModel
	resp.Diagnostics.Append(getModel(ctx, req.Plan, &plan)...)
	resp.Diagnostics.Append(getModel(ctx, req.State, &prior)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resourcekit.Within(ctx, plan.Timeouts.Update, defaultUpdateTimeout, &resp.Diagnostics, func(ctx context.Context) {
		r.applyCluster(ctx, &plan, &prior, &resp.State, &resp.Diagnostics)
	})
}

func (r *rayClusterResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state clusterModel
	if resp.Diagnostics.Append(getModel(ctx, req.State, &state)...); resp.Diagnostics.HasError() {
		return
	}
	r.Data.RefreshApplied(ctx, "gpu_ray_cluster", state.Apply.ValueBool(), resp,
		func() diag.Diagnostics { return setState(ctx, &resp.State, &state) },
		func(client *kube.Client) (bool, diag.Diagnostics) {
			return refreshCluster(ctx, client, &state, r.DefaultCloud())
		})
}

func (r *rayClusterResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state clusterModel
	resp.Diagnostics.Append(getModel(ctx, req.State, &state)...)
	if resp.Diagnostics.HasError() || !state.Apply.ValueBool() {
		return
	}
	r.Data.DeleteWithin(ctx, "gpu_ray_cluster", state.Timeouts.Delete, defaultDeleteTimeout, &resp.Diagnostics,
		func(ctx context.Context, client *kube.Client) diag.Diagnostics {
			return deleteCluster(ctx, client, state, r.DefaultCloud())
		})
}
