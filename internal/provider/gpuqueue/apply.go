package gpuqueue

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/refs"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/queue"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// applyQueue applies the flavors, the ClusterQueue and the LocalQueues in
// that order (a queue naming a missing flavor is inactive until it
// exists), then removes LocalQueues and flavors the previous version had
// and this one does not. State is written once the ClusterQueue exists.
func (r *queueResource) applyQueue(ctx context.Context, plan, prior *queueModel, state *tfsdk.State, diags *diag.Diagnostics) {
	renderOnly := func() diag.Diagnostics { return resourcekit.SetState(ctx, state, plan) }
	client, ok := r.Data.ApplyClient("gpu_queue", plan.Apply.ValueBool(), renderOnly, diags)
	if !ok {
		return
	}
	rendered, ok := renderQueueState(ctx, *plan, diags)
	if !ok {
		return
	}
	for _, obj := range rendered.Objects() {
		if _, err := client.Apply(ctx, obj, false); err != nil {
			diags.AddError("Cannot apply gpu_queue", err.Error()+kueueHint(ctx, client))
			if prior != nil {
				diags.Append(resourcekit.SetState(ctx, state, prior)...)
			}
			return
		}
	}
	diags.Append(resourcekit.SetState(ctx, state, plan)...)
	warnFlavorsWithoutNodes(ctx, client, rendered, diags)
	if prior == nil || !prior.Apply.ValueBool() {
		return
	}
	if before, ok := renderQueueState(ctx, *prior, diags); ok {
		diags.Append(removeStaleQueueObjects(ctx, client, before, rendered)...)
	}
}

// warnFlavorsWithoutNodes reports each flavor whose node labels select no
// node of the cluster: Kueue would admit work there that can never be
// scheduled. Most often the cloud's node pool is not named like the policy
// (the flavor selects the pool-name label). A pool that scales from zero
// has no node yet either, which the warning says. Where the nodes cannot be
// listed nothing is said: nothing was checked.
func warnFlavorsWithoutNodes(ctx context.Context, client *kube.Client, rendered *queue.Rendered, diags *diag.Diagnostics) {
	for _, rf := range rendered.ResourceFlavors {
		nodes, err := client.ListNodes(ctx, labels.SelectorFromSet(rf.Spec.NodeLabels).String())
		if err != nil {
			return
		}
		if len(nodes) > 0 {
			continue
		}
		diags.AddWarning(fmt.Sprintf("ResourceFlavor %q selects no node", rf.Name), fmt.Sprintf("No node of the cluster "+
			"carries every label of the flavor of node pool %q (%s). Kueue writes these labels into every pod it admits "+
			"through the flavor, so that work stays Pending until such a node exists. If the pool scales from zero, "+
			"this is expected until its first node starts. Otherwise check the nodes' labels: on GKE, AKS and EKS the "+
			"cloud's node pool must be named like the gpu_node_pool_policy (the flavor selects the pool-name label), "+
			"and on generic clusters GPU Feature Discovery must label the nodes.", rf.Name, describeNodeLabels(rf.Spec.NodeLabels)))
	}
}

func describeNodeLabels(l map[string]string) string {
	parts := make([]string, 0, len(l))
	for _, k := range slices.Sorted(maps.Keys(l)) {
		parts = append(parts, k+"="+l[k])
	}
	return strings.Join(parts, ", ")
}

// kueueHint explains the error every first user meets: Kueue not
// installed. It asks the server rather than reading the error's words.
func kueueHint(ctx context.Context, client *kube.Client) string {
	if client.KueueMissing(ctx) {
		return "\n\nKueue is not installed on this cluster: it serves no kueue.x-k8s.io/v1beta2 API. gpu_queue " +
			"writes Kueue's objects; install Kueue (v0.15 or later) first."
	}
	return ""
}

// removeStaleQueueObjects deletes LocalQueues of namespaces no longer
// listed, flavors of pools no longer used by this or any other queue, and
// then the Topologies no flavor names any more.
func removeStaleQueueObjects(ctx context.Context, client *kube.Client, before, now *queue.Rendered) diag.Diagnostics {
	return resourcekit.Prune(before.Objects(), now.Objects(), func(ref kube.ObjectRef) diag.Diagnostics {
		switch ref.GVK.Kind {
		case kube.GVKTopology.Kind:
			return deleteTopologyIfUnused(ctx, client, ref.Name)
		case kube.GVKResourceFlavor.Kind:
			return deleteFlavorIfUnused(ctx, client, ref.Name, "")
		}
		return resourcekit.DeleteStale(ctx, client, ref, "Cannot delete an old "+ref.GVK.Kind)
	})
}

// deleteQueue deletes in the reverse order of apply. A ClusterQueue with
// admitted work is refused with the workloads named, before anything is
// deleted: Kueue would keep the queue Terminating until they finish, and
// deleting the LocalQueues first would orphan their pending work.
func deleteQueue(ctx context.Context, client *kube.Client, rendered *queue.Rendered) diag.Diagnostics {
	var diags diag.Diagnostics
	name := rendered.ClusterQueue.Name
	admitted, err := admittedTo(ctx, client, name)
	if err != nil {
		diags.AddError("Cannot delete gpu_queue", err.Error()+kueueHint(ctx, client))
		return diags
	}
	if len(admitted) > 0 {
		diags.AddError("The queue still runs work", fmt.Sprintf("ClusterQueue %q has admitted workloads: %s. "+
			"Deleting it now would leave it Terminating until they finish. Delete those workloads (or wait for them "+
			"to finish), then destroy the queue again.", name, strings.Join(admitted, ", ")))
		return diags
	}
	for _, lq := range rendered.LocalQueues {
		if err := client.Delete(ctx, kube.ObjectRef{GVK: kube.GVKLocalQueue, Namespace: lq.Namespace, Name: lq.Name}, ""); err != nil {
			diags.AddError("Cannot delete gpu_queue", err.Error())
			return diags
		}
	}
	ref := kube.ObjectRef{GVK: kube.GVKClusterQueue, Name: name}
	if err := client.Delete(ctx, ref, ""); err != nil {
		diags.AddError("Cannot delete gpu_queue", err.Error())
		return diags
	}
	if err := client.WaitClusterQueueDeleted(ctx, name); err != nil {
		diags.AddError("Cannot delete gpu_queue", err.Error())
		return diags
	}
	for _, rf := range rendered.ResourceFlavors {
		diags.Append(deleteFlavorIfUnused(ctx, client, rf.Name, name)...)
	}
	for _, t := range rendered.Topologies {
		diags.Append(deleteTopologyIfUnused(ctx, client, t.Name)...)
	}
	return diags
}

// deleteTopologyIfUnused deletes a pool's Topology once no ResourceFlavor
// names it: like the flavor it is shared by every queue of the pool, and it
// goes with the last flavor using it.
func deleteTopologyIfUnused(ctx context.Context, client *kube.Client, name string) diag.Diagnostics {
	return deleteSharedIfUnused(ctx, client, kube.ObjectRef{GVK: kube.GVKTopology, Name: name}, "Topology",
		func() ([]string, error) { return client.FlavorsUsingTopology(ctx, name) })
}

// admittedTo names the Kueue Workloads holding quota in a ClusterQueue,
// as namespace/name.
func admittedTo(ctx context.Context, client *kube.Client, clusterQueue string) ([]string, error) {
	workloads, err := client.KueueWorkloads(ctx, "")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, wl := range workloads {
		if queue.HoldsQuotaIn(wl, clusterQueue) {
			out = append(out, wl.Namespace+"/"+wl.Name)
		}
	}
	slices.Sort(out)
	return out, nil
}

// deleteFlavorIfUnused deletes a pool's flavor unless another ClusterQueue
// still lists it: flavors are shared by every queue of a pool.
func deleteFlavorIfUnused(ctx context.Context, client *kube.Client, flavor, deletedQueue string) diag.Diagnostics {
	return deleteSharedIfUnused(ctx, client, kube.ObjectRef{GVK: kube.GVKResourceFlavor, Name: flavor}, "ResourceFlavor",
		func() ([]string, error) { return client.ClusterQueuesUsingFlavor(ctx, flavor, deletedQueue) })
}

// deleteSharedIfUnused deletes an object the queues of one pool share
// (its kind named in errors) and waits until it is gone, unless users
// still name it.
func deleteSharedIfUnused(ctx context.Context, client *kube.Client, ref kube.ObjectRef, kind string,
	users func() ([]string, error)) diag.Diagnostics {
	var diags diag.Diagnostics
	summary := "Cannot delete the " + kind + " of a gpu_queue"
	stillUsed, err := users()
	if err == nil && len(stillUsed) > 0 {
		return diags
	}
	if err == nil {
		err = client.Delete(ctx, ref, "")
	}
	if err == nil {
		err = client.WaitDeleted(ctx, ref)
	}
	if err != nil {
		diags.AddError(summary, err.Error())
	}
	return diags
}

// refreshQueue reads every object back; the manifest shows the live
// objects' fields that gpu_queue manages, so drift is a diff. A missing
// ClusterQueue removes the resource from state.
func refreshQueue(ctx context.Context, client *kube.Client, state *queueModel) (bool, diag.Diagnostics) {
	var diags diag.Diagnostics
	rendered, ok := renderQueueState(ctx, *state, &diags)
	if !ok {
		return false, diags
	}
	objects, err := resourcekit.ReadBack(ctx, client, rendered.Objects())
	if err != nil {
		diags.AddError("Cannot read gpu_queue", err.Error()+kueueHint(ctx, client))
		return false, diags
	}
	for _, o := range objects {
		if o.Live == nil && o.Ref.GVK == kube.GVKClusterQueue {
			return true, diags
		}
	}
	manifest, err := workload.EncodeManifest(resourcekit.Projections(objects))
	if err != nil {
		diags.AddError("Cannot read gpu_queue", err.Error())
		return false, diags
	}
	state.Manifests = resourcekit.ManifestDocs(types.StringValue(manifest))
	return false, diags
}

// importQueue rebuilds the configuration from the ClusterQueue's spec
// annotation.
func importQueue(ctx context.Context, client *kube.Client, state tfsdk.State, name string) (*queueModel, diag.Diagnostics) {
	var diags diag.Diagnostics
	live, err := client.GetFresh(ctx, kube.ObjectRef{GVK: kube.GVKClusterQueue, Name: name})
	if err != nil {
		diags.AddError("Cannot import gpu_queue", err.Error()+kueueHint(ctx, client))
		return nil, diags
	}
	if live == nil {
		diags.AddError("Cannot import gpu_queue", fmt.Sprintf("ClusterQueue %q does not exist. The import id is the ClusterQueue's name.", name))
		return nil, diags
	}
	raw, ok := live.GetAnnotations()[queue.AnnotationSpec]
	if !ok {
		diags.AddError("Cannot import gpu_queue", fmt.Sprintf("ClusterQueue %q was not created by gpu_queue (it has no %s "+
			"annotation), so its node pools cannot be known. Write a gpu_queue with the same name and flavors; its first "+
			"apply takes the objects over.", name, queue.AnnotationSpec))
		return nil, diags
	}
	q, err := queue.DecodeSpec(raw)
	if err != nil {
		diags.AddError("Cannot import gpu_queue", err.Error())
		return nil, diags
	}
	m, modelDiags := modelFromSpec(ctx, state.Schema, q)
	diags.Append(modelDiags...)
	rendered, findings := queue.Render(q)
	diags.Append(resourcekit.RenderDiagnostics(findings)...)
	if diags.HasError() {
		return nil, diags
	}
	diags.Append(m.setRendered(rendered)...)
	return &m, diags
}

// setRendered sets what render derived: the id, the ref, the manifests and
// Kueue's device class mappings.
func (m *queueModel) setRendered(rendered *queue.Rendered) diag.Diagnostics {
	var diags diag.Diagnostics
	ref, err := refs.RefFromQueue(rendered.Ref)
	if err != nil {
		diags.AddError("Provider bug: the queue's ref", err.Error())
	}
	m.ID, m.Ref = types.StringValue(rendered.ID), ref
	m.Manifests = resourcekit.ManifestDocs(types.StringValue(rendered.Manifest))
	m.DeviceClassMappings = deviceClassMappingsFrom(rendered)
	return diags
}

var queueTimeoutAttrTypes = map[string]attr.Type{"delete": types.StringType}

// modelFromSpec is the configuration an imported queue had, for a state of
// resourceSchema.
func modelFromSpec(ctx context.Context, resourceSchema interface{ Type() attr.Type }, q queueSpec) (queueModel, diag.Diagnostics) {
	intentTypes, diags := resourcekit.CodecOf[queueModel]().AttributesTypes(ctx, resourceSchema, queueModel{})
	m := queueModel{
		Name: types.StringValue(q.Name), Apply: types.BoolValue(true),
		Timeouts: timeouts.Value{Object: types.ObjectNull(queueTimeoutAttrTypes)},
	}
	m.Intent = tfconv.EncodeAttributes(intentTypes, q, &diags)
	return m, diags
}

type queueSpec = spec.Queue
