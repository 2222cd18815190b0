package gpuraycluster

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kueuever"
	"github.com/gpuform/terraform-provider-gpu/internal/render/ray"
)

// ModifyPlan validates the cluster and renders its manifests from the
// configuration alone; the plan reads nothing from the cluster.
func (r *rayClusterResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan clusterModel
	if resp.Diagnostics.Append(resourcekit.GetRendered(ctx, req.Plan, &plan)...); resp.Diagnostics.HasError() {
		return
	}
	kindChangeReplaces(ctx, req, plan, resp)
	if plan.Apply.ValueBool() {
		r.Data.CheckCluster("This gpu_ray_cluster", &resp.Diagnostics)
	}
	in := judgedIntentFromModel(ctx, plan, r.DefaultCloud(), resourcekit.Final, func() kueuever.Known { return r.Data.Kueue(ctx) })
	resp.Diagnostics.Append(in.diags...)
	resp.Diagnostics.Append(resourcekit.RenderDiagnostics(planOnlyFindings(ctx, in, plan))...)
	if resp.Diagnostics.HasError() || in.findings.HasError() {
		return
	}
	plan.ID, plan.Kind = plan.NamespacedID(), kindOf(plan)
	if in.unknown {
		plan.Manifest, plan.NumGPUs = types.StringUnknown(), types.MapUnknown(types.Int64Type)
		plan.State = types.StringUnknown()
		resp.Diagnostics.Append(resourcekit.SetRenderedPlan(ctx, &resp.Plan, &plan)...)
		return
	}
	prior := priorManifest(ctx, req)
	version := resourcekit.DRAVersionOf(prior)
	rendered, rdiags := in.render(version)
	resp.Diagnostics.Append(resourcekit.RenderDiagnostics(rdiags)...)
	resp.Diagnostics.Append(resourcekit.RenderDiagnostics(in.queueFindings(rendered))...)
	if resp.Diagnostics.HasError() || rendered == nil {
		return
	}
	plan.Manifest, plan.NumGPUs = types.StringValue(rendered.Manifest), numGPUs(rendered)
	if in.usesDRA() && version == nil && plan.Apply.ValueBool() {
		// The resource.k8s.io version depends on the server, asked at apply.
		plan.Manifest = types.StringUnknown()
	}
	planStatus(ctx, req, &plan, prior)
	resp.Diagnostics.Append(resourcekit.SetRenderedPlan(ctx, &resp.Plan, &plan)...)
}

// planStatus plans the status attributes: nothing with apply = false, what
// the apply finds when it applies something, and the last refresh's
// otherwise (an update that changes only how Terraform waits keeps it).
func planStatus(ctx context.Context, req resource.ModifyPlanRequest, plan *clusterModel, prior string) {
	switch {
	case !plan.Apply.ValueBool():
		plan.UID, plan.State = types.StringValue(""), types.StringValue("")
	case req.State.Raw.IsNull() || plan.Manifest.IsUnknown() || prior != plan.Manifest.ValueString():
		plan.State = types.StringUnknown()
	default:
		var state types.String
		req.State.GetAttribute(ctx, path.Root("state"), &state)
		plan.State = state
	}
}

// priorManifest is the state's manifest as one stream, "" on create.
func priorManifest(ctx context.Context, req resource.ModifyPlanRequest) string {
	if req.State.Raw.IsNull() {
		return ""
	}
	manifest, diags := resourcekit.StateManifest(ctx, req.State)
	if diags.HasError() {
		return ""
	}
	return manifest.ValueString()
}

// planOnlyFindings are the plan's findings ValidateConfig, which saw the
// configuration leniently and without default_cloud, did not report.
func planOnlyFindings(ctx context.Context, in clusterIntent, plan clusterModel) gpudiag.Diagnostics {
	if !in.cloudDefaulted {
		return in.findings.Final()
	}
	return resourcekit.Subtract(in.findings, intentFromModel(ctx, plan, "", resourcekit.Lenient).findings)
}

// ValidateConfig runs every rule the configuration alone decides, where
// Terraform points at the offending line.
func (r *rayClusterResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var config clusterModel
	if resp.Diagnostics.Append(resourcekit.GetRendered(ctx, req.Config, &config)...); resp.Diagnostics.HasError() {
		return
	}
	in := intentFromModel(ctx, config, "", resourcekit.Lenient)
	resp.Diagnostics.Append(in.diags...)
	resp.Diagnostics.Append(resourcekit.RenderDiagnostics(in.findings)...)
	checkWaitFor(config, &resp.Diagnostics)
}

// checkWaitFor: complete needs a job to complete, admitted a queue to
// admit the cluster; the unschedulable limit ends a wait that happens.
func checkWaitFor(m clusterModel, diags *diag.Diagnostics) {
	mode := m.WaitFor.ValueString()
	switch {
	case mode == waitComplete && m.Job.IsNull():
		diags.AddAttributeError(path.Root("wait_for"), "Nothing completes", "wait_for = \"complete\" waits for a RayJob "+
			"to finish, and without a job block this is a RayCluster or RayService, which run until deleted. Allowed: a job "+
			"block, or another wait_for.")
	case mode == waitAdmitted && m.Queue.IsNull():
		diags.AddAttributeError(path.Root("wait_for"), "Nothing admits this cluster", "wait_for = \"admitted\" waits for "+
			"Kueue's admission, which needs queue. Allowed: set queue, or another wait_for.")
	case mode == waitNone && !m.UnschedulableLimit.IsNull():
		diags.AddAttributeError(path.Root("unschedulable_timeout"), "Nothing to wait for", "unschedulable_timeout ends "+
			"the apply's wait for the pods, and wait_for = \"none\" does not wait. Allowed: unset, or another wait_for.")
	}
}

// Wait modes of gpu_ray_cluster, and the kube wait each is.
const (
	waitReady     = "ready"
	waitComplete  = "complete"
	waitScheduled = "scheduled"
	waitAdmitted  = "admitted"
	waitNone      = "none"
)

var waitModes = map[string]kube.WaitMode{waitReady: kube.WaitRollout, waitComplete: kube.WaitComplete,
	waitScheduled: kube.WaitScheduled, waitAdmitted: kube.WaitAdmitted, waitNone: kube.WaitNone}

func waitModeNames() []string {
	return []string{waitReady, waitComplete, waitScheduled, waitAdmitted, waitNone}
}

// waitMode is the kube wait of the model's wait_for (ready when unset).
func waitMode(m clusterModel) kube.WaitMode {
	if mode, ok := waitModes[m.WaitFor.ValueString()]; ok {
		return mode
	}
	return kube.WaitRollout
}

// kindOf is the Ray object's kind, which the job and serve blocks decide.
func kindOf(m clusterModel) types.String {
	switch {
	case m.Job.IsUnknown() || m.Serve.IsUnknown():
		return types.StringUnknown()
	case !m.Job.IsNull():
		return types.StringValue(kube.GVKRayJob.Kind)
	case !m.Serve.IsNull():
		return types.StringValue(kube.GVKRayService.Kind)
	}
	return types.StringValue(kube.GVKRayCluster.Kind)
}

// numGPUs is Ray's GPUs of each group, by group name.
func numGPUs(r *ray.Rendered) types.Map {
	values := make(map[string]attr.Value, len(r.Groups))
	for _, g := range r.Groups {
		values[g.Name] = types.Int64Value(g.GPUs)
	}
	return types.MapValueMust(types.Int64Type, values)
}

// kindChangeReplaces re-creates the object when a job or serve block
// appears or goes: the block decides the object's kind (RayCluster, RayJob,
// RayService), which Kubernetes cannot change in place. A block whose
// presence is unknown (a dynamic block) may change it, so it replaces too.
// It is here rather than a plan modifier on the blocks so that the
// protocol layer's direct path serves the resource (it takes no nested
// plan modifiers).
func kindChangeReplaces(ctx context.Context, req resource.ModifyPlanRequest, plan clusterModel, resp *resource.ModifyPlanResponse) {
	if req.State.Raw.IsNull() {
		return // create
	}
	var state clusterModel
	if resp.Diagnostics.Append(resourcekit.GetRendered(ctx, req.State, &state)...); resp.Diagnostics.HasError() {
		return
	}
	for _, block := range []struct {
		name        string
		prior, next types.Object
	}{{"job", state.Job, plan.Job}, {"serve", state.Serve, plan.Serve}} {
		if block.next.IsUnknown() || block.prior.IsNull() != block.next.IsNull() {
			resp.RequiresReplace = append(resp.RequiresReplace, path.Root(block.name))
		}
	}
}
