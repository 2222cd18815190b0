package gpuworkload

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	corev1 "k8s.io/api/core/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/clustercapacity"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kueuever"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// applyWorkload renders the plan for the live server version, applies every
// object with server-side apply, removes objects the previous version had
// and this one does not, and waits. State is written whenever the main
// object exists, so a failed wait never loses track of what was created.
func (r *workloadResource) applyWorkload(ctx context.Context, client *kube.Client, plan, prior *workloadModel, state *tfsdk.State,
	diags *diag.Diagnostics) {
	start := time.Now()
	in := intentFromModel(ctx, *plan, r.DefaultCloud(), resourcekit.Final)
	diags.Append(in.diags...)
	rendered, ok := renderForServer(ctx, client, in, diags)
	if !ok {
		return
	}
	if plan.Manifest.IsUnknown() {
		// Planned without the server version (DRA): now it is known.
		diags.Append(setRenderedOutputs(ctx, plan, rendered)...)
	}
	if !annotateSpec(rendered, in, *plan, diags) {
		return
	}
	if prior == nil && !plan.Adopt.ValueBool() && !refuseForeignObject(ctx, client, rendered, diags) {
		return
	}
	if prior == nil && !refuseForeignCompanions(ctx, client, rendered, diags) {
		return
	}
	if prior == nil && plan.Adopt.ValueBool() {
		if err := client.PrepareAdoption(ctx, rendered.Objects[len(rendered.Objects)-1]); err != nil {
			diags.AddError("Cannot adopt the existing workload", err.Error())
			return
		}
	}
	if !checkLocalQueue(ctx, client, rendered, diags) {
		return
	}
	clustercapacity.WarnUnadvertisedNetwork(ctx, client, rendered, "The pods", diags)
	if recreating(*plan, prior, rendered) {
		if diags.Append(deleteForRecreate(ctx, client, *prior, rendered)...); diags.HasError() {
			return
		}
	}
	if prior != nil && kueueQueue(rendered) != "" {
		if err := keepKueueFields(ctx, client, rendered); err != nil {
			diags.AddError("Cannot read the queued workload before applying", err.Error())
			return
		}
	}
	main, ok := r.ApplyOver(ctx, client, rendered.Objects, applyHint, plan, prior, state, diags)
	if !ok {
		return
	}
	target, _ := kube.TargetOf(main)
	mainRef := target.Ref
	selector := podSelector(rendered)
	tflog.Debug(ctx, "gpu_workload applied", map[string]any{"object": mainRef.String(), "elapsed_ms": time.Since(start).Milliseconds()})
	waitErr := client.RecreateStuckPods(ctx, target, selector)
	switch {
	case waitErr != nil:
	case waitMode(*plan) == kube.WaitAdmitted:
		waitErr = waitAdmitted(ctx, client, rendered, main.GetUID(), mainRef)
	default:
		waitErr = client.WaitReady(ctx, target, waitMode(*plan), selector, plan.UnschedulableTimeout())
	}
	tflog.Debug(ctx, "gpu_workload wait ended", map[string]any{"object": mainRef.String(), "elapsed_ms": time.Since(start).Milliseconds(),
		"ready": waitErr == nil})
	nodes, err := client.ScheduledNodes(context.WithoutCancel(ctx), mainRef.Namespace, selector)
	if err != nil && waitErr == nil {
		waitErr = err
	}
	plan.ScheduledNodes = tfconv.StringList(nodes)
	diags.Append(resourcekit.SetRenderedState(ctx, state, plan)...)
	if waitErr != nil {
		done, admitted := reportQueued(context.WithoutCancel(ctx), client, rendered, main.GetUID(), mainRef,
			func() kueuever.Known { return r.Data.Kueue(context.WithoutCancel(ctx)) }, diags)
		if done || (admitted && waitMode(*plan) == kube.WaitAdmitted) {
			return
		}
	}
	if waitErr != nil && jobOutlivedTheWait(ctx, *plan, waitErr) {
		diags.AddWarning(fmt.Sprintf("%s has not finished yet", mainRef), // mainRef reads "Job <namespace>/<name>"
			jobStillRunningDetail(*plan, explainNotReady(context.WithoutCancel(ctx), client, waitErr, rendered)))
		return
	}
	if waitErr != nil {
		summary := fmt.Sprintf("gpu_workload %s did not become ready", mainRef)
		if !errors.As(waitErr, new(*kube.NotReadyError)) {
			summary = fmt.Sprintf("Waiting for gpu_workload %s failed", mainRef)
		}
		diags.AddError(summary,
			explainNotReady(context.WithoutCancel(ctx), client, waitErr, rendered))
	}
}

// refuseForeignObject stops a create from silently taking over a Deployment
// or Job that already exists and was not applied by gpu_workload: server-side
// apply would merge into it, and a later destroy would delete someone else's
// workload. It reports false when the create must not go on.
func refuseForeignObject(ctx context.Context, client *kube.Client, rendered *workload.Rendered, diags *diag.Diagnostics) bool {
	ref, live, ok := resourcekit.LiveBeforeCreate(ctx, client, "gpu_workload", rendered.Objects[len(rendered.Objects)-1], diags)
	if !ok {
		return false
	}
	if live == nil {
		return true
	}
	if resourcekit.InterruptedCreate(live, rendered.Objects[len(rendered.Objects)-1], client.FieldManager) {
		diags.AddWarning("Taking over a workload from an interrupted apply", fmt.Sprintf("%s already exists "+
			"with exactly this configuration, applied by this provider's field manager %q, but is not in the "+
			"state: an earlier apply created it and was interrupted (API server outage, Ctrl-C) before it could "+
			"record it. It is managed by this resource from now on.", ref, client.FieldManager))
		return true
	}
	if _, ours := live.GetAnnotations()[specAnnotation]; ours {
		diags.AddError("gpu_workload already exists", fmt.Sprintf("%s was applied by gpu_workload in another "+
			"configuration or state. Import it (terraform import <address> %s/%s) or remove it first.",
			ref, ref.Namespace, ref.Name))
		return false
	}
	diags.AddError("Object already exists", fmt.Sprintf("%s exists and was not created by gpu_workload. "+
		"Set adopt = true to take it over (its fields are overwritten and destroy will delete it), "+
		"or choose another name.", ref))
	return false
}

// renderForServer renders with the server's version, which decides the
// resource.k8s.io API version of DRA objects.
func renderForServer(ctx context.Context, client *kube.Client, in workloadIntent, diags *diag.Diagnostics) (*workload.Rendered, bool) {
	version, err := client.ServerVersion(ctx)
	if err != nil {
		diags.AddError("Cannot reach the cluster", err.Error())
		return nil, false
	}
	rendered, rdiags := renderIntent(in, version)
	diags.Append(resourcekit.RenderDiagnostics(rdiags)...)
	return rendered, !diags.HasError()
}

// annotateSpec records the intent on the workload object, for import.
func annotateSpec(rendered *workload.Rendered, in workloadIntent, m workloadModel, diags *diag.Diagnostics) bool {
	spec, err := annotationFromSpec(in.raw, in.pool, in.queue, m)
	if err != nil {
		diags.AddError("Cannot encode the workload spec", err.Error())
		return false
	}
	main := rendered.Objects[len(rendered.Objects)-1]
	annotations := map[string]string{}
	maps.Copy(annotations, main.GetAnnotations())
	annotations[specAnnotation] = spec
	main.SetAnnotations(annotations)
	return true
}

// applyHint says where an object the provider renders for a feature of the
// configuration comes from, so a refused apply names the fix.
func applyHint(obj workload.Object) string {
	if obj.GetObjectKind().GroupVersionKind().Kind == workload.ComputeDomainKind {
		return "\n\nThe ComputeDomain is rendered for topology.nvlink_domain: it needs NVIDIA's DRA driver with " +
			"ComputeDomains (its CRD and controller) in the cluster. Install it, or remove nvlink_domain."
	}
	return ""
}

// renderedObjects are the objects state's configuration renders (a
// created model cache claim, a DRA claim template, then the workload),
// without the server's version; nil when it does not render.
func renderedObjects(ctx context.Context, state workloadModel, defaultCloud string) []workload.Object {
	rendered, rdiags := renderIntent(intentFromModel(ctx, state, defaultCloud, resourcekit.Final), nil)
	if rdiags.HasError() || rendered == nil {
		return nil
	}
	return rendered.Objects
}

// refreshWorkload reads the live objects and records, as the manifest, what
// the cluster holds for the fields this resource manages.
func refreshWorkload(ctx context.Context, client *kube.Client, state *workloadModel, defaultCloud string) (bool, diag.Diagnostics) {
	var diags diag.Diagnostics
	rendered, ok := renderForRead(ctx, client, *state, defaultCloud, &diags)
	if !ok {
		return false, diags
	}
	diags.Append(setPlacementOutputs(ctx, state, rendered)...)
	objects, err := resourcekit.ReadBack(ctx, client, rendered.Objects)
	if err != nil {
		diags.AddError("Cannot read gpu_workload", err.Error())
		return false, diags
	}
	if len(objects) == 0 {
		diags.AddError("Provider bug: cannot read gpu_workload", "The workload rendered no objects to read back.")
		return false, diags
	}
	main := objects[len(objects)-1] // the Deployment, StatefulSet, Job or CronJob comes last
	if main.Live == nil {
		if cleanedUpAfterFinishing(*state) {
			// Keep what was applied: the finished Job as rendered.
			diags.Append(setRenderedOutputs(ctx, state, rendered)...)
			return false, diags
		}
		return true, diags
	}
	projected := resourcekit.Projections(objects)
	refreshQueued(ctx, client, rendered, main.Ref, main.Live.GetUID(), projected[len(projected)-1], main.Desired, &diags)
	state.UID = types.StringValue(string(main.Live.GetUID()))
	manifest, err := workload.EncodeManifest(projected)
	if err != nil {
		diags.AddError("Cannot read gpu_workload", err.Error())
		return false, diags
	}
	state.Manifest = types.StringValue(manifest)
	if state.ScheduledNodes.IsNull() || state.ScheduledNodes.IsUnknown() {
		// Just imported: record where the pods run, as apply would.
		nodes, err := client.ScheduledNodes(ctx, state.Namespace.ValueString(), podSelector(rendered))
		if err != nil {
			diags.AddError("Cannot read gpu_workload", err.Error())
			return false, diags
		}
		state.ScheduledNodes = tfconv.StringList(nodes)
	}
	return false, diags
}

// cleanedUpAfterFinishing reports whether a missing object of a kind that
// runs to completion (a Job) is the expected result of
// ttl_seconds_after_finished: the apply waited for it to complete, so its
// disappearance is the TTL controller's work, not drift to re-run.
func cleanedUpAfterFinishing(m workloadModel) bool {
	if !runsToCompletion(m) || waitMode(m) != kube.WaitComplete {
		return false
	}
	return tfconv.AttributeSet(m.Job, "ttl_seconds_after_finished")
}

// renderForRead renders what the state describes. Only DRA output depends
// on the server version, so only then is the server asked.
func renderForRead(ctx context.Context, client *kube.Client, m workloadModel, defaultCloud string, diags *diag.Diagnostics) (*workload.Rendered, bool) {
	in := intentFromModel(ctx, m, defaultCloud, resourcekit.Final)
	if in.workload.GPU.DRA != nil {
		return renderForServer(ctx, client, in, diags)
	}
	rendered, rdiags := renderIntent(in, nil)
	diags.Append(resourcekit.RenderDiagnostics(rdiags)...)
	return rendered, !diags.HasError()
}

// deleteWorkload deletes the workload first (its pods use the claims), waits
// until it and its pods are gone, then deletes the objects it used.
func deleteWorkload(ctx context.Context, client *kube.Client, state workloadModel, defaultCloud string) diag.Diagnostics {
	var diags diag.Diagnostics
	rendered, ok := renderForRead(ctx, client, state, defaultCloud, &diags)
	if !ok {
		return diags
	}
	uid := k8stypes.UID(state.UID.ValueString())
	return resourcekit.DeleteRendered(ctx, client, "gpu_workload", rendered.Objects, uid,
		func(ref kube.ObjectRef) (string, []string) {
			selector := podSelector(rendered)
			return selector, kueueWorkloadNames(ctx, client, rendered, ref, uid, selector)
		})
}

func waitMode(m workloadModel) kube.WaitMode {
	if v := m.WaitFor.ValueString(); v != "" {
		return kube.WaitMode(v)
	}
	if k, ok := kinds.Lookup(m.Kind.ValueString()); ok {
		return kube.WaitMode(k.Wait.Default) // a CronJob's none: nothing runs until the schedule fires
	}
	return kube.WaitRollout
}

// podSelector selects the workload's pods: its selector labels, and the
// managed-by label where the pods carry it, which lets the shared watch
// cache serve the query (an adopted workload's pods may not carry it, and
// are then listed from the server).
func podSelector(r *workload.Rendered) string {
	selector := maps.Clone(r.SelectorLabels)
	if v, ok := r.PodTemplate().Labels[spec.LabelManagedBy]; ok {
		selector[spec.LabelManagedBy] = v
	}
	keys := slices.Sorted(maps.Keys(selector))
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, k+"="+selector[k])
	}
	return strings.Join(parts, ",")
}

// explainNotReady adds to the scheduler's words what the workload asked
// for, so the reader can compare it with the node pools.
func explainNotReady(ctx context.Context, client *kube.Client, err error, rendered *workload.Rendered) string {
	var notReady *kube.NotReadyError
	if !errors.As(err, &notReady) {
		// The wait itself failed (outage, permissions): the pool advice
		// below would send the reader down the wrong path.
		return err.Error()
	}
	var b strings.Builder
	b.WriteString(err.Error())
	if notReady.Unschedulable() {
		b.WriteString("\n\n" + clustercapacity.ExplainPools(ctx, client, clustercapacity.AskOf(rendered, &rendered.PodTemplate().Spec)))
	}
	b.WriteString("\n\nThis workload asked for:")
	if rendered.ResourceName != "" {
		fmt.Fprintf(&b, "\n  resource: %s", rendered.ResourceName)
	}
	requests := clustercapacity.DRARequests(rendered)
	b.WriteString(clustercapacity.DescribeClaim(requests))
	if rendered.Network != nil && len(rendered.Network.Resources) > 0 {
		fmt.Fprintf(&b, "\n  GPU network: %s (from %s)", clustercapacity.DescribeNetworkRequest(rendered.Network.Resources),
			rendered.Network.Advertiser)
	}
	for _, k := range slices.Sorted(maps.Keys(rendered.NodeSelector)) {
		fmt.Fprintf(&b, "\n  node label %s=%s", k, rendered.NodeSelector[k])
	}
	b.WriteString(describeAffinity(rendered.Affinity))
	for _, t := range rendered.Tolerations {
		fmt.Fprintf(&b, "\n  toleration %s %s %s:%s", t.Key, t.Operator, t.Value, t.Effect)
	}
	free := "free GPUs (kubectl describe nodes)"
	if rendered.ResourceName == "" && len(requests) > 0 {
		free = "free devices matching the claim (kubectl get resourceslices and kubectl get resourceclaims -A)"
	}
	b.WriteString("\n\nCheck that a node pool carries these labels, the taints tolerated here, and " + free + "; " +
		raiseWhich(notReady) + " if nodes are still being provisioned.")
	return b.String()
}

// raiseWhich names the limit that ended the wait.
func raiseWhich(notReady *kube.NotReadyError) string {
	if notReady.GaveUpOnRefusal {
		return "raise unschedulable_timeout (or unset it to wait for the whole timeout)"
	}
	return "raise the timeout"
}

// describeAffinity lists the required node affinity terms (ORed) with
// their requirements (ANDed), as the scheduler reads them.
func describeAffinity(affinity *corev1.Affinity) string {
	if affinity == nil || affinity.NodeAffinity == nil || affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return ""
	}
	var b strings.Builder
	for i, term := range affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		parts := make([]string, 0, len(term.MatchExpressions))
		for _, e := range term.MatchExpressions {
			parts = append(parts, strings.TrimSpace(fmt.Sprintf("%s %s %s", e.Key, e.Operator, strings.Join(e.Values, ","))))
		}
		prefix := "node affinity"
		if i > 0 {
			prefix = "  or"
		}
		fmt.Fprintf(&b, "\n  %s: %s", prefix, strings.Join(parts, " and "))
	}
	return b.String()
}
