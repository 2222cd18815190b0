package gpuworkload

import (
	"context"
	"errors"
	"reflect"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"sigs.k8s.io/yaml"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// podTemplateAttributes are the attributes that end up in the pod template.
// A Job's pod template is immutable in Kubernetes (batch/v1 validation
// rejects any change to spec.template), so changing one of these on a Job
// can only be done by replacing the Job, as the Kubernetes provider's
// kubernetes_job_v1 does.
var podTemplateAttributes = []string{
	"image", "command", "args", "env", "secret_env", "ports", "service_account_name",
	"gpu", "size", "cpu", "memory", "shm_size", "model_cache", "startup_probe", "liveness_probe",
	"readiness_probe", "ipc_lock", "spot", "pod_labels", "pod_annotations", "node_pool", "patch", "container_name",
	"image_pull_secrets", "priority_class_name",
}

// jobImmutableAttributes are the attributes that reach an immutable field of
// a Job: its pod template, and spec.completions, which batch/v1 validation
// lets change only on Indexed Jobs (gpu_workload creates NonIndexed ones; a
// real API server answers "spec.completions: field is immutable").
func jobImmutableAttributes() path.Paths {
	paths := make(path.Paths, 0, len(podTemplateAttributes)+1)
	for _, name := range podTemplateAttributes {
		paths = append(paths, path.Root(name))
	}
	return append(paths, path.Root("job").AtName("completions"))
}

// requireJobReplacement marks the changed attributes that reach an immutable
// field of a Job as forcing its replacement.
func requireJobReplacement(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, plan WorkloadModel) {
	if req.State.Raw.IsNull() || plan.Kind.ValueString() != spec.KindJob {
		return
	}
	manifest, diags := stateManifest(ctx, req.State)
	resp.Diagnostics.Append(diags...)
	replace, diags := jobReplacement(req, manifest.ValueString(), plan.Manifest.ValueString())
	resp.RequiresReplace = append(resp.RequiresReplace, replace...)
	resp.Diagnostics.Append(diags...)
}

// jobReplacement decides, for a Job whose planned immutable fields differ
// from the ones in state, which changed attributes force the replacement.
// When those fields changed although no attribute did (a new provider
// version renders them differently, or default_cloud changed), it warns
// instead: replacing would re-run a Job nobody asked to re-run.
// When the planned manifest is not known (an attribute known only at apply,
// or a DRA claim whose API version the server decides), every changed or
// unknown attribute that reaches them forces the replacement, as Terraform
// does for any attribute that requires replacement.
func jobReplacement(req resource.ModifyPlanRequest, stateManifest, planManifest string) (path.Paths, diag.Diagnostics) {
	var diags diag.Diagnostics
	changed := changedAttributes(req, jobImmutableAttributes())
	if configuredCloudChanged(req) {
		changed = append(changed, path.Root("cloud"))
	}
	before, okBefore := jobImmutableFields(stateManifest)
	after, okAfter := jobImmutableFields(planManifest)
	if !okBefore || !okAfter {
		return changed, diags
	}
	if reflect.DeepEqual(before, after) {
		return nil, diags
	}
	if len(changed) == 0 {
		diags.AddWarning("This Job's pod template would change",
			"The provider now renders this Job's pod template (or completions) differently, although no attribute "+
				"of it changed. Kubernetes does not allow changing them on a Job, so the update will be refused. "+
				"Allowed: replace the Job (terraform apply -replace=<address>) if it should run again with the new "+
				"template, or leave it as it is.")
	}
	return changed, diags
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
// the template attributes; default_cloud only warns, see jobReplacement).
func configuredCloudChanged(req resource.ModifyPlanRequest) bool {
	p := path.Root("cloud")
	configured := valueAt(req.Config.Raw, p)
	if configured.IsNull() {
		return false
	}
	return !configured.IsKnown() || !configured.Equal(valueAt(req.State.Raw, p))
}

// jobImmutableFields reads spec.template and spec.completions of the Job
// document of a manifest.
func jobImmutableFields(manifest string) (map[string]any, bool) {
	for _, doc := range strings.Split(manifest, "---\n") {
		var obj map[string]any
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil || obj["kind"] != "Job" {
			continue
		}
		spec, ok := obj["spec"].(map[string]any)
		if !ok {
			return nil, false
		}
		return map[string]any{"template": spec["template"], "completions": spec["completions"]}, true
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

// jobOutlivedTheWait reports whether the wait ended because its time ran out
// (or Terraform was interrupted) while the Job itself had not failed. Such a
// Job is kept in state without an error: an error would taint it, and the
// next apply would delete a training run hours in and start it again.
func jobOutlivedTheWait(ctx context.Context, plan WorkloadModel, waitErr error) bool {
	var notReady *kube.NotReadyError
	return plan.Kind.ValueString() == spec.KindJob && ctx.Err() != nil &&
		errors.As(waitErr, &notReady) && notReady.Failure == ""
}

func jobStillRunningDetail(plan WorkloadModel, explanation string) string {
	return explanation + "\n\nThe Job stays in the cluster, pending or running, and is recorded in the state as created, not tainted: the next " +
		"plan shows no change for it and does not re-run it. wait_for = \"" + string(waitMode(plan)) + "\" waited until " +
		"the create (or update) timeout. To wait longer, raise timeouts { create = \"24h\" }; to return as soon as " +
		"its pods run, set wait_for = \"scheduled\". A Job that fails is still reported as an error."
}
