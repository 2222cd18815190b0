package resourcekit

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

func TestStaleRefsAreWhatTheNewVersionNoLongerRenders(t *testing.T) {
	obj := func(kind, ns, name string) workload.Object {
		return &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: kind}, ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	}
	before := []workload.Object{obj("ConfigMap", "a", "kept"), obj("ConfigMap", "a", "gone"), obj("ConfigMap", "b", "kept")}
	now := []workload.Object{obj("ConfigMap", "a", "kept"), obj("ConfigMap", "b", "kept"), obj("ConfigMap", "a", "new")}
	got := StaleRefs(before, now)
	if len(got) != 1 || got[0].Namespace != "a" || got[0].Name != "gone" {
		t.Fatalf("stale = %v, want only a/gone", got)
	}
	if len(StaleRefs(nil, now)) != 0 || len(StaleRefs(before, before)) != 0 {
		t.Fatal("nothing is stale without a previous version or without a change")
	}
}
