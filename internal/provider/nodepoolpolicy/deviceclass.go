package nodepoolpolicy

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/dra"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// A DRA pool's DeviceClass is the one cluster object every such pool
// needs: its workloads' claims name it, so without it no claim is ever
// allocated. The pool applies it (server-side apply) on create and update,
// reports it missing or changed as drift, and deletes it on destroy.

var deviceClassGVK = schema.GroupVersionKind{Group: "resource.k8s.io", Version: "v1", Kind: "DeviceClass"}

// usesDRA reports whether the model's pool hands out GPUs through DRA.
func (m NodePoolPolicyModel) usesDRA() bool {
	return m.GPUAllocation.ValueString() == spec.GPUAllocationDRA
}

// appliesDeviceClass: the pool keeps its DeviceClass in the cluster (a DRA
// pool, unless apply_device_class = false renders it for GitOps alone).
func (m NodePoolPolicyModel) appliesDeviceClass() bool {
	return m.usesDRA() && !m.ApplyDeviceClass.Equal(types.BoolValue(false))
}

func deviceClassRef(policy string) kube.ObjectRef {
	return kube.ObjectRef{GVK: deviceClassGVK, Name: dra.PoolDeviceClassName(policy)}
}

// applyDeviceClass applies the rendered class of a DRA pool. force is off:
// a class of that name owned by another configuration is reported, not
// taken over.
func applyDeviceClass(ctx context.Context, client *kube.Client, rendered *spec.PoolRendered) diag.Diagnostics {
	var diags diag.Diagnostics
	if rendered.DeviceClassObject == nil {
		return diags
	}
	if _, err := client.Apply(ctx, rendered.DeviceClassObject, false); err != nil {
		diags.AddError("Cannot apply the pool's DeviceClass", err.Error()+
			". A DRA pool's workloads claim their GPUs through this class, so it must exist on the cluster.")
	}
	return diags
}

// removeDeviceClass deletes the prior state's class: destroy, a rename, or
// a pool that no longer uses DRA.
func removeDeviceClass(ctx context.Context, client *kube.Client, prior NodePoolPolicyModel) diag.Diagnostics {
	var diags diag.Diagnostics
	if err := client.Delete(ctx, deviceClassRef(prior.Name.ValueString()), ""); err != nil {
		diags.AddError("Cannot delete the pool's DeviceClass", err.Error())
	}
	return diags
}

// appliedObjects are the objects the policy keeps in the cluster: its
// DeviceClass when it applies one. (Node labels and the device plugin's
// ConfigMap entry are parts of objects others own, released on their own.)
func (m NodePoolPolicyModel) appliedObjects() []workload.Object {
	if !m.appliesDeviceClass() {
		return nil
	}
	class := &unstructured.Unstructured{}
	class.SetGroupVersionKind(deviceClassGVK)
	class.SetName(dra.PoolDeviceClassName(m.Name.ValueString()))
	return []workload.Object{class}
}

// pruneDeviceClass removes, through the prune step every resource shares,
// the class the prior state applied that the plan does not: a rename, or a
// pool that no longer uses DRA or no longer applies its class.
func pruneDeviceClass(ctx context.Context, client *kube.Client, prior, plan NodePoolPolicyModel) diag.Diagnostics {
	return resourcekit.Prune(prior.appliedObjects(), plan.appliedObjects(), func(kube.ObjectRef) diag.Diagnostics {
		return removeDeviceClass(ctx, client, prior)
	})
}

// deviceClassDrift compares the live class with the rendered one: missing,
// or its selectors edited.
func deviceClassDrift(ctx context.Context, client *kube.Client, rendered *spec.PoolRendered) ([]string, diag.Diagnostics) {
	var diags diag.Diagnostics
	want := rendered.DeviceClassObject
	if want == nil {
		return nil, diags
	}
	live, err := client.GetFresh(ctx, deviceClassRef(want.Labels[dra.LabelPool]))
	switch {
	case err != nil:
		diags.AddError("Cannot read the pool's DeviceClass", err.Error())
		return nil, diags
	case live == nil:
		return []string{"DeviceClass " + want.Name + " is missing"}, diags
	}
	if !sameSelectors(live.Object, want) {
		return []string{"DeviceClass " + want.Name + " selectors were edited"}, diags
	}
	return nil, diags
}

// sameSelectors compares the live class's CEL selectors, in order, with
// the rendered class's.
func sameSelectors(live map[string]any, want *resourcev1.DeviceClass) bool {
	selectors, _, _ := unstructured.NestedSlice(live, "spec", "selectors")
	if len(selectors) != len(want.Spec.Selectors) {
		return false
	}
	for i, s := range selectors {
		selector, _ := s.(map[string]any)
		expr, _, _ := unstructured.NestedString(selector, "cel", "expression")
		if want.Spec.Selectors[i].CEL == nil || expr != want.Spec.Selectors[i].CEL.Expression {
			return false
		}
	}
	return true
}
