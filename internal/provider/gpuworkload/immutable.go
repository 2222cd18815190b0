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
	"sigs.k8s.io/yaml"

	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds/kindkit"
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
// apply to re-create the object (recreate.go).
func requireReplacement(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, plan *workloadModel) {
	k, ok := kinds.Lookup(plan.Kind.ValueString())
	if req.State.Raw.IsNull() || !ok || len(k.Immutable.SpecFields) == 0 {
		return
	}
	manifest, diags := stateManifest(ctx, req.State)
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
