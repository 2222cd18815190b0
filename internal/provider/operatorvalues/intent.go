package operatorvalues

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"sigs.k8s.io/yaml"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kubever"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/chartkit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/yamltext"
)

// valuesIntent is a gpu_operator_values as render sees it: the target, the
// input with its cloud decided, and the plan-time findings. Validation and
// planning build it the same way.
type valuesIntent struct {
	target string
	input  values.Input
	// findings are the pool ref decode errors and ValidateValuesInput's
	// diagnostics.
	findings gpudiag.Diagnostics
	// cloudUnknown: cloud is unset and follows pools not known yet.
	cloudUnknown bool
	unknown      bool
	diags        diag.Diagnostics
	// draPools are the input's DRA pools (valuesConverter.draPools).
	draPools []*spec.PoolPolicy
}

// setKubernetes judges the input's DRA pools by k (chart pods on them ask
// an extended resource only some versions map to a claim).
func (in valuesIntent) setKubernetes(k kubever.Version) {
	for _, p := range in.draPools {
		p.Kubernetes = k
	}
}

// valuesIntentFromModel converts the model. An unset cloud follows the referenced
// node pools when they agree (as gpu_workload's follows its node_pool),
// then defaultCloud.
func valuesIntentFromModel(ctx context.Context, m operatorValuesModel, defaultCloud string) valuesIntent {
	conv := newValuesConverter(ctx)
	in := valuesIntent{target: conv.Str(m.Target)}
	in.input = conv.valuesInputFromModel(m)
	in.input.Cloud = conv.Str(m.Cloud)
	if in.input.Cloud == "" && !m.Cloud.IsUnknown() && conv.poolUnknown {
		in.cloudUnknown = true
	} else {
		in.input.Cloud, _ = resourcekit.PickCloud(m.Cloud, commonCloud(conv.poolClouds), defaultCloud)
	}
	in.findings = conv.findings
	// An unknown target cannot be checked: render would call it unknown.
	if in.target != "" {
		in.findings = append(in.findings, values.ValidateInput(in.target, in.input)...)
	}
	in.unknown, in.diags, in.draPools = conv.Unknown, conv.Diags, conv.draPools
	return in
}

// commonCloud is the one cloud all pools are on, or "" when there are none
// or they disagree (render then reports the pools on another cloud).
func commonCloud(clouds []string) string {
	clouds = slices.DeleteFunc(slices.Clone(clouds), func(c string) bool { return c == "" })
	slices.Sort(clouds)
	if clouds = slices.Compact(clouds); len(clouds) == 1 {
		return clouds[0]
	}
	return ""
}

// valuesSources are the inputs besides the target blocks that outputs
// depend on.
type valuesSources struct {
	bases     []string
	chartPath string
	preview   bool
}

// sourcesOf reads base_values_yaml, chart_path and render_preview; ok is
// false while any of them is unknown.
func sourcesOf(m operatorValuesModel) (valuesSources, bool) {
	if m.BaseValuesYAML.IsUnknown() || m.ChartPath.IsUnknown() || m.RenderPreview.IsUnknown() {
		return valuesSources{}, false
	}
	s := valuesSources{chartPath: m.ChartPath.ValueString(), preview: m.RenderPreview.ValueBool()}
	for _, e := range m.BaseValuesYAML.Elements() {
		v, ok := e.(types.String)
		if !ok || v.IsUnknown() {
			return valuesSources{}, false
		}
		s.bases = append(s.bases, v.ValueString())
	}
	return s, true
}

// valuesBuild is every output of one plan.
type valuesBuild struct {
	values    map[string]any
	yaml      string
	fragments string
	manifests map[string]string // nil without render_preview
}

// build generates the values, merges them over the base values, checks them
// against the chart and renders the outputs. Diagnostics already in the
// intent's findings are not repeated.
func (in valuesIntent) build(src valuesSources) (*valuesBuild, gpudiag.Diagnostics) {
	generated, gdiags := values.Generate(in.target, in.input)
	diags := resourcekit.Subtract(gdiags, in.findings)
	if gdiags.HasError() {
		return nil, diags
	}
	bases, bdiags := parseBaseValues(src.bases)
	diags = append(diags, bdiags...)
	if bdiags.HasError() {
		return nil, diags
	}
	merged, err := chartkit.MergeBaseValues(bases, generated)
	if err != nil {
		return nil, append(diags, errorAt([]any{"base_values_yaml"}, "Base values do not merge", err.Error()+"."))
	}
	out := &valuesBuild{values: merged}
	if src.chartPath != "" {
		located := in.checkChart(src, generated, bases, out)
		diags = append(diags, located...)
		if located.HasError() {
			return nil, diags
		}
	}
	if out.yaml, err = chartkit.CanonicalYAML(merged); err != nil {
		return nil, append(diags, errorAt(nil, "Cannot encode the values", err.Error()+"."))
	}
	fragments, more := podFragmentsYAML(in.target, merged)
	out.fragments = fragments
	return out, append(diags, more...)
}

// checkChart validates against the chart's schema and, with
// render_preview, renders it; diagnostics point at the attribute (or base
// values file) that produced the offending value.
func (in valuesIntent) checkChart(src valuesSources, generated map[string]any, bases []map[string]any, out *valuesBuild) gpudiag.Diagnostics {
	diags := in.locate(values.ValidateAgainstChart(src.chartPath, out.values), generated, bases)
	if diags.HasError() || !src.preview {
		return diags
	}
	manifests, pdiags := values.RenderChartPreview(src.chartPath, out.values, "")
	out.manifests = manifests
	if out.manifests == nil {
		out.manifests = map[string]string{}
	}
	return append(diags, in.locate(pdiags, generated, bases)...)
}

// locate maps diagnostics about a location inside the values to the input
// that produced it: a generated value to its attribute (render's
// RemapValuesDiagnostics), a value only a base values file holds to that
// file's base_values_yaml element. Chart-level problems (loading,
// rendering) go on chart_path.
func (in valuesIntent) locate(diags gpudiag.Diagnostics, generated map[string]any, bases []map[string]any) gpudiag.Diagnostics {
	out := make(gpudiag.Diagnostics, 0, len(diags))
	for _, d := range diags {
		switch {
		case len(d.Path) == 0:
			d.Path = []any{"chart_path"}
		case d.Path[0] == values.PathRoot && !hasValuesPath(generated, d.Path[1:]):
			if i := lastBaseWith(bases, d.Path[1:]); i >= 0 {
				d.Path = []any{"base_values_yaml", i}
			}
		}
		out = append(out, d)
	}
	return values.RemapDiagnostics(in.target, in.input, out)
}

// lastBaseWith is the index of the last (winning) base values file that
// holds the location, or -1.
func lastBaseWith(bases []map[string]any, steps []any) int {
	for i := len(bases) - 1; i >= 0; i-- {
		if hasValuesPath(bases[i], steps) {
			return i
		}
	}
	return -1
}

// hasValuesPath reports whether values hold the location (map keys as
// strings, list indexes as ints).
func hasValuesPath(values map[string]any, steps []any) bool {
	var cur any = values
	for _, s := range steps {
		switch step := s.(type) {
		case string:
			m, ok := cur.(map[string]any)
			if !ok {
				return false
			}
			if cur, ok = m[step]; !ok {
				return false
			}
		case int:
			l, ok := cur.([]any)
			if !ok || step < 0 || step >= len(l) {
				return false
			}
			cur = l[step]
		default:
			return false
		}
	}
	return true
}

// parseBaseValues reads each base values file as Helm does (sigs.k8s.io/yaml,
// which Helm's chartutil.ReadValues uses); an empty file is no values.
func parseBaseValues(texts []string) ([]map[string]any, gpudiag.Diagnostics) {
	var diags gpudiag.Diagnostics
	out := make([]map[string]any, 0, len(texts))
	for i, text := range texts {
		values, err := parseValuesYAML(text)
		if err != nil {
			diags = append(diags, baseValuesError(i, err))
			continue
		}
		out = append(out, values)
	}
	return out, diags
}

func parseValuesYAML(text string) (map[string]any, error) {
	var doc any
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		return nil, err
	}
	switch v := doc.(type) {
	case nil:
		return map[string]any{}, nil
	case map[string]any:
		return v, nil
	case []any:
		return nil, fmt.Errorf("the document is a list, not a map")
	default:
		return nil, fmt.Errorf("the document is a single value (%v), not a map", v)
	}
}

func baseValuesError(i int, err error) gpudiag.Diagnostic {
	return errorAt([]any{"base_values_yaml", i}, "Invalid base values",
		fmt.Sprintf("base_values_yaml[%d] is not a YAML map of values: %v. Allowed: the contents of a values file, "+
			"e.g. file(\"values.yaml\") or yamlencode({ ... }).", i, err))
}

// podFragmentsYAML lists the pods the values produce. Base values can give
// the target's keys another shape; that is worth a warning, not a failed
// plan, since the chart may still accept it.
func podFragmentsYAML(target string, merged map[string]any) (string, gpudiag.Diagnostics) {
	warn := func(err error) gpudiag.Diagnostics {
		return gpudiag.Diagnostics{{Severity: gpudiag.SeverityWarning, Path: []any{"base_values_yaml"},
			Summary: "Pod fragments unavailable",
			Detail: "The merged values do not have the shape target " + target + " expects (" + err.Error() + "), so " +
				"pod_fragments_yaml is empty. Allowed: base values that keep the chart's value types."}}
	}
	pods, err := values.PodFragments(target, merged)
	if err != nil {
		return "", warn(err)
	}
	if pods == nil {
		return "[]\n", nil
	}
	text, err := yamltext.Marshal(pods)
	if err != nil {
		return "", warn(err)
	}
	return string(text), nil
}

func errorAt(path []any, summary, detail string) gpudiag.Diagnostic {
	return gpudiag.Diagnostic{Severity: gpudiag.SeverityError, Path: path, Summary: summary, Detail: detail}
}

// valuesID is "<target>/<hash>": stable for the same values, and changing
// exactly when they do.
func valuesID(target, valuesYAML string) string {
	sum := sha256.Sum256([]byte(valuesYAML))
	return target + "/" + hex.EncodeToString(sum[:])[:16]
}
