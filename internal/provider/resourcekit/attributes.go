package resourcekit

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	providerschema "github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
)

// The attributes every resource that applies objects to the cluster has,
// declared once so they mean the same on each: apply, force_conflicts,
// unschedulable_timeout, uid and manifests.

// ApplyAttribute is `apply`: render only, or apply too.
func ApplyAttribute() schema.BoolAttribute {
	return schema.BoolAttribute{
		MarkdownDescription: "Apply to the cluster. With `false`, only `manifests` is rendered (for GitOps) and the cluster " +
			"is never contacted. Defaults to `true`.",
		Optional: true,
		Computed: true,
		Default:  booldefault.StaticBool(true),
	}
}

// ForceConflictsAttribute is `force_conflicts`, server-side apply's force.
func ForceConflictsAttribute() schema.BoolAttribute {
	return schema.BoolAttribute{
		MarkdownDescription: "Take over fields owned by another server-side apply field manager instead of failing.",
		Optional:            true,
	}
}

// UnschedulableTimeoutAttribute is `unschedulable_timeout`; pods names
// whose pods the scheduler refuses ("a pod of the workload").
func UnschedulableTimeoutAttribute(pods string) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: "How long the apply keeps waiting once the scheduler has refused " + pods + " " +
			"(`PodScheduled` false, reason `Unschedulable`), as a duration such as `\"0s\"` or `\"5m\"`. When it " +
			"passes, the apply fails with the scheduler's reason and the cluster's GPU pools closest to what the pods " +
			"ask for, instead of at the end of `timeouts`. `\"0s\"` gives up at the scheduler's first refusal: right " +
			"for a cluster whose nodes are all there. Leave it unset (wait for the whole timeout) or give it a few " +
			"minutes where a cluster autoscaler or Karpenter adds nodes for pending pods. A pod that gets scheduled " +
			"stops its count; refused again, it starts over.",
		Optional:   true,
		Validators: []validator.String{tfconv.NonNegativeDuration()},
	}
}

// UIDAttribute is `uid`, the applied object's; of names it.
func UIDAttribute(of string) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: "UID of the " + of + ".",
		Computed:            true,
		PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
	}
}

// ManifestsAttribute is `manifests`, the rendered objects; description
// says which, and what drift shows there.
func ManifestsAttribute(description string) schema.ListAttribute {
	return schema.ListAttribute{MarkdownDescription: description, Computed: true, ElementType: types.StringType}
}

// NamespacedIDAttribute is `id` of a resource that applies one namespaced
// object: `<namespace>/<name>`, which is also what import takes.
func NamespacedIDAttribute() schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: "`<namespace>/<name>`; the import ID.",
		Computed:            true,
		PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
	}
}

// NamespaceAttribute is `namespace` of a resource that applies one
// namespaced object; of names what is there ("workload"). Kubernetes cannot
// move an object between namespaces, so a change re-creates it.
func NamespaceAttribute(of string) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: "Namespace of the " + of + ". Changing it re-creates the " + of + ".",
		Required:            true,
		PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
	}
}

// TimeoutsBlock is the timeouts block of a resource that waits for what it
// applies on create and update, and for its removal on delete.
func TimeoutsBlock(ctx context.Context) schema.Block {
	return timeouts.Block(ctx, timeouts.Opts{Create: true, Update: true, Delete: true})
}

// CloudAttribute is a resource's `cloud`: one of allowed (clouds.Names, or
// clouds.PoolNames where the cloud must have node pools), listed in the
// description between before and after; a near miss is answered with the
// cloud it resembles.
func CloudAttribute(allowed []string, before, after string) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: before + tfconv.MarkdownList(allowed) + after,
		Optional:            true,
		Validators:          cloudValidators(allowed),
	}
}

// cloudValidators refuse a cloud not in allowed, answering a near miss
// with the cloud it resembles: the one rule of every `cloud` attribute, and
// of the provider's `default_cloud`.
func cloudValidators(allowed []string) []validator.String {
	return []validator.String{tfconv.OneOfSuggesting(allowed, clouds.Suggest)}
}

// DefaultCloudAttribute is the provider's `default_cloud`: one of
// clouds.Names, listed in the description between before and after,
// validated as a resource's `cloud` (CloudAttribute), which it stands in
// for.
func DefaultCloudAttribute(before, after string) providerschema.StringAttribute {
	return providerschema.StringAttribute{
		MarkdownDescription: before + tfconv.MarkdownList(clouds.Names()) + after,
		Optional:            true,
		Validators:          cloudValidators(clouds.Names()),
	}
}

// PlannedCloudAttribute is CloudAttribute for a resource whose plan
// records the cloud it picked when none is set (the node pools', or the
// provider's default_cloud).
func PlannedCloudAttribute(allowed []string, before, after string) schema.StringAttribute {
	a := CloudAttribute(allowed, before, after)
	a.Computed = true
	return a
}
