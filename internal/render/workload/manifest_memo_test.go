package workload

import (
	"testing"

	yamlv2 "go.yaml.in/yaml/v2"
)

// A document seen before gives the bytes encoding it gives; one changed
// in place after it was encoded (callers own their maps) is encoded again,
// never answered with the bytes of what it was.
func TestDocumentMemo_answersOnlyTheSameDocument(t *testing.T) {
	m := newMemo(16)
	encodes := 0
	encode := func(o map[string]any) ([]byte, error) { encodes++; return yamlv2.Marshal(o) }
	doc := func() map[string]any {
		return map[string]any{"kind": "Deployment", "spec": map[string]any{
			"replicas": int64(2), "paused": false, "list": []any{"a", int64(1), nil},
			"template": map[string]any{"labels": map[string]any{"app": "x", "tier": "gpu"}},
		}}
	}
	first := doc()
	want, _ := yamlv2.Marshal(first)
	for i, d := range []map[string]any{first, doc()} {
		got, err := m.encode(d, encode)
		if err != nil || string(got) != string(want) {
			t.Fatalf("encoding %d: %q, %v; want %q", i, got, err, want)
		}
	}
	if encodes != 1 {
		t.Errorf("an equal document was encoded %d times; want once", encodes)
	}
	spec, _ := first["spec"].(map[string]any)
	spec["replicas"] = int64(3)
	changed, _ := yamlv2.Marshal(first)
	if got, _ := m.encode(first, encode); string(got) != string(changed) {
		t.Errorf("a document changed in place after encoding: %q; want %q", got, changed)
	}
	if encodes != 2 {
		t.Errorf("a changed document: %d encodings; want 2", encodes)
	}
}

// Values that print differently are never equal, whatever their hashes.
func TestEqualPlain(t *testing.T) {
	for _, c := range []struct {
		a, b any
		want bool
	}{
		{int64(1), int64(1), true},
		{int64(1), "1", false},
		{int64(1), float64(1), false},
		{[]any{}, []any(nil), false},
		{map[string]any{}, map[string]any(nil), false},
		{map[string]any{"a": nil}, map[string]any{"b": nil}, false},
		{map[string]any{"a": []any{true}}, map[string]any{"a": []any{true}}, true},
		{[]any{"a", "b"}, []any{"b", "a"}, false},
	} {
		if got := equalPlain(c.a, c.b); got != c.want {
			t.Errorf("equalPlain(%#v, %#v) = %v; want %v", c.a, c.b, got, c.want)
		}
	}
}

// The memo forgets everything when full rather than growing.
func TestDocumentMemo_isBounded(t *testing.T) {
	m := newMemo(2)
	encode := func(o map[string]any) ([]byte, error) { return yamlv2.Marshal(o) }
	for i := range int64(5) {
		if _, err := m.encode(map[string]any{"n": i}, encode); err != nil {
			t.Fatal(err)
		}
		if m.size > 2 {
			t.Fatalf("after %d documents the memo holds %d; want at most 2", i+1, m.size)
		}
	}
}
