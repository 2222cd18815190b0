package gpuworkload

import (
	"context"
	"reflect"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds/kindkit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// podTemplateAttributes are the attributes that end up in the pod template.
// Where a kind's pod template is immutable in Kubernetes (batch/v1
// validation rejects any change to a Job's spec.template), changing one of
// these can only be done by replacing the object, as the Kubernetes
// provider's kubernetes_job_v1 does.
var podTemplateAttributes = []string{
	"image", "command", "args", "env", "secret_env", "ports", "service_account_name",
	"gpu", "size", "cpu", "memory", "shm_size", "model_cache", "startup_probe", "liveness_probe",
	"readiness_probe", "ipc_lock", "spot", "pod_labels", "pod_annotations", "node_pool", "patch", "container_name",
	"image_pull_secrets", "priority_class_name",
}

// requireReplacement marks the changed attributes that reach an immutable
// field of the workload's kind (kindkit.Immutable) as forcing its
// replacement, so the plan says so instead of the apply being refused. A
// kind that re-creates its object in place (Immutable.RecreateObject) is
// not replaced: the plan's uid becomes unknown instead, which tells the
// apply to re-create the object (planRecreate, below).
func requireReplacement(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, plan *workloadModel) {
	k, ok := kinds.Lookup(plan.Kind.ValueString())
	if req.State.Raw.IsNull() || !ok || len(k.Immutable.SpecFields) == 0 {
		return
	}
	manifest, diags := resourcekit.StateManifest(ctx, req.State)
	resp.Diagnostics.Append(diags...)
	replace, diags := immutableReplacement(req, k, manifest.ValueString(), plan.Manifest)
	if len(replace) == 0 && k.Immutable.RecreateObject && adoptedDiffers(ctx, req, k, manifest.ValueString(), plan.Manifest) {
		planRecreateAdopted(plan, k, &resp.Diagnostics)
		return
	}
	resp.Diagnostics.Append(diags...)
	if len(replace) > 0 && k.Immutable.RecreateObject {
		planRecreate(plan, k, replace, &resp.Diagnostics)
		return
	}
	resp.RequiresReplace = append(resp.RequiresReplace, replace...)
}

// immutableReplacement decides which changed attributes force the
// replacement of an object whose planned immutable fields differ from the
// ones in state. When those fields changed although no attribute did (a
// new provider version renders them differently, or default_cloud
// changed), it warns instead: replacing would, for a Job, re-run work
// nobody asked to re-run.
// When the planned manifest is not known (an attribute known only at apply,
// or a DRA claim whose API version the server decides), every changed or
// unknown attribute that reaches them forces the replacement, as Terraform
// does for any attribute that requires replacement. When a manifest cannot
// be read, only a kind whose whole pod template is immutable is replaced:
// its update would certainly be refused.
func immutableReplacement(req resource.ModifyPlanRequest, k kindkit.Kind, stateManifest string, planManifest types.String) (path.Paths, diag.Diagnostics) {
	var diags diag.Diagnostics
	im := k.Immutable
	changed := changedAttributes(req, immutableAttributes(im))
	if im.PodTemplate && configuredCloudChanged(req) {
		changed = append(changed, path.Root("cloud"))
	}
	if planManifest.IsUnknown() {
		return changed, diags
	}
	before, okBefore := specFields(stateManifest, k.GVK.Kind, im.SpecFields)
	after, okAfter := specFields(planManifest.ValueString(), k.GVK.Kind, im.SpecFields)
	switch {
	case !okBefore || !okAfter:
		if im.PodTemplate {
			return changed, diags
		}
		return nil, diags
	case reflect.DeepEqual(before, after):
		return nil, diags
	}
	if len(changed) == 0 {
		diags.AddWarning(im.DriftSummary, im.DriftDetail)
	}
	return changed, diags
}

// immutableAttributes are the attribute paths that reach a kind's
// immutable fields: every pod template attribute where the template is
// immutable, then the kind's own ("block.attribute" for one in a block).
func immutableAttributes(im kindkit.Immutable) path.Paths {
	var names []string
	if im.PodTemplate {
		names = append(names, podTemplateAttributes...)
	}
	names = append(names, im.Attributes...)
	paths := make(path.Paths, 0, len(names))
	for _, name := range names {
		steps := strings.Split(name, ".")
		p := path.Root(steps[0])
		for _, step := range steps[1:] {
			p = p.AtName(step)
		}
		paths = append(paths, p)
	}
	return paths
}

// changedAttributes lists the paths whose planned value differs from the
// state, unknown values included.
func changedAttributes(req resource.ModifyPlanRequest, paths path.Paths) path.Paths {
	var changed path.Paths
	for _, p := range paths {
		if attributeChanged(req, p) {
			changed = append(changed, p)
		}
	}
	return changed
}

// configuredCloudChanged reports a cloud set in the configuration that
// differs from the state. A cloud that follows default_cloud or node_pool is
// not counted: the attribute that changed is elsewhere (node_pool is one of
// the template attributes; default_cloud only warns, see
// immutableReplacement).
func configuredCloudChanged(req resource.ModifyPlanRequest) bool {
	p := path.Root("cloud")
	configured := valueAt(req.Config.Raw, p)
	if configured.IsNull() {
		return false
	}
	return !configured.IsKnown() || !configured.Equal(valueAt(req.State.Raw, p))
}

// specFields reads the named spec fields of the document of a kind in a
// manifest.
func specFields(manifest, kind string, fields []string) (map[string]any, bool) {
	for _, doc := range strings.Split(manifest, "---\n") {
		var obj map[string]any
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil || obj["kind"] != kind {
			continue
		}
		s, ok := obj["spec"].(map[string]any)
		if !ok {
			return nil, false
		}
		out := map[string]any{}
		for _, f := range fields {
			out[f] = s[f]
		}
		return out, true
	}
	return nil, false
}

// attributeChanged compares one attribute of the prior state and the plan.
// An unknown planned value counts as a change. An attribute of an absent
// block is null.
func attributeChanged(req resource.ModifyPlanRequest, p path.Path) bool {
	before, after := valueAt(req.State.Raw, p), valueAt(req.Plan.Raw, p)
	switch {
	case !after.IsKnown():
		return true
	case before.IsNull() && after.IsNull():
		return false
	}
	return !before.Equal(after)
}

// valueAt is the value at an attribute path of nested attributes, or the
// value of the block that holds it when that block is null or unknown.
func valueAt(raw tftypes.Value, p path.Path) tftypes.Value {
	steps := tftypes.NewAttributePath()
	for _, step := range p.Steps() {
		if name, ok := step.(path.PathStepAttributeName); ok {
			steps = steps.WithAttributeName(string(name))
		}
	}
	v, _, _ := tftypes.WalkAttributePath(raw, steps)
	value, _ := v.(tftypes.Value)
	return value
}

// A kind with Immutable.RecreateObject (a distributed job) is not replaced
// as a resource when an immutable field of its object changes: Terraform's
// replacement deletes every object, and its companions (the headless
// Service) would come back with a new identity. Instead the plan is an
// update whose uid is unknown, and that unknown uid is what tells the
// apply to delete the old object and create the new one, so the plan and
// the apply cannot disagree on whether the Job re-runs.

// planRecreate marks the plan as re-creating the workload object, and says
// so: the plan shows an update, but the Job's pods start again.
func planRecreate(plan *workloadModel, k kindkit.Kind, changed path.Paths, diags *diag.Diagnostics) {
	plan.UID = types.StringUnknown()
	names := make([]string, 0, len(changed))
	for _, p := range changed {
		names = append(names, p.String())
	}
	diags.AddWarning("The "+k.GVK.Kind+" will be re-created", "A change to "+strings.Join(names, ", ")+" reaches the "+
		k.GVK.Kind+"'s pod template, which Kubernetes does not allow changing. The apply deletes the "+k.GVK.Kind+
		" (its pods stop), waits until its pods are gone and creates it again: the job runs again from the start. "+
		"The objects beside it (the headless Service) are kept.")
}

// adoptedDiffers reports an object import adopted (and no apply has
// applied since) whose immutable fields the configuration renders
// differently: the corrections the import listed reach its pod template.
func adoptedDiffers(ctx context.Context, req resource.ModifyPlanRequest, k kindkit.Kind, stateManifest string, planManifest types.String) bool {
	adopted, diags := req.Private.GetKey(ctx, privateAdopted)
	if diags.HasError() || string(adopted) != "true" || planManifest.IsUnknown() {
		return false
	}
	before, okBefore := specFields(stateManifest, k.GVK.Kind, k.Immutable.SpecFields)
	after, okAfter := specFields(planManifest.ValueString(), k.GVK.Kind, k.Immutable.SpecFields)
	return okBefore && okAfter && !reflect.DeepEqual(before, after)
}

// planRecreateAdopted marks the plan as re-creating an adopted object
// whose pod template the configuration renders differently, and says so:
// never an update the server would refuse, never silently.
func planRecreateAdopted(plan *workloadModel, k kindkit.Kind, diags *diag.Diagnostics) {
	plan.UID = types.StringUnknown()
	diags.AddWarning("The "+k.GVK.Kind+" will be re-created", "The imported "+k.GVK.Kind+"'s pod template differs "+
		"from what this configuration renders (the corrections the import listed), and Kubernetes does not allow "+
		"changing it. The apply deletes the "+k.GVK.Kind+" (its pods stop), waits until its pods are gone and creates "+
		"it again: the job runs again from the start. The objects beside it (the headless Service) are kept. "+
		"To keep the running "+k.GVK.Kind+" instead, remove the resource from the state (terraform state rm) "+
		"until it has finished.")
}

// recreating reports whether this update re-creates the workload object:
// the plan said so with an unknown uid.
func recreating(plan workloadModel, prior *workloadModel, rendered *workload.Rendered) bool {
	return prior != nil && plan.UID.IsUnknown() && rendered.Kind.Immutable.RecreateObject
}

// deleteForRecreate deletes the prior workload object (by its UID, so a
// newer object of the name is never touched), and waits until it, its pods
// and its Kueue workloads are gone, so the new one's pods get the GPUs,
// the quota and the stable names.
func deleteForRecreate(ctx context.Context, client *kube.Client, prior workloadModel, rendered *workload.Rendered) diag.Diagnostics {
	var diags diag.Diagnostics
	ref, err := kube.RefOf(rendered.Workload())
	if err != nil {
		diags.AddError("Cannot re-create gpu_workload", err.Error())
		return diags
	}
	if err := deleteAndWait(ctx, client, rendered, ref, k8stypes.UID(prior.UID.ValueString())); err != nil {
		diags.AddError("Cannot re-create gpu_workload", "Deleting "+ref.String()+" before creating it again: "+err.Error())
	}
	return diags
}

// deleteAndWait deletes the workload object and waits until it, its pods
// and the Kueue workloads that admitted it are gone.
func deleteAndWait(ctx context.Context, client *kube.Client, rendered *workload.Rendered, ref kube.ObjectRef, uid k8stypes.UID) error {
	selector := podSelector(rendered)
	queued := kueueWorkloadNames(ctx, client, rendered, ref, uid, selector)
	if err := client.Delete(ctx, ref, uid); err != nil {
		return err
	}
	return resourcekit.WaitDeleted(ctx, client, ref, selector, queued)
}
