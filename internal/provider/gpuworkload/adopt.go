package gpuworkload

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/render/adopt"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds/kindkit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// adoptSpec turns a GPU workload that gpu_workload did not create into the
// spec an import records. The intent and attributes come from the object
// (internal/render/adopt); the server's defaults, from a dry-run create of
// the render, keep defaults out of the patch. The result is checked before
// it is used: the configuration it generates must render the object as it
// is, plus only the corrections the warning lists, so that a plan after
// `-generate-config-out` shows nothing else.
func (r *workloadResource) adoptSpec(ctx context.Context, client *kube.Client, live *unstructured.Unstructured, diags *diag.Diagnostics) (*workloadSpec, bool) {
	ref := fmt.Sprintf("%s %s/%s", live.GetKind(), live.GetNamespace(), live.GetName())
	read := func(obj kindkit.Object) (*unstructured.Unstructured, error) {
		ref, err := kube.RefOf(obj)
		if err != nil {
			return nil, err
		}
		return client.GetFresh(ctx, ref)
	}
	a, adiags := adopt.InferWith(live, r.DefaultCloud(), read)
	diags.Append(importDiagnostics(ref, adiags)...)
	if adiags.HasError() {
		return nil, false
	}
	defaulted, err := client.DefaultedByServer(ctx, a.Rendered)
	if err != nil {
		diags.AddError("Cannot adopt "+ref, "Asking the API server for its defaults (a dry-run create) failed: "+err.Error())
		return nil, false
	}
	w, err := a.WithPatch(defaulted.Object)
	var companionFixes []string
	if err == nil {
		companionFixes, err = checkAdoptedRender(a, w)
	}
	if err != nil {
		diags.AddError("Cannot adopt "+ref, err.Error()+". Nothing was imported; please report this with the object's YAML.")
		return nil, false
	}
	if fixes := append(a.Corrections, companionFixes...); len(fixes) > 0 {
		detail := "Imported. It does not follow the provider's rules, so the next plan shows these changes, and apply " +
			"makes them:\n- " + strings.Join(fixes, "\n- ")
		if k, _ := kinds.Lookup(w.Kind); len(a.Corrections) > 0 && k.Immutable.PodTemplate {
			detail += "\nThe " + live.GetKind() + "'s pod template cannot change, so the next apply re-creates it: its " +
				"pods stop and it runs again from the start."
		}
		diags.AddWarning("The next apply corrects "+ref, detail)
	}
	return &workloadSpec{Workload: w}, true
}

// checkAdoptedRender: what the adopted spec renders, the corrected object
// already holds, field for field, as the next refresh will compare it. It
// returns what the next apply changes in the companions taken over with
// it (a Service's labels or publishNotReadyAddresses).
func checkAdoptedRender(a *adopt.Adoption, w spec.Workload) ([]string, error) {
	rendered, rdiags := workload.ResolveAndRender(w, workload.Options{SkipManifest: true})
	if rdiags.HasError() {
		return nil, fmt.Errorf("the adopted configuration does not render: %s", rdiags.Errors()[0])
	}
	desired, err := workload.ObjectMap(rendered.Objects[len(rendered.Objects)-1])
	if err != nil {
		return nil, err
	}
	corrected, err := workload.ObjectMap(a.Corrected)
	if err != nil {
		return nil, err
	}
	if where := firstDifference(jsonRoundTrip(kube.Project(corrected, desired)), jsonRoundTrip(desired), ""); where != "" {
		return nil, fmt.Errorf("the adopted configuration would render %s differently from the object", where)
	}
	var fixes []string
	for i, c := range rendered.Companions {
		if i >= len(a.Companions) || a.Companions[i] == nil {
			continue // the kind said the apply creates it
		}
		want, err := workload.ObjectMap(c)
		if err != nil {
			return nil, err
		}
		live := a.Companions[i]
		if where := differences(jsonRoundTrip(kube.Project(live.Object, want)), jsonRoundTrip(want), ""); len(where) > 0 {
			fixes = append(fixes, fmt.Sprintf("takes over %s %s/%s and sets %s as the provider renders it",
				live.GetKind(), live.GetNamespace(), live.GetName(), strings.Join(where, ", ")))
		}
	}
	return fixes, nil
}

// differences names every path where two JSON values differ (a map's
// differing key once, a differing list as a whole).
func differences(got, want any, at string) []string {
	gm, gok := got.(map[string]any)
	wm, wok := want.(map[string]any)
	if !gok || !wok {
		if d := firstDifference(got, want, at); d != "" {
			return []string{d}
		}
		return nil
	}
	keys := slices.Sorted(maps.Keys(wm))
	for k := range gm {
		if _, ok := wm[k]; !ok {
			keys = append(keys, k)
		}
	}
	var out []string
	for _, k := range keys {
		out = append(out, differences(gm[k], wm[k], at+"."+k)...)
	}
	return out
}

// firstDifference names the first path where two JSON values differ, or
// "" when they are equal.
func firstDifference(got, want any, at string) string {
	gm, gok := got.(map[string]any)
	wm, wok := want.(map[string]any)
	if gok && wok {
		keys := slices.Sorted(maps.Keys(wm))
		for k := range gm {
			if _, ok := wm[k]; !ok {
				keys = append(keys, k)
			}
		}
		for _, k := range keys {
			if d := firstDifference(gm[k], wm[k], at+"."+k); d != "" {
				return d
			}
		}
		return ""
	}
	gl, gok := got.([]any)
	wl, wok := want.([]any)
	if gok && wok && len(gl) == len(wl) {
		for i := range gl {
			if d := firstDifference(gl[i], wl[i], fmt.Sprintf("%s[%d]", at, i)); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(got, want) {
		return strings.TrimPrefix(at, ".")
	}
	return ""
}

func jsonRoundTrip(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return nil
	}
	return out
}

// importDiagnostics reports render findings of an adoption: they concern
// the live object, not an attribute of a configuration that does not
// exist yet, so the attribute goes into the text.
func importDiagnostics(ref string, ds gpudiag.Diagnostics) diag.Diagnostics {
	var out diag.Diagnostics
	for _, d := range ds {
		detail := ref + ": " + d.Detail
		if p := d.PathString(); p != "" {
			detail = ref + ", as " + p + ": " + d.Detail
		}
		if d.Severity == gpudiag.SeverityError {
			out.AddError(d.Summary, detail)
		} else {
			out.AddWarning(d.Summary, detail)
		}
	}
	return out
}
