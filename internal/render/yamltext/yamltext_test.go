package yamltext

import (
	"testing"

	"sigs.k8s.io/yaml"
)

// Every string reads back unchanged from the text, with Helm's reader;
// sigs.k8s.io/yaml.Marshal refuses the first and changes NEL into a space.
func TestMarshal_everyStringReadsBackUnchanged(t *testing.T) {
	for _, value := range []string{
		"\x7f", "a\u0080b", "nel\u0085", "trail\u0085", "x\u009fy\ufffe\uffff", "tab\tnewline\n\x01",
		"ls\u2028ps\u2029", "{{ not a template }}", "plain",
	} {
		text, err := Marshal(map[string]any{"env": []any{map[string]any{"name": "K", "value": value}}})
		if err != nil {
			t.Fatalf("%q: %v", value, err)
		}
		var back struct {
			Env []struct{ Value string } `json:"env"`
		}
		if err := yaml.Unmarshal(text, &back); err != nil {
			t.Fatalf("%q: the YAML does not read back: %v\n%s", value, err, text)
		}
		if len(back.Env) != 1 || back.Env[0].Value != value {
			t.Errorf("%q: read back %+v from\n%s", value, back.Env, text)
		}
	}
}

// Text without such characters is byte for byte what sigs.k8s.io/yaml
// writes: no output changes for anyone else.
func TestMarshal_sameAsSigsYAMLOtherwise(t *testing.T) {
	v := map[string]any{"b": []any{1, "two", nil, true}, "a": map[string]any{"long": "a string of more than eighty columns, which the writer folds onto a continuation line"}}
	want, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Marshal(v)
	if err != nil || string(got) != string(want) {
		t.Fatalf("got %q (%v), want %q", got, err, want)
	}
}
