package resourcekit

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
)

// SpecAnnotation records, on the main object of gpu_workload and
// gpu_ray_cluster, the intent it was rendered from. Import reads it back: a
// rendered object alone cannot say which of its selectors were the user's
// intent and which the cloud's or the pool's rules. A create recognises
// its own interrupted apply by it (InterruptedCreate).
const SpecAnnotation = "gpu.gpuform.io/spec"

// LiveBeforeCreate is the object a create of resourceType is about to
// write as it is in the cluster (nil when there is none), read straight
// from the server: the cache only holds labelled objects and a moment-old
// copy could miss an object created just now. false after an error.
func LiveBeforeCreate(ctx context.Context, client *kube.Client, resourceType string, obj runtime.Object,
	diags *diag.Diagnostics) (kube.ObjectRef, *unstructured.Unstructured, bool) {
	ref, err := kube.RefOf(obj)
	if err != nil {
		diags.AddError("Cannot create "+resourceType, err.Error())
		return ref, nil, false
	}
	live, err := client.GetFresh(ctx, ref)
	if err != nil {
		diags.AddError("Cannot create "+resourceType, err.Error())
		return ref, nil, false
	}
	return ref, live, true
}

// InterruptedCreate reports whether a live object is what this create
// would write (main, the rendered main object, with its SpecAnnotation),
// applied by this provider's fieldManager: the trace of a create whose
// response was lost. Taking it over is what the interrupted apply would
// have recorded; anything else needs import (or gpu_workload's adopt).
func InterruptedCreate(live *unstructured.Unstructured, main metav1.Object, fieldManager string) bool {
	want, ok := main.GetAnnotations()[SpecAnnotation]
	if !ok || live.GetAnnotations()[SpecAnnotation] != want {
		return false
	}
	for _, entry := range live.GetManagedFields() {
		if entry.Manager == fieldManager && entry.Operation == metav1.ManagedFieldsOperationApply {
			return true
		}
	}
	return false
}
