package acctest

// Readers of kubernetes_v1_affinity, the node affinity in
// kubernetes_deployment_v1's shape that gpu_node_pool_policy and
// gpu_pod_placement output, for the tests of both.

import (
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// APIAffinity decodes an `affinity` value of the plan JSON (the API's
// shape); null gives nil.
func APIAffinity(t testing.TB, v any) *corev1.Affinity {
	t.Helper()
	if v == nil {
		return nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var a corev1.Affinity
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatalf("affinity %s: %v", raw, err)
	}
	return &a
}

// AssertSameAffinity fails the test when got differs from want.
func AssertSameAffinity(t testing.TB, want, got *corev1.Affinity) {
	t.Helper()
	if !equality.Semantic.DeepEqual(want, got) {
		w, _ := json.Marshal(want)
		g, _ := json.Marshal(got)
		t.Errorf("affinity changed on the way through kubernetes_v1_affinity:\nwant %s\n got %s", w, g)
	}
}

// ExcludesLabel reports whether the first required term has a NotIn
// requirement on key.
func ExcludesLabel(a *corev1.Affinity, key string) bool {
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return false
	}
	terms := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	if len(terms) == 0 {
		return false
	}
	for _, r := range terms[0].MatchExpressions {
		if r.Key == key && r.Operator == corev1.NodeSelectorOpNotIn && len(r.Values) > 0 {
			return true
		}
	}
	return false
}

// AffinityFromV1Plain reads kubernetes_v1_affinity as plain values (from
// a Terraform value or plan JSON) by kubernetes_deployment_v1's block
// names, without the conversion's own types, as the kubernetes provider
// reads its affinity block.
func AffinityFromV1Plain(t testing.TB, plain any) *corev1.Affinity {
	t.Helper()
	nodeAffinities := BlockList(t, plain, "node_affinity")
	if len(nodeAffinities) != 1 {
		t.Fatalf("node_affinity has %d blocks, want 1 (Max: 1)", len(nodeAffinities))
	}
	n := nodeAffinities[0]
	out := &corev1.NodeAffinity{}
	required := BlockList(t, n, "required_during_scheduling_ignored_during_execution")
	switch len(required) {
	case 0:
	case 1:
		out.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{
			NodeSelectorTerms: termsFromV1(t, BlockList(t, required[0], "node_selector_term")),
		}
	default:
		t.Fatalf("required_during_scheduling_ignored_during_execution has %d blocks (Max: 1)", len(required))
	}
	for _, p := range BlockList(t, n, "preferred_during_scheduling_ignored_during_execution") {
		preference := BlockList(t, p, "preference")
		weight, ok := wholeNumber(AsMap(t, p)["weight"])
		if len(preference) != 1 || !ok {
			t.Fatalf("preferred term %v: want a weight and exactly one preference", p)
		}
		out.PreferredDuringSchedulingIgnoredDuringExecution = append(out.PreferredDuringSchedulingIgnoredDuringExecution,
			corev1.PreferredSchedulingTerm{Weight: int32(weight), Preference: termsFromV1(t, preference)[0]})
	}
	return &corev1.Affinity{NodeAffinity: out}
}

func termsFromV1(t testing.TB, blocks []any) []corev1.NodeSelectorTerm {
	t.Helper()
	var out []corev1.NodeSelectorTerm
	for _, b := range blocks {
		out = append(out, corev1.NodeSelectorTerm{
			MatchExpressions: requirementsFromV1(t, BlockList(t, b, "match_expressions")),
			MatchFields:      requirementsFromV1(t, BlockList(t, b, "match_fields")),
		})
	}
	return out
}

func requirementsFromV1(t testing.TB, blocks []any) []corev1.NodeSelectorRequirement {
	t.Helper()
	var out []corev1.NodeSelectorRequirement
	for _, b := range blocks {
		m := AsMap(t, b)
		key, keyOK := m["key"].(string)
		operator, operatorOK := m["operator"].(string)
		if !keyOK || !operatorOK {
			t.Fatalf("requirement %v: want key and operator", m)
		}
		var values []string
		for _, v := range BlockList(t, b, "values") {
			s, ok := v.(string)
			if !ok {
				t.Fatalf("value %v is not a string", v)
			}
			values = append(values, s)
		}
		out = append(out, corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOperator(operator), Values: values})
	}
	return out
}

// BlockList is the list under name, which must be present.
func BlockList(t testing.TB, v any, name string) []any {
	t.Helper()
	list, ok := AsMap(t, v)[name].([]any)
	if !ok {
		t.Fatalf("no list %q in %v", name, v)
	}
	return list
}

// wholeNumber reads an integer from a Terraform value (int64) or from
// plan JSON (json.Number).
func wholeNumber(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	}
	return 0, false
}

// AsMap is v as an object, which it must be.
func AsMap(t testing.TB, v any) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%v is not an object", v)
	}
	return m
}
