package workload

import (
	"fmt"
	"strings"
	"unicode/utf8"

	yamlv2 "go.yaml.in/yaml/v2"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/gpuform/terraform-provider-gpu/internal/render/yamltext"
)

// The manifest is encoded once, here, for every path that shows it: the
// plan (the rendered objects), the refresh (the live objects projected onto
// what the provider manages) and the golden tests. Both go through
// ObjectMap and EncodeManifest, so what the goldens check is what users see.

// ManifestOf encodes rendered objects as the provider serves them in the
// plan; the golden tests read the same text through Rendered.Manifest.
func ManifestOf(objects []Object) (string, error) {
	maps := make([]map[string]any, 0, len(objects))
	for _, obj := range objects {
		m, err := ObjectMap(obj)
		if err != nil {
			return "", err
		}
		maps = append(maps, m)
	}
	return EncodeManifest(maps)
}

// ObjectMap converts a typed object to the map form the API server would
// store, without what a client never sets: status, creation timestamps, and
// metadata left empty (a pod template's or a claim template's), which would
// print as "{}" and match nothing on the server.
func ObjectMap(obj runtime.Object) (map[string]any, error) {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("encoding %T: %w", obj, err)
	}
	unstructured.RemoveNestedField(content, "metadata", "creationTimestamp")
	unstructured.RemoveNestedField(content, "status")
	dropEmptyMetadata(content, "spec", "template", "metadata")
	dropEmptyMetadata(content, "spec", "metadata")
	dropEmptyMetadata(content, "spec", "jobTemplate", "metadata")
	dropEmptyMetadata(content, "spec", "jobTemplate", "spec", "template", "metadata")
	dropClaimTemplateStatus(content)
	return content, nil
}

// dropClaimTemplateStatus removes the status of a StatefulSet's claim
// templates, which the server owns like any other status.
func dropClaimTemplateStatus(content map[string]any) {
	templates, ok, _ := unstructured.NestedSlice(content, "spec", "volumeClaimTemplates")
	if !ok {
		return
	}
	for _, t := range templates {
		if m, ok := t.(map[string]any); ok {
			delete(m, "status")
			if meta, ok := m["metadata"].(map[string]any); ok {
				delete(meta, "creationTimestamp")
			}
		}
	}
	// Cannot fail: NestedSlice just found a slice here, so the way is maps.
	_ = unstructured.SetNestedSlice(content, templates, "spec", "volumeClaimTemplates")
}

// dropEmptyMetadata removes a nested metadata's creationTimestamp, and the
// metadata itself when nothing else is in it.
func dropEmptyMetadata(content map[string]any, path ...string) {
	meta, ok, _ := unstructured.NestedMap(content, path...)
	if !ok {
		return
	}
	delete(meta, "creationTimestamp")
	if len(meta) == 0 {
		unstructured.RemoveNestedField(content, path...)
		return
	}
	// Cannot fail: NestedMap just found a map here, so the way is maps.
	_ = unstructured.SetNestedMap(content, meta, path...)
}

// EncodeManifest renders objects as YAML documents separated by "---".
// sigs.k8s.io/yaml goes through JSON, so field names are the API's and map
// keys come out sorted: the same input always gives the same text, and a
// change shows up as a line-level diff in the Terraform plan.
//
// Strings longer than 80 columns are folded onto continuation lines (the
// go-yaml v2 default, which kubectl also had). The switch that turns folding
// off (yaml.FutureLineWrap) is process-global and would change the output of
// every other YAML user in the provider, such as Helm, so we keep folding.
func EncodeManifest(objects []map[string]any) (string, error) {
	docs := make([]string, 0, len(objects))
	for _, o := range objects {
		b, err := encodeDocument(o)
		if err != nil {
			return "", fmt.Errorf("encoding manifest: %w", err)
		}
		docs = append(docs, strings.TrimRight(string(b), "\n")+"\n")
	}
	return strings.Join(docs, "---\n"), nil
}

// encodeDocument is sigs.k8s.io/yaml's Marshal of one object, faster.
// sigs.k8s.io/yaml encodes to JSON, parses the JSON back as YAML and
// encodes that with go.yaml.in/yaml/v2: for the strings, integers, booleans,
// nulls, lists and maps of an object's map form the result is the bytes
// yaml/v2 writes from the map directly, at a fraction of the cost (the
// encoding was a fifth of the provider's CPU in a refresh plan). Anything
// else (floats, which JSON may print differently, invalid UTF-8, nil lists
// and maps, which JSON prints as null and yaml/v2 as empty, other Go types)
// takes sigs.k8s.io/yaml's path (through yamltext, which keeps the control
// characters and NEL that path loses), so the text never depends on which
// path ran; TestEncodeDocument_sameAsSigsYAML compares the two.
func encodeDocument(o map[string]any) ([]byte, error) {
	if plainValues(o) {
		return documentMemo.encode(o, func(o map[string]any) ([]byte, error) { return yamlv2.Marshal(o) })
	}
	return yamltext.Marshal(o)
}

// plainValues reports whether v holds only the values encodeDocument may
// encode directly.
func plainValues(v any) bool {
	switch t := v.(type) {
	case nil, bool, int64:
		return true
	case string:
		return utf8.ValidString(t)
	case map[string]any:
		if t == nil {
			return false
		}
		for k, e := range t {
			if !utf8.ValidString(k) || !plainValues(e) {
				return false
			}
		}
		return true
	case []any:
		if t == nil {
			return false
		}
		for _, e := range t {
			if !plainValues(e) {
				return false
			}
		}
		return true
	default:
		return false
	}
}
