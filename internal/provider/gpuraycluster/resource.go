package gpuraycluster

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
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
	r.steps().Create(ctx, req, resp)
}

func (r *rayClusterResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.steps().Update(ctx, req, resp)
}

func (r *rayClusterResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.steps().Read(ctx, req, resp)
}

func (r *rayClusterResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	r.steps().Delete(ctx, req, resp)
}

// steps are what gpu_ray_cluster adds to the shared Create, Update, Read and
// Delete. Timeouts: a Ray cluster starts when its last group's pods run, on
// GPU nodes that pull multi-gigabyte Ray images, as gpu_workload's.
func (r *rayClusterResource) steps() resourcekit.RenderedSteps[clusterModel, *clusterModel] {
	return resourcekit.RenderedSteps[clusterModel, *clusterModel]{
		Data: r.Data, TypeName: "gpu_ray_cluster",
		CreateTimeout: 20 * time.Minute, UpdateTimeout: 20 * time.Minute, DeleteTimeout: 10 * time.Minute,
		Apply: r.applyCluster,
		Refresh: func(ctx context.Context, client *kube.Client, state *clusterModel) (bool, diag.Diagnostics) {
			return refreshCluster(ctx, client, state, r.DefaultCloud())
		},
		Remove: func(ctx context.Context, client *kube.Client, state clusterModel) diag.Diagnostics {
			return deleteCluster(ctx, client, state, r.DefaultCloud())
		},
	}
}
