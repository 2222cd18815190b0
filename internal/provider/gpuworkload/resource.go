package gpuworkload

import (
	"context"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	utilversion "k8s.io/apimachinery/pkg/util/version"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/refs"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kueuever"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// NewResource returns the gpu_workload resource.
func NewResource() resource.Resource {
	r := resourcekit.New[workloadResource]("_workload")
	r.Steps = resourcekit.RenderedSteps[workloadModel]{Apply: r.applyWorkload, Refresh: refreshWorkload, Remove: deleteWorkload,
		Objects: renderedObjects}
	return r
}

type workloadResource struct {
	resourcekit.RenderedResource[workloadModel, *workloadModel]
}

// ModifyPlan validates the workload and renders the manifest from
// configuration alone. The only cluster call while planning is the one
// read of Kueue's release, for a queued DRA workload when kueue_version is
// unset (resourcekit.Data.Kueue).
func (r *workloadResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan workloadModel
	resp.Diagnostics.Append(resourcekit.GetRendered(ctx, req.Plan, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if plan.Apply.ValueBool() {
		r.Data.CheckCluster("This gpu_workload", &resp.Diagnostics)
	}
	var configuredCloud types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("cloud"), &configuredCloud)...)
	if configuredCloud.IsNull() {
		plan.Cloud = types.StringNull() // decided below: node_pool, then default_cloud
	}
	in := judgedIntentFromModel(ctx, plan, r.DefaultCloud(), resourcekit.Final, func() kueuever.Known { return r.Data.Kueue(ctx) })
	resp.Diagnostics.Append(in.diags...)
	// The cloud comes from node_pool or default_cloud, both known at plan
	// unless node_pool itself is; other unknown attributes do not change
	// it, and leaving it null then would contradict the final plan.
	if configuredCloud.IsNull() && refs.PoolCloudUnknown(plan.NodePool) {
		plan.Cloud = types.StringUnknown()
	} else if configuredCloud.IsNull() {
		if in.workload.Cloud == "" {
			resp.Diagnostics.AddAttributeError(path.Root("cloud"), "Missing cloud",
				"Set cloud or node_pool on this resource, or default_cloud in the provider \"gpu\" block. Allowed clouds: "+
					tfconv.MarkdownList(clouds.Names())+".")
			return
		}
		plan.Cloud = types.StringValue(in.workload.Cloud)
	}
	resp.Diagnostics.Append(resourcekit.RenderDiagnostics(planOnlyFindings(ctx, in, plan, configuredCloud))...)
	if resp.Diagnostics.HasError() || in.findings.HasError() {
		return
	}
	plan.ID = plan.NamespacedID()
	if in.unknown {
		requireReplacement(ctx, req, resp, &plan)
		resp.Diagnostics.Append(resourcekit.SetRenderedPlan(ctx, &resp.Plan, &plan)...)
		return
	}
	rendered, rdiags := in.render(draVersionFromState(ctx, req))
	resp.Diagnostics.Append(resourcekit.RenderDiagnostics(rdiags)...)
	resp.Diagnostics.Append(resourcekit.RenderDiagnostics(in.queueFindings(rendered))...)
	resp.Diagnostics.Append(resourcekit.RenderDiagnostics(gangFindings(in.workload))...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(setRenderedOutputs(ctx, &plan, rendered)...)
	if rendered.DRAAPIVersionAssumed && plan.Apply.ValueBool() {
		// The resource.k8s.io version depends on the server, asked at apply.
		plan.Manifest = types.StringUnknown()
	}
	requireReplacement(ctx, req, resp, &plan)
	switch {
	case !plan.Apply.ValueBool():
		plan.UID = types.StringValue("")
		plan.ScheduledNodes = types.ListValueMust(types.StringType, nil)
	case manifestChanged(ctx, req, plan):
		// Drift repairs and changes may move pods; only apply knows where.
		plan.ScheduledNodes = types.ListUnknown(types.StringType)
	}
	resp.Diagnostics.Append(resourcekit.SetRenderedPlan(ctx, &resp.Plan, &plan)...)
}

// Update is the shared one (resourcekit.RenderedResource), after which an
// adopted object is the configuration's.
func (r *workloadResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.RenderedResource.Update(ctx, req, resp)
	if adopted, _ := req.Private.GetKey(ctx, privateAdopted); len(adopted) > 0 && !resp.Diagnostics.HasError() {
		// Applied: the object is the configuration's now, not an adopted one.
		resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateAdopted, nil)...)
	}
}

// ValidateConfig runs every GPU rule that configuration alone decides.
// Terraform points these diagnostics at the offending line, which it does
// not do for plan-time ones, so this is where they belong.
func (r *workloadResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var config workloadModel
	resp.Diagnostics.Append(resourcekit.GetRendered(ctx, req.Config, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}
	in := intentFromModel(ctx, config, "", resourcekit.Lenient)
	resp.Diagnostics.Append(in.diags...)
	rejected := schemaRejected(in.raw, config.WaitFor.ValueString())
	resp.Diagnostics.Append(resourcekit.RenderDiagnostics(withoutSchemaRejected(in.findings, rejected))...)
	checkNoPodsWait(config, &resp.Diagnostics)
	checkAdmittedWait(config, &resp.Diagnostics)
	checkUnschedulableLimit(config, &resp.Diagnostics)
	checkTopologySlices(config, &resp.Diagnostics)
}

// checkAdmittedWait: only Kueue reports admission, so waiting for it needs
// a Kueue queue.
func checkAdmittedWait(m workloadModel, diags *diag.Diagnostics) {
	if m.WaitFor.ValueString() != string(kube.WaitAdmitted) || m.Queue.IsUnknown() {
		return
	}
	scheduler := m.QueueScheduler.ValueString()
	if m.Queue.IsNull() || (scheduler != "" && scheduler != spec.QueueSchedulerKueue) {
		diags.AddAttributeError(path.Root("wait_for"), "Nothing admits this workload",
			"wait_for = \"admitted\" waits for Kueue to admit the workload, which needs a Kueue queue. "+
				"Allowed: set queue to a gpu_queue ref or a LocalQueue name, or another wait_for.")
	}
}

// checkNoPodsWait: some kinds have no rollout and no pods to wait for (a
// CronJob starts none until its schedule fires), so the apply cannot wait
// for one.
func checkNoPodsWait(m workloadModel, diags *diag.Diagnostics) {
	waitFor := m.WaitFor.ValueString()
	k, ok := kinds.Lookup(m.Kind.ValueString())
	if ok && k.Wait.NoPods != "" && waitFor != "" && waitFor != string(kube.WaitNone) {
		diags.AddAttributeError(path.Root("wait_for"), "Nothing to wait for on a "+k.Name,
			"wait_for = \""+waitFor+"\" waits for pods, but "+k.Wait.NoPods+". "+
				"Allowed: wait_for = \"none\" or unset on a "+k.Name+".")
	}
}

// checkUnschedulableLimit: the limit ends a wait for pods, so it means
// nothing where the apply does not wait.
func checkUnschedulableLimit(m workloadModel, diags *diag.Diagnostics) {
	if m.UnschedulableLimit.IsNull() || m.UnschedulableLimit.IsUnknown() || m.WaitFor.IsUnknown() || m.Kind.IsUnknown() {
		return
	}
	if waitMode(m) == kube.WaitNone {
		diags.AddAttributeError(path.Root("unschedulable_timeout"), "Nothing to wait for",
			"unschedulable_timeout ends the apply's wait for the pods, but this workload's apply does not wait for them "+
				"(wait_for = \"none\", or a cronjob). Allowed: unset, or set wait_for to one of "+
				gpudiag.QuoteList(waitingModes())+" (not on a cronjob).")
	}
}

// waitingModes are the wait_for values under which the apply waits for pods.
func waitingModes() []string {
	return slices.DeleteFunc(kube.WaitModes(), func(m string) bool { return m == string(kube.WaitNone) })
}

// planOnlyFindings are the plan's findings that ValidateConfig, which saw
// the same configuration leniently and without the provider's
// configuration, did not report: the final ones (a required value unset),
// and, when default_cloud decided the cloud, what that cloud adds. Only
// that last case resolves the configuration a second time.
func planOnlyFindings(ctx context.Context, in workloadIntent, plan workloadModel, configuredCloud types.String) gpudiag.Diagnostics {
	if !in.cloudDefaulted {
		return in.findings.Final()
	}
	base := plan
	base.Cloud = configuredCloud
	return resourcekit.Subtract(in.findings, intentFromModel(ctx, base, "", resourcekit.Lenient).findings)
}

// draVersionFromState recovers, for DRA workloads, the server version the
// last apply rendered for: the resource.k8s.io version of its claim
// template is in the manifest. Without it the plan would show the manifest
// as unknown on every run.
func draVersionFromState(ctx context.Context, req resource.ModifyPlanRequest) *utilversion.Version {
	if req.State.Raw.IsNull() {
		return nil
	}
	manifest, diags := resourcekit.StateManifest(ctx, req.State)
	if diags.HasError() || manifest.ValueString() == "" {
		return nil
	}
	return resourcekit.DRAVersionOf(manifest.ValueString())
}

// manifestChanged reports whether the planned manifest differs from the
// one in state, which also covers drift the refresh found.
func manifestChanged(ctx context.Context, req resource.ModifyPlanRequest, plan workloadModel) bool {
	if req.State.Raw.IsNull() {
		return true
	}
	manifest, diags := resourcekit.StateManifest(ctx, req.State)
	if diags.HasError() {
		return true
	}
	return !manifest.Equal(plan.Manifest)
}
