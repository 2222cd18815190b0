package gpuraycluster

import (
	"context"
	"fmt"
	"maps"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	k8stypes "k8s.io/apimachinery/pkg/types"
	utilversion "k8s.io/apimachinery/pkg/util/version"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/ray"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// applyCluster renders the plan for the live server, applies every object
// with server-side apply (the groups' claim templates first, the Ray
// object last), removes companions the prior configuration had and this
// one does not, and waits. State is written once the Ray object exists, so
// a failed wait never loses track of it.
func (r *rayClusterResource) applyCluster(ctx context.Context, client *kube.Client, plan, prior *clusterModel, state *tfsdk.State,
	diags *diag.Diagnostics) {
	in := intentFromModel(ctx, *plan, r.DefaultCloud(), resourcekit.Final)
	diags.Append(in.diags...)
	rendered, ok := renderFor(ctx, client, in, true, diags)
	if !ok || !operatorInstalled(ctx, client, rendered, diags) || !annotateSpec(rendered, in, *plan, diags) {
		return
	}
	if plan.Manifest.IsUnknown() {
		plan.Manifest = types.StringValue(rendered.Manifest) // planned without the server's DRA version
	}
	if !resourcekit.CheckLocalQueue(ctx, client, rendered.Object().GetNamespace(), queueName(rendered), "Ray cluster", diags) {
		return
	}
	warnUnadvertisedNetworks(ctx, client, rendered, diags)
	if prior == nil && !refuseForeignObject(ctx, client, rendered, diags) {
		return
	}
	if prior != nil {
		if err := keepOwnedFields(ctx, client, rendered, in.cluster); err != nil {
			diags.AddError("Cannot read the Ray object before applying", err.Error())
			return
		}
	}
	main, ok := r.ApplyOver(ctx, client, rendered.Objects, nil, plan, prior, state, diags)
	if !ok {
		return
	}
	waitErr := waitCluster(ctx, client, *plan, rendered, main)
	if plan.State.IsUnknown() {
		plan.State = types.StringValue(liveStatus(context.WithoutCancel(ctx), client, rendered))
	}
	diags.Append(resourcekit.SetRenderedState(ctx, state, plan)...)
	if waitErr != nil {
		reportWait(context.WithoutCancel(ctx), client, r.Data, *plan, rendered, main, waitErr, diags)
	}
}

// renderFor renders a final intent; with the server's version when
// asked, or when a group's DRA claim depends on it.
func renderFor(ctx context.Context, client *kube.Client, in clusterIntent, ask bool, diags *diag.Diagnostics) (*ray.Rendered, bool) {
	var version *utilversion.Version
	if ask || in.usesDRA() {
		v, err := client.ServerVersion(ctx)
		if err != nil {
			diags.AddError("Cannot reach the cluster", err.Error())
			return nil, false
		}
		version = v
	}
	rendered, rdiags := in.render(version)
	diags.Append(resourcekit.RenderDiagnostics(rdiags)...)
	if rendered == nil && !diags.HasError() {
		diags.AddError("Provider bug: cannot render gpu_ray_cluster", "The cluster's values are not all known at apply.")
	}
	return rendered, !diags.HasError()
}

// operatorInstalled: without KubeRay's CRD the API server answers a bare
// 404, which does not say that the operator is missing.
func operatorInstalled(ctx context.Context, client *kube.Client, rendered *ray.Rendered, diags *diag.Diagnostics) bool {
	gvk := rendered.Object().GetObjectKind().GroupVersionKind()
	if client.RayCRDMissing(ctx, gvk) {
		diags.AddError("KubeRay is not installed", fmt.Sprintf("The cluster has no %s CRD (%s), so nothing would run "+
			"this %s. Install the KubeRay operator (v1.5 or later), or set apply = false to only render the manifests.",
			gvk.Kind, gvk.GroupVersion(), gvk.Kind))
		return false
	}
	return true
}

// refuseForeignObject stops a create from taking over a Ray object that
// exists already: server-side apply would merge into it and a destroy
// would delete someone else's cluster. Import adopts one instead.
func refuseForeignObject(ctx context.Context, client *kube.Client, rendered *ray.Rendered, diags *diag.Diagnostics) bool {
	ref, live, ok := resourcekit.LiveBeforeCreate(ctx, client, "gpu_ray_cluster", rendered.Object(), diags)
	switch {
	case !ok:
		return false
	case live == nil:
		return true
	case resourcekit.InterruptedCreate(live, rendered.Object(), client.FieldManager):
		diags.AddWarning("Taking over a Ray cluster from an interrupted apply", fmt.Sprintf("%s already exists with "+
			"exactly this configuration, applied by this provider's field manager %q, but is not in the state: an "+
			"earlier apply was interrupted before it could record it. It is managed by this resource from now on.",
			ref, client.FieldManager))
		return true
	}
	diags.AddError("Ray object already exists", fmt.Sprintf("%s exists and is not in this resource's state. Import it "+
		"(terraform import <address> %s/%s) to manage it, or choose another name.", ref, ref.Namespace, ref.Name))
	return false
}

// renderedObjects are the objects state's configuration renders (a
// group's DRA claim template, then the Ray object), without the server's
// version; nil when it does not render.
func renderedObjects(ctx context.Context, state clusterModel, defaultCloud string) []workload.Object {
	rendered, rdiags := intentFromModel(ctx, state, defaultCloud, resourcekit.Final).render(nil)
	if rdiags.HasError() || rendered == nil {
		return nil
	}
	return rendered.Objects
}

// refreshCluster reads the live objects and records, as the manifest,
// what the cluster holds for the fields this resource manages. It reports
// true when the Ray object is gone.
func refreshCluster(ctx context.Context, client *kube.Client, state *clusterModel, defaultCloud string) (bool, diag.Diagnostics) {
	var diags diag.Diagnostics
	in := intentFromModel(ctx, *state, defaultCloud, resourcekit.Final)
	rendered, ok := renderFor(ctx, client, in, false, &diags)
	if !ok {
		return false, diags
	}
	objects, err := resourcekit.ReadBack(ctx, client, rendered.Objects)
	if err != nil {
		diags.AddError("Cannot read gpu_ray_cluster", err.Error())
		return false, diags
	}
	main := objects[len(objects)-1]
	if main.Live == nil {
		return true, diags
	}
	projected := resourcekit.Projections(objects)
	withoutOwnedFields(projected[len(projected)-1], main.Desired, in.cluster)
	if queueName(rendered) != "" {
		statuses, err := queueStatuses(ctx, client, rendered, main.Live.GetUID())
		if err != nil {
			diags.AddWarning("Cannot read the Ray cluster's queue", err.Error())
		}
		resourcekit.EvictionWarning(main.Ref, statuses, &diags)
	}
	manifest, err := workload.EncodeManifest(projected)
	if err != nil {
		diags.AddError("Cannot read gpu_ray_cluster", err.Error())
		return false, diags
	}
	state.Manifest, state.UID = types.StringValue(manifest), types.StringValue(string(main.Live.GetUID()))
	state.State = types.StringValue(kube.RayStatus(main.Live, main.Ref.GVK.Kind))
	state.NumGPUs, state.Kind = numGPUs(rendered), types.StringValue(main.Ref.GVK.Kind)
	return false, diags
}

// deleteCluster deletes the Ray object (KubeRay's pods and, for a RayJob or
// RayService, its clusters go with it through their owner references),
// waits until its pods are gone and Kueue released its quota, then deletes
// the companions the pods used.
func deleteCluster(ctx context.Context, client *kube.Client, state clusterModel, defaultCloud string) diag.Diagnostics {
	var diags diag.Diagnostics
	rendered, ok := renderFor(ctx, client, intentFromModel(ctx, state, defaultCloud, resourcekit.Final), false, &diags)
	if !ok {
		return diags
	}
	uid := k8stypes.UID(state.UID.ValueString())
	return resourcekit.DeleteRendered(ctx, client, "gpu_ray_cluster", rendered.Objects, uid,
		func(ref kube.ObjectRef) (string, []string) {
			return podSelector(rendered), kueueWorkloadNames(ctx, client, rendered, ref, uid)
		})
}

// podSelector selects every Ray pod of the cluster: the render's name
// label and the provider's managed-by label, which its pod templates
// carry, and KubeRay's node-type label, which only Ray pods have (a
// gpu_workload of the same name in the namespace has the same name label).
func podSelector(r *ray.Rendered) string {
	labels := maps.Clone(r.ClusterSpec().HeadGroupSpec.Template.Labels)
	parts := []string{spec.LabelName + "=" + labels[spec.LabelName]}
	if v, ok := labels[spec.LabelManagedBy]; ok {
		parts = append(parts, spec.LabelManagedBy+"="+v)
	}
	return strings.Join(append(parts, labelRayNodeType), ",")
}

// labelRayNodeType is the label KubeRay puts on every Ray pod (head or
// worker), utils.RayNodeTypeLabelKey.
const labelRayNodeType = "ray.io/node-type"
