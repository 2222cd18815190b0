package gpuraycluster

import (
	"context"
	"reflect"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/refs"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// clusterModel is gpu_ray_cluster's Terraform data. The attributes only
// render reads (image, ray_version, labels, ...) stay in Intent and go to
// spec.RayCluster by name; the blocks are decoded by name too, into
// spec.RayGroup, spec.RayJobControls and spec.RayServeControls.
type clusterModel struct {
	Intent tfconv.Attributes
	// RenderedAttributes are the attributes gpu_workload has too (listed
	// where they are declared, in resourcekit).
	resourcekit.RenderedAttributes
	Autoscaling  types.Object `tfsdk:"autoscaling"`
	Head         types.Object `tfsdk:"head"`
	WorkerGroups types.List   `tfsdk:"worker_group"`
	Job          types.Object `tfsdk:"job"`
	Serve        types.Object `tfsdk:"serve"`
	Kind         types.String `tfsdk:"kind"`
	State        types.String `tfsdk:"state"`
	NumGPUs      types.Map    `tfsdk:"num_gpus"`
}

// converter decodes the blocks: node_pool refs into their policies, and
// gpu blocks so that an unknown one (a dynamic block) stays a GPU request
// of unknown count rather than "no GPUs", which would make a num-gpus in
// ray_start_params look contradictory.
func converter(ctx context.Context) *tfconv.Converter {
	c := &tfconv.Converter{Ctx: ctx}
	poolType, poolHook := tfconv.HookFor(func(_ []any, v attr.Value) *spec.PoolPolicy {
		o, ok := v.(types.Object)
		if !ok || o.IsNull() {
			return nil
		}
		if refs.PoolCloudUnknown(o) {
			c.Unknown = true
			return nil
		}
		return refs.Pool(c, o)
	})
	gpuType, gpuHook := tfconv.HookFor(func(at []any, v attr.Value) *spec.GPU {
		o, ok := v.(types.Object)
		switch {
		case !ok || o.IsNull():
			return nil
		case o.IsUnknown():
			c.Unknown = true
			return &spec.GPU{}
		}
		return tfconv.DecodeAt[spec.GPU](c, at, o)
	})
	c.Hooks = map[reflect.Type]tfconv.DecodeHook{poolType: poolHook, gpuType: gpuHook}
	return c
}

// clusterFromModel converts the model into render's intent, with the pools of
// the groups decoded from their refs; queue and the cloud default are the
// caller's (intentFromModel).
func clusterFromModel(c *tfconv.Converter, m clusterModel) spec.RayCluster {
	rc := spec.RayCluster{
		Name:        c.Str(m.Name),
		Namespace:   c.Str(m.Namespace),
		Cloud:       c.Str(m.Cloud),
		Autoscaling: tfconv.Decode[spec.RayAutoscaling](c, m.Autoscaling),
		Job:         tfconv.Decode[spec.RayJobControls](c, m.Job),
		Serve:       tfconv.Decode[spec.RayServeControls](c, m.Serve),
	}
	m.Intent.DecodeInto(c, &rc)
	if head := tfconv.Decode[spec.RayGroup](c, m.Head); head != nil {
		rc.Head = *head
	}
	tfconv.DecodeInto(c, m.WorkerGroups, &rc.WorkerGroups)
	return rc
}
