package chartkit_test

import (
	"math"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
	"sigs.k8s.io/yaml"

	"github.com/gpuform/terraform-provider-gpu/internal/render/values/chartkit"
)

func yamlMap(t *testing.T, text string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(text), &m); err != nil {
		t.Fatal(err)
	}
	plain, err := chartkit.PlainMap(m)
	if err != nil {
		t.Fatal(err)
	}
	return plain
}

func canonical(t *testing.T, m map[string]any) string {
	t.Helper()
	s, err := chartkit.CanonicalYAML(m)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestMergeBaseValuesHelmSemantics(t *testing.T) {
	base1 := yamlMap(t, `
mig: {strategy: mixed}
daemonsets:
  priorityClassName: system-node-critical
  tolerations: [{key: a, operator: Exists}]
devicePlugin: {config: {name: mine, data: {old: "x"}}}
dropMe: {a: 1}
keepNull: null
`)
	base2 := yamlMap(t, `
mig: {strategy: single}
extra: from-base-2
`)
	generated := yamlMap(t, `
daemonsets:
  tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
devicePlugin: {config: {create: true, data: {shared: "y"}}}
dropMe: null
`)
	before := canonical(t, base1) + canonical(t, base2) + canonical(t, generated)
	merged, err := chartkit.MergeBaseValues([]map[string]any{base1, base2}, generated)
	if err != nil {
		t.Fatal(err)
	}
	want := canonical(t, yamlMap(t, `
daemonsets:
  priorityClassName: system-node-critical            # maps merge key by key
  tolerations: [{key: a, operator: Exists}, {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]   # tolerations are extended
devicePlugin: {config: {create: true, name: mine, data: {old: "x", shared: "y"}}}
dropMe: null          # null kept, for Helm to delete the chart default
extra: from-base-2
keepNull: null
mig: {strategy: single}   # the later base wins
`))
	if got := canonical(t, merged); got != want {
		t.Fatalf("merged:\n%s\nwant:\n%s", got, want)
	}
	if after := canonical(t, base1) + canonical(t, base2) + canonical(t, generated); after != before {
		t.Fatal("MergeBaseValues must not modify its inputs (Helm's MergeTables does)")
	}

	// What Helm then does with the nulls: coalescing with the chart's
	// defaults deletes those keys, so the chart default disappears.
	ch := &chart.Chart{
		Metadata: &chart.Metadata{APIVersion: chart.APIVersionV2, Name: "c", Version: "0.1.0"},
		Values:   map[string]any{"dropMe": map[string]any{"default": true}, "keepNull": "chart default", "other": 1},
	}
	final, err := chartutil.CoalesceValues(ch, merged)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := final["dropMe"]; ok {
		t.Errorf("Helm keeps dropMe: %v", final["dropMe"])
	}
	if _, ok := final["keepNull"]; ok {
		t.Errorf("a null from a base file also deletes the chart default: %v", final["keepNull"])
	}
	if final["other"] != 1 {
		t.Errorf("untouched chart defaults stay: %v", final["other"])
	}
}

// TestHelmCoalesceTablesDropsNulls documents why MergeBaseValues uses
// MergeTables: CoalesceTables resolves a null against the lower layer
// right away and deletes the key, so the chart default would come back
// when Helm later coalesces with the chart.
func TestHelmCoalesceTablesDropsNulls(t *testing.T) {
	coalesced := chartutil.CoalesceTables(map[string]any{"affinity": nil}, map[string]any{"affinity": map[string]any{"a": 1}})
	if _, ok := coalesced["affinity"]; ok {
		t.Fatalf("CoalesceTables kept the key: %v", coalesced)
	}
	merged, err := chartkit.MergeBaseValues([]map[string]any{{"affinity": map[string]any{"a": 1}}}, map[string]any{"affinity": nil})
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := merged["affinity"]; !ok || v != nil {
		t.Fatalf("MergeBaseValues must keep the null: %v", merged)
	}
}

func TestMergeBaseValuesConflicts(t *testing.T) {
	_, err := chartkit.MergeBaseValues([]map[string]any{{"nodeSelector": "gpu"}}, map[string]any{"nodeSelector": map[string]any{"a": "b"}})
	if err == nil || !strings.Contains(err.Error(), `"nodeSelector"`) {
		t.Fatalf("a map over a scalar must be an error, got %v", err)
	}
	_, err = chartkit.MergeBaseValues([]map[string]any{{"a": map[string]any{"b": []any{1}}}, {"a": map[string]any{"b": map[string]any{}}}}, nil)
	if err == nil || !strings.Contains(err.Error(), `"a.b"`) {
		t.Fatalf("conflicts between base files are errors too, got %v", err)
	}
	if _, err := chartkit.MergeBaseValues(nil, map[string]any{"f": func() {}}); err == nil {
		t.Fatal("unencodable values must be an error")
	}
	merged, err := chartkit.MergeBaseValues(nil, nil)
	if err != nil || len(merged) != 0 {
		t.Fatalf("nothing merged is empty: %v %v", merged, err)
	}
}

func TestCanonicalValuesYAML(t *testing.T) {
	values := map[string]any{"b": map[string]any{"z": int64(1), "a": []any{"x", nil}}, "a": "long " + strings.Repeat("word ", 3), "nul": nil}
	first := canonical(t, values)
	for range 20 {
		if canonical(t, values) != first {
			t.Fatal("output must not depend on map order")
		}
	}
	want := "a: 'long word word word '\nb:\n  a:\n  - x\n  - null\n  z: 1\nnul: null\n"
	if first != want {
		t.Fatalf("got:\n%s\nwant:\n%s", first, want)
	}
	// A one-value change is a one-line diff.
	b, ok := values["b"].(map[string]any)
	if !ok {
		t.Fatalf("b is %T", values["b"])
	}
	b["z"] = int64(2)
	changed := canonical(t, values)
	if diff := valuesChangedLines(first, changed); diff != 1 {
		t.Fatalf("%d lines changed", diff)
	}
	if _, err := chartkit.CanonicalYAML(map[string]any{"x": math.NaN()}); err == nil {
		t.Fatal("NaN cannot be written as YAML a chart would read back")
	}
	if got := canonical(t, nil); got != "{}\n" {
		t.Fatalf("empty values: %q", got)
	}
	// A device plugin config stays a YAML string block.
	text := canonical(t, map[string]any{"data": map[string]any{"shared": "version: v1\nflags:\n  migStrategy: none"}})
	if !strings.Contains(text, "shared: |-\n    version: v1\n") {
		t.Fatalf("multi-line strings must be literal blocks:\n%s", text)
	}
}

func valuesChangedLines(a, b string) int {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	if len(al) != len(bl) {
		return -1
	}
	n := 0
	for i := range al {
		if al[i] != bl[i] {
			n++
		}
	}
	return n
}

// A key the provider owns is never replaced silently: a base value that
// differs from the generated one is an error naming the key, while other
// keys follow Helm's rule and equal values are fine (issue #15).
func TestMergeBaseValuesRefusesToOverrideOwnedKeys(t *testing.T) {
	generated := yamlMap(t, `
runner:
  replicaCount: 2
  nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}
  resources: {limits: {nvidia.com/gpu: 1, memory: 8Gi}}
flyte:
  gpu-device-node-label: cloud.google.com/gke-accelerator
`)
	for name, c := range map[string]struct{ base, key string }{
		"GPU limit":          {"runner: {resources: {limits: {nvidia.com/gpu: 2}}}", `"runner.resources.limits.nvidia.com/gpu"`},
		"node selector":      {"runner: {nodeSelector: {cloud.google.com/gke-accelerator: nvidia-tesla-t4}}", `"runner.nodeSelector.cloud.google.com/gke-accelerator"`},
		"Flyte device label": {"flyte: {gpu-device-node-label: k8s.amazonaws.com/accelerator}", `"flyte.gpu-device-node-label"`},
	} {
		_, err := chartkit.MergeBaseValues([]map[string]any{yamlMap(t, c.base)}, generated)
		if err == nil || !strings.Contains(err.Error(), c.key) || !strings.Contains(err.Error(), "base values [0]") {
			t.Errorf("%s: want an error naming %s and the base file, got %v", name, c.key, err)
		}
	}
	merged, err := chartkit.MergeBaseValues([]map[string]any{yamlMap(t, `
runner:
  replicaCount: 5
  nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4, team: ml}
  resources: {limits: {memory: 4Gi}}
`)}, generated)
	if err != nil {
		t.Fatalf("other keys follow Helm's rule and equal or extra entries are fine: %v", err)
	}
	want := canonical(t, yamlMap(t, `
flyte: {gpu-device-node-label: cloud.google.com/gke-accelerator}
runner:
  replicaCount: 2
  nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4, team: ml}
  resources: {limits: {nvidia.com/gpu: 1, memory: 8Gi}}
`))
	if got := canonical(t, merged); got != want {
		t.Fatalf("merged:\n%s\nwant:\n%s", got, want)
	}
}
