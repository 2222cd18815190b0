package resourcekit

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// RenderedModel is a pointer to the model of a resource that applies the
// objects it renders and keeps them in its state (gpu_workload,
// gpu_ray_cluster): the model embeds RenderedAttributes, which the shared
// steps below read and write.
type RenderedModel[M any] interface {
	*M
	Rendered() *RenderedAttributes
}

// GetRendered decodes a configuration, plan or state into *into (the
// codec's rules, Get), with the stream joined from manifests.
func GetRendered[M any, PM RenderedModel[M], D Source](ctx context.Context, from D, into *M) diag.Diagnostics {
	var diags diag.Diagnostics
	*into, _ = Get[M](ctx, from, &diags)
	a := PM(into).Rendered()
	a.Manifest = JoinManifests(a.Manifests)
	return diags
}

// SetRenderedState writes *m into state with manifests split from the
// stream: every write of the model splits it, so the two never disagree and
// no caller has to remember it.
func SetRenderedState[M any, PM RenderedModel[M]](ctx context.Context, state *tfsdk.State, m *M) diag.Diagnostics {
	splitManifests[M, PM](m)
	return SetState(ctx, state, m)
}

// SetRenderedPlan writes *m into plan, as SetRenderedState.
func SetRenderedPlan[M any, PM RenderedModel[M]](ctx context.Context, plan *tfsdk.Plan, m *M) diag.Diagnostics {
	splitManifests[M, PM](m)
	return SetPlan(ctx, plan, m)
}

func splitManifests[M any, PM RenderedModel[M]](m *M) {
	a := PM(m).Rendered()
	a.Manifests = ManifestDocs(a.Manifest)
}

// RenderedResource is embedded by a resource whose model M is a
// RenderedModel (gpu_workload, gpu_ray_cluster) instead of Resource: its
// Create, Update, Read and Delete are the same for each, from the Steps its
// constructor declares. Decoding, the timeouts, apply = false and the
// cluster client are written once here.
type RenderedResource[M any, PM RenderedModel[M]] struct {
	Resource
	Steps RenderedSteps[M]
}

// RenderedSteps are what sets a RenderedResource apart. Refresh, Remove
// and Objects get the provider's default_cloud, which the intent they
// render from may need.
type RenderedSteps[M any] struct {
	// Apply applies plan with client and writes state; prior is the state an
	// update starts from, nil on create. It applies with ApplyOver.
	Apply func(ctx context.Context, client *kube.Client, plan, prior *M, state *tfsdk.State, diags *diag.Diagnostics)
	// Objects renders the objects of state's configuration, without the
	// server's version, for ApplyOver's prune; nil when they do not render.
	Objects func(ctx context.Context, state M, defaultCloud string) []workload.Object
	// Refresh reads the objects back into state; gone once they are not there.
	Refresh func(ctx context.Context, client *kube.Client, state *M, defaultCloud string) (gone bool, diags diag.Diagnostics)
	// Remove deletes the objects.
	Remove func(ctx context.Context, client *kube.Client, state M, defaultCloud string) diag.Diagnostics
}

// The timeouts of a RenderedResource where the timeouts block leaves one
// out: its apply waits for GPU pods, and GPU nodes can take minutes to pull
// multi-gigabyte images (a Ray cluster's start waits for its last group's),
// so creates get longer than the framework's usual.
const (
	renderedCreateTimeout = 20 * time.Minute
	renderedUpdateTimeout = 20 * time.Minute
	renderedDeleteTimeout = 10 * time.Minute
)

// typeName is the resource's, e.g. "gpu_workload", for errors.
func (r *RenderedResource[M, PM]) typeName() string { return "gpu" + r.typeSuffix }

// Create applies the plan within the create timeout.
func (r *RenderedResource[M, PM]) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan M
	if resp.Diagnostics.Append(GetRendered[M, PM](ctx, req.Plan, &plan)...); resp.Diagnostics.HasError() {
		return
	}
	Within(ctx, PM(&plan).Rendered().Timeouts.Create, renderedCreateTimeout, &resp.Diagnostics, func(ctx context.Context) {
		r.apply(ctx, &plan, nil, &resp.State, &resp.Diagnostics)
	})
}

// Update applies the plan over the prior state within the update timeout.
func (r *RenderedResource[M, PM]) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, prior M
	resp.Diagnostics.Append(GetRendered[M, PM](ctx, req.Plan, &plan)...)
	resp.Diagnostics.Append(GetRendered[M, PM](ctx, req.State, &prior)...)
	if resp.Diagnostics.HasError() {
		return
	}
	Within(ctx, PM(&plan).Rendered().Timeouts.Update, renderedUpdateTimeout, &resp.Diagnostics, func(ctx context.Context) {
		r.apply(ctx, &plan, &prior, &resp.State, &resp.Diagnostics)
	})
}

// apply: with apply = false the plan, rendered, becomes the state and the
// cluster is never contacted; otherwise Steps.Apply runs with the client.
func (r *RenderedResource[M, PM]) apply(ctx context.Context, plan, prior *M, state *tfsdk.State, diags *diag.Diagnostics) {
	renderOnly := func() diag.Diagnostics { return SetRenderedState[M, PM](ctx, state, plan) }
	if client, ok := r.Data.ApplyClient(r.typeName(), PM(plan).Rendered().Apply.ValueBool(), renderOnly, diags); ok {
		r.Steps.Apply(ctx, client, plan, prior, state, diags)
	}
}

// Read refreshes the state from the cluster (RefreshApplied).
func (r *RenderedResource[M, PM]) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state M
	if resp.Diagnostics.Append(GetRendered[M, PM](ctx, req.State, &state)...); resp.Diagnostics.HasError() {
		return
	}
	r.Data.RefreshApplied(ctx, r.typeName(), PM(&state).Rendered().Apply.ValueBool(), resp,
		func() diag.Diagnostics { return SetRenderedState[M, PM](ctx, &resp.State, &state) },
		func(client *kube.Client) (bool, diag.Diagnostics) {
			return r.Steps.Refresh(ctx, client, &state, r.DefaultCloud())
		})
}

// Delete removes what was applied within the delete timeout; a resource
// that only rendered has nothing in the cluster.
func (r *RenderedResource[M, PM]) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state M
	resp.Diagnostics.Append(GetRendered[M, PM](ctx, req.State, &state)...)
	if resp.Diagnostics.HasError() || !PM(&state).Rendered().Apply.ValueBool() {
		return
	}
	r.Data.DeleteWithin(ctx, r.typeName(), PM(&state).Rendered().Timeouts.Delete, renderedDeleteTimeout, &resp.Diagnostics,
		func(ctx context.Context, client *kube.Client) diag.Diagnostics {
			return r.Steps.Remove(ctx, client, state, r.DefaultCloud())
		})
}

// ApplyOver applies objects, rendered from plan, over prior (the state an
// update starts from; nil on create) with ApplyObjects and plan's
// force_conflicts. When that fails, an update's state stays prior: the
// objects may be partly applied, and the next plan compares them with the
// configuration again. Once applied, plan's uid is the main object's and,
// on update, what prior rendered and plan does not is removed (prune). The
// main object as the server stored it; false after an error.
func (r *RenderedResource[M, PM]) ApplyOver(ctx context.Context, client *kube.Client, objects []workload.Object,
	hint func(workload.Object) string, plan, prior *M, state *tfsdk.State, diags *diag.Diagnostics) (*unstructured.Unstructured, bool) {
	a := PM(plan).Rendered()
	main, ok := ApplyObjects(ctx, client, objects, a.ForceConflicts.ValueBool(), hint, diags)
	if !ok {
		if prior != nil {
			diags.Append(SetRenderedState[M, PM](ctx, state, prior)...)
		}
		return nil, false
	}
	a.UID = types.StringValue(string(main.GetUID()))
	if prior != nil {
		diags.Append(r.prune(ctx, client, *prior, objects)...)
	}
	return main, true
}

// prune deletes the objects prior's configuration rendered and the new one
// (now) does not: a companion, such as a DRA claim template or a created
// model cache claim, that the configuration no longer asks for.
func (r *RenderedResource[M, PM]) prune(ctx context.Context, client *kube.Client, prior M, now []workload.Object) diag.Diagnostics {
	if r.Steps.Objects == nil {
		return nil // nothing to compare with: nothing is removed
	}
	before := r.Steps.Objects(ctx, prior, r.DefaultCloud())
	return Prune(before, now, func(ref kube.ObjectRef) diag.Diagnostics {
		return DeleteStale(ctx, client, ref, "Could not remove an object this "+r.typeName()+" no longer needs")
	})
}

// DeleteRendered deletes the objects a RenderedModel resource (typeName)
// rendered: in reverse, since render puts each object's dependencies before
// it, so the main object, last, goes first (its pods use the others), and
// each is waited for until gone. The main object is deleted only while it
// has uid, the state's (a newer object of the name is never touched), and
// mainPods gives the selector of its pods and the Kueue workloads that
// admitted them, waited for too (WaitDeleted).
func DeleteRendered(ctx context.Context, client *kube.Client, typeName string, objects []workload.Object, uid k8stypes.UID,
	mainPods func(kube.ObjectRef) (selector string, queued []string)) diag.Diagnostics {
	var diags diag.Diagnostics
	for i := len(objects) - 1; i >= 0; i-- {
		ref, err := kube.RefOf(objects[i])
		if err != nil {
			diags.AddError("Cannot delete "+typeName, err.Error())
			return diags
		}
		var objectUID k8stypes.UID
		var selector string
		var queued []string
		if i == len(objects)-1 {
			objectUID = uid
			selector, queued = mainPods(ref)
		}
		if err := client.Delete(ctx, ref, objectUID); err != nil {
			diags.AddError("Cannot delete "+typeName, err.Error())
			return diags
		}
		if err := WaitDeleted(ctx, client, ref, selector, queued); err != nil {
			diags.AddError(typeName+" was not deleted in time", err.Error())
			return diags
		}
	}
	return diags
}

// WaitDeleted waits until the deleted object ref and the pods selector
// selects are gone and Kueue released the quota of the workloads queued
// names, so what comes next (a re-created object's pods) gets the GPUs and
// the quota.
func WaitDeleted(ctx context.Context, client *kube.Client, ref kube.ObjectRef, selector string, queued []string) error {
	if err := client.WaitGone(ctx, ref, selector); err != nil {
		return err
	}
	return client.WaitKueueReleased(ctx, ref.Namespace, queued)
}
