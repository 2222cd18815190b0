package resourcekit

import (
	"context"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// Prune removes the objects a resource's previous version rendered that
// the new one does not: the one prune step of every resource that applies
// objects. It goes in the reverse order of the apply, so an object goes
// before the ones it names (a queue's flavors before their Topologies).
// remove deletes one object its resource's way (a flavor only when no other
// queue uses it); DeleteStale is the plain way.
func Prune(before, now []workload.Object, remove func(kube.ObjectRef) diag.Diagnostics) diag.Diagnostics {
	var diags diag.Diagnostics
	stale := staleRefs(before, now)
	slices.Reverse(stale)
	for _, ref := range stale {
		diags.Append(remove(ref)...)
	}
	return diags
}

// DeleteStale deletes an object the new version no longer renders. A
// failure is a warning with the given summary: what was applied stands.
func DeleteStale(ctx context.Context, client *kube.Client, ref kube.ObjectRef, summary string) diag.Diagnostics {
	var diags diag.Diagnostics
	if err := client.Delete(ctx, ref, ""); err != nil {
		diags.AddWarning(summary, err.Error())
	}
	return diags
}

// staleRefs are the objects of before, in their order, that now does not
// render.
func staleRefs(before, now []workload.Object) []kube.ObjectRef {
	keep := map[string]bool{}
	for _, obj := range now {
		if ref, err := kube.RefOf(obj); err == nil {
			keep[ref.String()] = true
		}
	}
	var out []kube.ObjectRef
	for _, obj := range before {
		if ref, err := kube.RefOf(obj); err == nil && !keep[ref.String()] {
			out = append(out, ref)
		}
	}
	return out
}
