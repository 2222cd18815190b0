package chartkit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuform/terraform-provider-gpu/internal/helmchart"
	"github.com/gpuform/terraform-provider-gpu/internal/render/yamltext"
)

// CanonicalYAML renders values as the YAML a values file holds:
// keys sorted at every level, no document marker, one trailing newline,
// nulls kept (a null tells Helm to delete a chart default). The same values
// always give the same text, so a one-value change is a one-line diff in a
// Terraform plan. Long plain strings are folded as in workload/manifest.go.
func CanonicalYAML(values map[string]any) (string, error) {
	if values == nil {
		values = map[string]any{}
	}
	// encoding/json sorts map keys and rejects what YAML cannot hold
	// faithfully (NaN, channels, functions).
	j, err := json.Marshal(values)
	if err != nil {
		return "", fmt.Errorf("encoding values: %w", err)
	}
	y, err := yamltext.FromJSON(j)
	if err != nil {
		return "", fmt.Errorf("encoding values as YAML: %w", err)
	}
	return string(y), nil
}

// MergeBaseValues layers generated values over base values files the way
// `helm install -f base[0] -f base[1] ... -f generated` does: later layers
// win, nested maps merge key by key, and a null is kept (not resolved), so
// that Helm, when it coalesces the result with the chart's defaults,
// deletes that default. The merge itself is Helm's MergeTables (helmchart);
// inputs are copied first because it mutates them.
//
// Nothing the user wrote is dropped silently:
//   - a layer that puts a map where a lower layer has a scalar or a list (or
//     the reverse) is an error: Helm would keep the higher layer's value and
//     drop the other;
//   - a key the provider owns (providerOwnedKey: GPU limits and requests,
//     node selector and affinity entries, Flyte's GPU plugin keys) that a base
//     file sets to something other than the generated value is an error
//     naming the key: Helm would replace the user's value without a word;
//     other keys follow Helm's rule (the generated value, from an attribute
//     the user set, wins);
//   - tolerations lists, which the provider only extends, keep the base
//     files' entries: the result is theirs followed by the generated ones.
func MergeBaseValues(base []map[string]any, generated map[string]any) (map[string]any, error) {
	layers := make([]map[string]any, 0, len(base)+1)
	for i, b := range base {
		plain, err := PlainMap(b)
		if err != nil {
			return nil, fmt.Errorf("base values [%d]: %w", i, err)
		}
		layers = append(layers, plain)
	}
	top, err := PlainMap(generated)
	if err != nil {
		return nil, fmt.Errorf("generated values: %w", err)
	}
	layers = append(layers, top)
	for i := len(layers) - 1; i > 0; i-- {
		for j := i - 1; j >= 0; j-- {
			if conflict := tableConflict(layers[i], layers[j], nil); conflict != "" {
				return nil, fmt.Errorf("%s of %s and %s: a map cannot replace a non-map value or the reverse. "+
					"Allowed: base values whose maps and non-maps sit where the generated values have them",
					conflict, layerName(i, len(base)), layerName(j, len(base)))
			}
		}
	}
	for j := range base {
		if err := ownedKeyConflict(top, layers[j], nil, layerName(j, len(base))); err != nil {
			return nil, err
		}
	}
	result := layers[len(layers)-1]
	for i := len(layers) - 2; i >= 0; i-- {
		result = helmchart.MergeTables(result, layers[i])
	}
	keepBaseTolerations(result, layers[:len(base)], nil)
	return result, nil
}

// ownedKeyConflict finds a key the generated values set (other than a
// tolerations list, which is extended instead) that a base layer sets to a
// different non-null value.
func ownedKeyConflict(generated, base map[string]any, path []string, layer string) error {
	for _, key := range slices.Sorted(maps.Keys(generated)) {
		g, b := generated[key], base[key]
		if g == nil || b == nil {
			continue
		}
		here := append(slices.Clone(path), key)
		gm, gIsMap := g.(map[string]any)
		bm, bIsMap := b.(map[string]any)
		switch {
		case gIsMap && bIsMap:
			if err := ownedKeyConflict(gm, bm, here, layer); err != nil {
				return err
			}
		case key == "tolerations" || !providerOwnedKey(here):
		case !reflect.DeepEqual(g, b):
			return fmt.Errorf("values key %s: %s set %s, but the GPU settings need %s there. The provider owns this "+
				"key and Helm would silently replace the base value. Allowed: remove the key from that base values "+
				"file, or change the attribute that generates it", strconv.Quote(strings.Join(here, ".")), layer,
				briefValue(b), briefValue(g))
		}
	}
	return nil
}

// providerOwnedKey reports whether the provider must own a values key:
// where a different user value would put GPU pods on the wrong nodes or make
// the API server refuse them. Extended resources (nvidia.com/gpu,
// nvidia.com/mig-*) in any resources block, node selectors and affinities,
// and Flyte's k8s plugin keys that name the GPU resource and node labels.
func providerOwnedKey(path []string) bool {
	for _, step := range path {
		switch step {
		case "nodeSelector", "affinity", "gpu-resource-name", "gpu-device-node-label",
			"gpu-partition-size-node-label", "gpu-unpartitioned-node-selector-requirement",
			"gpu-unpartitioned-toleration", "resource-tolerations":
			return true
		}
	}
	last := path[len(path)-1]
	return len(path) >= 2 && (path[len(path)-2] == "limits" || path[len(path)-2] == "requests") && IsExtendedResource(last)
}

// keepBaseTolerations puts, in front of each tolerations list the generated
// values set, the base layers' tolerations at the same place that it lacks.
func keepBaseTolerations(merged map[string]any, bases []map[string]any, path []string) {
	for _, key := range slices.Sorted(maps.Keys(merged)) {
		here := append(slices.Clone(path), key)
		switch v := merged[key].(type) {
		case map[string]any:
			keepBaseTolerations(v, bases, here)
		case []any:
			if key != "tolerations" {
				continue
			}
			var extra []any
			for _, b := range bases {
				list, _ := GetPath(b, here...)
				items, _ := list.([]any)
				for _, item := range items {
					if !slices.ContainsFunc(v, func(x any) bool { return reflect.DeepEqual(x, item) }) &&
						!slices.ContainsFunc(extra, func(x any) bool { return reflect.DeepEqual(x, item) }) {
						extra = append(extra, item)
					}
				}
			}
			if len(extra) > 0 {
				merged[key] = append(extra, v...)
			}
		}
	}
}

// briefValue prints a value for a message, shortened.
func briefValue(v any) string {
	j, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(j) > 80 {
		return string(j[:77]) + "..."
	}
	return string(j)
}

func layerName(i, bases int) string {
	if i == bases {
		return "the generated values"
	}
	return "base values [" + strconv.Itoa(i) + "]"
}

// tableConflict returns the dotted path of the first key where one side has
// a map and the other a non-null non-map, or "".
func tableConflict(upper, lower map[string]any, path []string) string {
	for _, key := range slices.Sorted(maps.Keys(upper)) {
		u, l := upper[key], lower[key]
		if u == nil || l == nil {
			continue
		}
		um, uIsMap := u.(map[string]any)
		lm, lIsMap := l.(map[string]any)
		here := append(slices.Clone(path), key)
		switch {
		case uIsMap && lIsMap:
			if c := tableConflict(um, lm, here); c != "" {
				return c
			}
		case uIsMap != lIsMap:
			return "values key " + strconv.Quote(strings.Join(here, "."))
		}
	}
	return ""
}

// ToPlain converts a Go value (typed Kubernetes structs included) into plain
// values: map[string]any, []any, string, bool, int64, float64 and nil. Going
// through JSON applies the API's field names and omitempty rules, so a
// toleration reads exactly as in a manifest.
func ToPlain(v any) (any, error) {
	j, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	return normalizeNumbers(out), nil
}

// PlainMap is ToPlain for a values map (nil stays an empty map).
func PlainMap(m map[string]any) (map[string]any, error) {
	if m == nil {
		return map[string]any{}, nil
	}
	v, err := ToPlain(m)
	if err != nil {
		return nil, err
	}
	out, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("values are not a map")
	}
	return out, nil
}

// normalizeNumbers turns json.Number into int64 when integral (what a
// values file's "replicas: 2" should be) and float64 otherwise.
func normalizeNumbers(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = normalizeNumbers(e)
		}
		return t
	case []any:
		for i, e := range t {
			t[i] = normalizeNumbers(e)
		}
		return t
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		if f, err := t.Float64(); err == nil && !math.IsInf(f, 0) {
			return f
		}
		return t.String()
	}
	return v
}

// PlainOrNil is ToPlain for values built by this package from typed API
// structs, which always encode; were one not to, the key is left out (nil)
// rather than the provider panicking.
func PlainOrNil(v any) any {
	out, err := ToPlain(v)
	if err != nil {
		return nil
	}
	return out
}

// StringMapValue turns map[string]string into a plain map (nil when empty,
// so callers can leave the key out).
func StringMapValue(m map[string]string) map[string]any {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// SingleKeyMaps renders a map as Flyte's list of single-key maps, sorted by
// key: viper lower-cases and dot-splits map keys, and this form is the
// workaround flytestdlib's sliceToMapHook decodes (docs/design/flyte.md#yaml-shape-of-resource-tolerations).
func SingleKeyMaps[V any](m map[string]V, value func(V) any) []any {
	out := make([]any, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, map[string]any{k: value(m[k])})
	}
	return out
}

// SetPath sets values[path...] = v, creating maps on the way. A non-map on
// the way is left alone (and v not set): generators only write into maps
// they created.
func SetPath(values map[string]any, v any, path ...string) {
	if len(path) == 0 {
		return
	}
	m := values
	for _, key := range path[:len(path)-1] {
		next, ok := m[key].(map[string]any)
		if !ok {
			if m[key] != nil {
				return
			}
			next = map[string]any{}
			m[key] = next
		}
		m = next
	}
	m[path[len(path)-1]] = v
}

// GetPath reads values[path...]; ok is false when a step is missing or not
// a map.
func GetPath(values map[string]any, path ...string) (any, bool) {
	var cur any = values
	for _, key := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		cur, ok = m[key]
		if !ok {
			return nil, false
		}
	}
	return cur, true
}
