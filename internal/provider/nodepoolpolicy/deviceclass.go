package nodepoolpolicy

import (
	"context"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/dra"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kubever"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// A DRA pool's DeviceClass is the one cluster object every such pool
// needs: its workloads' claims name it, so without it no claim is ever
// allocated. The pool applies it (server-side apply) on create and update,
// reports it missing or changed as drift, and deletes it on destroy.

var deviceClassGVK = schema.GroupVersionKind{Group: "resource.k8s.io", Version: "v1", Kind: "DeviceClass"}

// usesDRA reports whether the model's pool hands out GPUs through DRA.
func (m nodePoolPolicyModel) usesDRA() bool {
	return m.GPUAllocation.ValueString() == spec.GPUAllocationDRA
}

// appliesDeviceClass: the pool keeps its DeviceClass in the cluster (a DRA
// pool, unless apply_device_class = false renders it for GitOps alone).
func (m nodePoolPolicyModel) appliesDeviceClass() bool {
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
func removeDeviceClass(ctx context.Context, client *kube.Client, prior nodePoolPolicyModel) diag.Diagnostics {
	var diags diag.Diagnostics
	if err := client.Delete(ctx, deviceClassRef(prior.Name.ValueString()), ""); err != nil {
		diags.AddError("Cannot delete the pool's DeviceClass", err.Error())
	}
	return diags
}

// appliedObjects are the objects the policy keeps in the cluster: its
// DeviceClass when it applies one. (Node labels and the device plugin's
// ConfigMap entry are parts of objects others own, released on their own.)
func (m nodePoolPolicyModel) appliedObjects() []workload.Object {
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
func pruneDeviceClass(ctx context.Context, client *kube.Client, prior, plan nodePoolPolicyModel) diag.Diagnostics {
	return resourcekit.Prune(prior.appliedObjects(), plan.appliedObjects(), func(kube.ObjectRef) diag.Diagnostics {
		return removeDeviceClass(ctx, client, prior)
	})
}

// judgeByKubernetes sets the version a DRA pool's DeviceClass is rendered
// for (its extendedResourceName depends on it,
// docs/design/dra-versions.md#3-charts-and-hand-written-pods-on-dra-pools): the
// cluster's when it answers, else kubernetes_version, else the floor.
// Other pools need no version, so their plans stay offline.
func (r *poolPolicyResource) judgeByKubernetes(ctx context.Context, p *spec.PoolPolicy) diag.Diagnostics {
	if !p.UsesDRA() {
		return nil
	}
	k, diags := r.Data.Kubernetes(ctx)
	p.Kubernetes = k
	return diags
}

// planDeviceClassYAML: a class rendered for a version the cluster did not
// confirm (kubernetes_version, or the floor assumed while the configured
// cluster did not answer) may differ at apply, where the cluster answers.
// The plan then keeps the state's class, or leaves a new one unknown;
// apply renders it for the cluster's version (applyDeviceClassYAML).
func (r *poolPolicyResource) planDeviceClassYAML(ctx context.Context, req resource.ModifyPlanRequest, p spec.PoolPolicy, plan *nodePoolPolicyModel) {
	if !plan.appliesDeviceClass() || p.Kubernetes.Source == kubever.FromCluster || r.Data == nil || !r.Data.Kube.Configured() {
		return
	}
	if !req.State.Raw.IsNull() {
		var prior types.String
		req.State.GetAttribute(ctx, path.Root("device_class_yaml"), &prior)
		if !prior.IsNull() && !prior.IsUnknown() {
			plan.DeviceClassYAML = prior
			return
		}
	}
	plan.DeviceClassYAML = types.StringUnknown()
}

// applyDeviceClassYAML fills a class the plan left unknown, and refuses
// to apply one that differs from the plan's (the cluster's version moved
// since the plan); false after that error.
func applyDeviceClassYAML(plan *nodePoolPolicyModel, rendered *spec.PoolRendered, diags *diag.Diagnostics) bool {
	switch {
	case !plan.appliesDeviceClass():
	case plan.DeviceClassYAML.IsUnknown():
		plan.DeviceClassYAML = types.StringValue(rendered.DeviceClass)
	case plan.DeviceClassYAML.ValueString() != rendered.DeviceClass:
		diags.AddAttributeError(path.Root("device_class_yaml"), "The pool's DeviceClass changed since the plan",
			"Rendered for the Kubernetes version the cluster reports now, the pool's DeviceClass differs from the planned "+
				"device_class_yaml (its extendedResourceName follows the version, docs/design/dra-versions.md). Nothing was "+
				"applied. Allowed: plan again with the cluster reachable, or set the provider's kubernetes_version to the "+
				"cluster's minor.")
		return false
	}
	return true
}

// extendedResourceClash warns when the pool's extended resource is served
// from another DeviceClass: Kubernetes maps a pod's request for it to the
// newest class that carries the name (dra.ExtendedResourceOwner), so
// pods asking it on this pool's nodes would wait for that class's devices.
// A failed list is left alone: the warning is advice, not the apply.
func extendedResourceClash(ctx context.Context, client *kube.Client, rendered *spec.PoolRendered) diag.Diagnostics {
	var diags diag.Diagnostics
	name := rendered.ExtendedResourceName
	if name == "" {
		return diags
	}
	classes, err := client.ClassesWithExtendedResource(ctx, name)
	owner := dra.ExtendedResourceOwner(classes)
	if err != nil || owner == "" || owner == rendered.DeviceClassName {
		return diags
	}
	var others []string
	for _, c := range classes {
		if c.Name != rendered.DeviceClassName {
			others = append(others, strconv.Quote(c.Name))
		}
	}
	diags.AddAttributeWarning(path.Root("device_class_name"), "Another DeviceClass serves "+name,
		"DeviceClasses "+strings.Join(others, ", ")+" also carry extendedResourceName "+strconv.Quote(name)+", and "+
			"Kubernetes serves a pod asking "+name+" from the newest, "+strconv.Quote(owner)+", not from this pool's "+
			strconv.Quote(rendered.DeviceClassName)+": pods written for the device plugin (charts' GPU pods from "+
			"gpu_operator_values, hand-written ones) on this pool's nodes wait for that class's devices. Allowed: one "+
			"DeviceClass per extended resource name: drop it from the other class (NVIDIA's chart sets it on "+
			"gpu.nvidia.com), or keep one whole-GPU DRA pool per cluster for such pods.")
	return diags
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
	if name, _, _ := unstructured.NestedString(live.Object, "spec", "extendedResourceName"); name != ptr.Deref(want.Spec.ExtendedResourceName, "") {
		// Edited, or the cluster's Kubernetes moved across 1.36.
		return []string{"DeviceClass " + want.Name + " extendedResourceName is " + strconv.Quote(name) + ", not " +
			strconv.Quote(ptr.Deref(want.Spec.ExtendedResourceName, ""))}, diags
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
