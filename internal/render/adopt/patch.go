package adopt

import (
	"encoding/json"
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/strategicpatch"

	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds/kindkit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
	"github.com/gpuform/terraform-provider-gpu/internal/render/yamltext"
)

// WithPatch returns the adopted workload with the strategic merge patch
// that turns its render into the corrected live object: every field the
// typed attributes do not cover (volumes, sidecars, security contexts,
// probes, strategy, ...). defaulted is the render with the server's
// defaults (a dry-run create of Rendered), so a default the object merely
// inherited is not written into the patch; without a server, pass the
// render itself and the patch also spells out the defaults.
func (a *Adoption) WithPatch(defaulted map[string]any) (spec.Workload, error) {
	corrected, err := workload.ObjectMap(a.Corrected)
	if err != nil {
		return spec.Workload{}, err
	}
	k, _ := kinds.Lookup(a.Workload.Kind)
	original := withoutServerFields(k, clean(defaulted, a.Workload.Name), a.Workload)
	modified := withoutServerFields(k, clean(corrected, a.Workload.Name), a.Workload)
	originalJSON, err := json.Marshal(original)
	if err != nil {
		return spec.Workload{}, err
	}
	modifiedJSON, err := json.Marshal(modified)
	if err != nil {
		return spec.Workload{}, err
	}
	// The typed struct gives the diff Kubernetes' merge keys (containers
	// and env by name, ...), the same the render's patch is applied with.
	schema := reflect.New(reflect.TypeOf(a.Corrected).Elem()).Interface()
	patchJSON, err := strategicpatch.CreateTwoWayMergePatch(originalJSON, modifiedJSON, schema)
	if err != nil {
		return spec.Workload{}, fmt.Errorf("computing the patch: %w", err)
	}
	w := a.Workload
	if string(patchJSON) == "{}" {
		return w, nil
	}
	patchYAML, err := yamltext.FromJSON(patchJSON)
	if err != nil {
		return spec.Workload{}, err
	}
	w.Patch = string(patchYAML)
	return w, nil
}

// clean removes what the server keeps about an object rather than what
// its author wrote: identity and bookkeeping metadata, status, and the
// annotations of tools. The name is the adopted one (a dry-run create
// ran under a generated name).
func clean(obj map[string]any, name string) map[string]any {
	u := &unstructured.Unstructured{Object: deepCopy(obj)}
	for _, field := range []string{"uid", "resourceVersion", "generation", "creationTimestamp", "managedFields", "selfLink", "generateName"} {
		unstructured.RemoveNestedField(u.Object, "metadata", field)
	}
	unstructured.RemoveNestedField(u.Object, "status")
	u.SetName(name)
	annotations := u.GetAnnotations()
	for _, key := range ignoredAnnotations {
		delete(annotations, key)
	}
	if len(annotations) == 0 {
		unstructured.RemoveNestedField(u.Object, "metadata", "annotations")
	} else {
		u.SetAnnotations(annotations)
	}
	for _, path := range [][]string{
		{"spec", "template", "metadata", "creationTimestamp"},
		{"spec", "jobTemplate", "metadata", "creationTimestamp"},
		{"spec", "jobTemplate", "spec", "template", "metadata", "creationTimestamp"},
	} {
		unstructured.RemoveNestedField(u.Object, path...)
	}
	return u.Object
}

// withoutServerFields removes what the API server generates per object
// (kindkit.Adopt's ServerFields and ServerLabels; a Job's selector and
// controller labels): the patch never sends them, and the provider never
// diffs them. A server label the selector labels name (a Service selecting
// the pods by job-name) is the intent's, and stays.
func withoutServerFields(k kindkit.Kind, obj map[string]any, w spec.Workload) map[string]any {
	if k.Adopt == nil || len(k.Adopt.ServerFields)+len(k.Adopt.ServerLabels) == 0 {
		return obj
	}
	for _, f := range k.Adopt.ServerFields {
		unstructured.RemoveNestedField(obj, f...)
	}
	if len(k.Adopt.ServerLabels) == 0 {
		return obj
	}
	typed := k.New()
	if runtime.DefaultUnstructuredConverter.FromUnstructured(obj, typed) != nil {
		return obj
	}
	pod := k.PodTemplate(typed)
	for _, key := range k.Adopt.ServerLabels {
		if _, kept := w.SelectorLabels[key]; !kept {
			delete(pod.Labels, key)
		}
	}
	if len(pod.Labels) == 0 {
		pod.Labels = nil
	}
	out, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
	if err != nil {
		return obj
	}
	return clean(out, w.Name)
}

// deepCopy copies through JSON, which any object map survives (unlike
// runtime.DeepCopyJSON, which panics on value types JSON would not produce).
func deepCopy(obj map[string]any) map[string]any {
	b, err := json.Marshal(obj)
	if err != nil {
		return map[string]any{}
	}
	out := map[string]any{}
	if json.Unmarshal(b, &out) != nil {
		return map[string]any{}
	}
	return out
}
