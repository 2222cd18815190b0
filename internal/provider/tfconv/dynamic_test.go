package tfconv

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestDynamicFrom_affinityBecomesObject(t *testing.T) {
	aff := &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "k", Operator: corev1.NodeSelectorOpIn, Values: []string{"a", "b"}}},
		}}},
	}}
	v, err := DynamicFrom(aff)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"k","operator":"In","values":["a","b"]}]}]}}}`
	if got := v.String(); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if null, _ := DynamicFrom(nil); !null.IsNull() {
		t.Fatal("nil must become null")
	}
}
