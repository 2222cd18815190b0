package workload

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/gpuform/terraform-provider-gpu/internal/render/yamltext"
)

// encodeDocument must write what sigs.k8s.io/yaml writes, byte for byte:
// for every object of every golden case, for strings YAML would read as
// something else, and for random nestings of both.
func TestEncodeDocument_sameAsSigsYAML(t *testing.T) {
	for _, c := range goldenCases() {
		r, _ := ResolveAndRender(c.workload, c.opts)
		if r == nil {
			continue
		}
		for _, obj := range r.Objects {
			m, err := ObjectMap(obj)
			if err != nil {
				t.Fatal(err)
			}
			if !plainValues(m) {
				t.Errorf("%s/%s: a rendered %T takes the slow path", c.cloud, c.name, obj)
			}
			requireSameAsSigsYAML(t, m)
		}
	}
	requireSameAsSigsYAML(t, map[string]any{"values": trickyValues(), "keys": trickyKeys()})
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		requireSameAsSigsYAML(t, randomMap(rng, 3))
	}
}

func TestEncodeDocument_othersTakeSigsYAMLPath(t *testing.T) {
	for _, v := range []any{1e6, 0.5, float64(3), math.MaxFloat64} {
		doc := map[string]any{"a": []any{map[string]any{"f": v}}}
		if plainValues(doc) {
			t.Errorf("%v: a float must take sigs.k8s.io/yaml's path", v)
		}
		requireSameAsSigsYAML(t, doc)
	}
	if plainValues(map[string]any{"s": "bad \xff utf-8"}) || plainValues(map[string]any{"\xff": "v"}) {
		t.Error("invalid UTF-8 must take sigs.k8s.io/yaml's path")
	}
	if plainValues(map[string]any{"n": 3}) {
		t.Error("an int (not int64) must take sigs.k8s.io/yaml's path")
	}
	for _, doc := range []map[string]any{{"l": []any(nil)}, {"m": map[string]any(nil)}, {"l": []any{[]any(nil)}}} {
		if plainValues(doc) {
			t.Errorf("%#v: a nil list or map must take sigs.k8s.io/yaml's path", doc)
		}
		requireSameAsSigsYAML(t, doc)
	}
}

func requireSameAsSigsYAML(t *testing.T, doc map[string]any) {
	t.Helper()
	want, err := yamltext.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	got, err := encodeDocument(doc)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("encodeDocument differs from sigs.k8s.io/yaml\nwant:\n%s\ngot:\n%s", want, got)
	}
}

// trickyStrings are strings YAML would read as another type or that need
// quoting, folding or escaping.
var trickyStrings = []string{
	"", " ", "true", "false", "yes", "no", "on", "off", "y", "n", "null", "~", "1", "-1", "0x1F", "0o17", "017",
	"1e3", "1.5", ".inf", "-.inf", ".nan", "2026-11-26", "12:30", "a: b", "- x", "#c", "a #c", "'q'", `"dq"`,
	"tab\there", "multi\nline\n", "trailing ", " leading", "unicode é ✓ 日本", "<html>&", "\\back", "%percent",
	"@at", "`tick", "{flow}", "[seq]", "*alias", "&anchor", "!tag", "|literal", ">folded", "?question",
	strings.Repeat("long words that wrap ", 12), strings.Repeat("x", 200), "nvidia.com/gpu", "2g.10gb", "64Gi", "7500m",
	"del\x7f", "nel\u0085", "c1\u0090", "noncharacter\ufffe",
}

func trickyValues() []any {
	out := []any{nil, true, false, int64(0), int64(-1), int64(math.MaxInt64), int64(math.MinInt64),
		map[string]any{}, []any{}, []any{[]any{}}, map[string]any{"m": map[string]any{}}}
	for _, s := range trickyStrings {
		out = append(out, s)
	}
	return out
}

// trickyKeys are the tricky strings without digits as map keys. yaml/v2
// orders keys that mix digits and letters with a comparison that is not
// transitive ({"2", "2b2", "12", "21a2a", "b", "baa"} comes out in an order
// that depends on Go's map iteration), so for such keys neither encoding is
// deterministic and bytes cannot be compared; TestEncodeDocument_digitKeys
// compares them as data.
func trickyKeys() map[string]any {
	out := map[string]any{}
	for i, s := range trickyStrings {
		if !strings.ContainsAny(s, "0123456789") {
			out[s] = int64(i)
		}
	}
	return out
}

func TestEncodeDocument_digitKeys(t *testing.T) {
	doc := map[string]any{}
	for i, s := range trickyStrings {
		doc[s] = int64(i)
	}
	got, err := encodeDocument(doc)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := yaml.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	for k, v := range doc {
		if n, ok := back[k].(float64); !ok || int64(n) != v {
			t.Errorf("key %q: %v, want %v", k, back[k], v)
		}
	}
	if len(back) != len(doc) {
		t.Errorf("%d keys back, want %d", len(back), len(doc))
	}
}

func randomMap(rng *rand.Rand, depth int) map[string]any {
	m := map[string]any{}
	keys := sortedKeys(trickyKeys())
	for range rng.IntN(5) {
		m[keys[rng.IntN(len(keys))]] = randomValue(rng, depth-1)
	}
	return m
}

func randomValue(rng *rand.Rand, depth int) any {
	choice := rng.IntN(7)
	if depth <= 0 {
		choice %= 4
	}
	switch choice {
	case 0:
		return trickyStrings[rng.IntN(len(trickyStrings))]
	case 1:
		return rng.Int64N(1<<40) - 1<<39
	case 2:
		return rng.IntN(2) == 0
	case 3:
		return nil
	case 4, 5:
		return randomMap(rng, depth)
	default:
		list := make([]any, rng.IntN(4))
		for i := range list {
			list[i] = randomValue(rng, depth-1)
		}
		return list
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
