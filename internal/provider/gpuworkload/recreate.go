package gpuworkload

import (
	"context"
	"reflect"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds/kindkit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

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
	if err := client.WaitGone(ctx, ref, selector); err != nil {
		return err
	}
	return client.WaitKueueReleased(ctx, ref.Namespace, queued)
}
