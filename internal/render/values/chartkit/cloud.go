package chartkit

import (
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/validate"
)

// ResolveCloud is the values path's resolve step for its cloud: the name
// is checked (workload.ValidateCloud, the rule and diagnostics a
// gpu_workload's cloud gets) and looked up once, and every chart and helper
// below asks the clouds.Cloud it returns instead of the name. It is the one
// place under values a cloud name becomes rules: the front door
// (values.Generate) calls it for a chart, PlaceRequest for a request placed
// on its own. An unset or invalid name gives the unknown cloud (Known
// false), whose rules are the neutral ones.
func ResolveCloud(raw string, strict bool, diags *gpudiag.Diagnostics) clouds.Cloud {
	return clouds.Lookup(validate.Cloud(raw, strict, diags))
}
