package resourcekit

import (
	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// staleRefs are the objects a resource's previous version rendered that the
// new one does not: the one prune step of every resource that applies
// objects. Each resource then deletes them its own way (a flavor only when
// no other queue uses it).
func StaleRefs(before, now []workload.Object) []kube.ObjectRef {
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
