package gpuraycluster

import (
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
)

// NewResource returns the gpu_ray_cluster resource.
func NewResource() resource.Resource {
	r := resourcekit.New[rayClusterResource]("_ray_cluster")
	r.Steps = resourcekit.RenderedSteps[clusterModel]{Apply: r.applyCluster, Refresh: refreshCluster, Remove: deleteCluster,
		Objects: renderedObjects}
	return r
}

type rayClusterResource struct {
	resourcekit.RenderedResource[clusterModel, *clusterModel]
}

var (
	_ resource.ResourceWithModifyPlan     = &rayClusterResource{}
	_ resource.ResourceWithValidateConfig = &rayClusterResource{}
	_ resource.ResourceWithImportState    = &rayClusterResource{}
)
