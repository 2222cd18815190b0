package resourcekit

import (
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// Prune removes what the new version no longer renders, in the reverse
// order of the apply, and reports what each removal said.
func TestPruneRemovesWhatTheNewVersionNoLongerRendersNewestFirst(t *testing.T) {
	obj := func(ns, name string) workload.Object {
		return &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	}
	before := []workload.Object{obj("a", "first"), obj("a", "kept"), obj("b", "second"), obj("b", "kept")}
	now := []workload.Object{obj("a", "kept"), obj("b", "kept"), obj("a", "new")}
	var removed []string
	diags := Prune(before, now, func(ref kube.ObjectRef) diag.Diagnostics {
		removed = append(removed, ref.Namespace+"/"+ref.Name)
		var d diag.Diagnostics
		d.AddWarning("removed "+ref.Name, "")
		return d
	})
	if want := []string{"b/second", "a/first"}; !slices.Equal(removed, want) {
		t.Fatalf("removed %v, want %v", removed, want)
	}
	if diags.WarningsCount() != 2 {
		t.Fatalf("want each removal's diagnostics, got %v", diags)
	}
	none := func(kube.ObjectRef) diag.Diagnostics { t.Fatal("nothing is stale"); return nil }
	Prune(nil, now, none)
	Prune(before, before, none)
}
