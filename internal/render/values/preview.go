package values

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"

	"github.com/gpuform/terraform-provider-gpu/internal/helmchart"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/chartkit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/fiftyone"
)

// previewReleaseName is the release name charts see in a preview.
const previewReleaseName = "preview"

// RenderChartPreview renders a chart (directory or .tgz) with values the
// way `helm template` would, offline (no cluster lookups), and returns the
// manifests that carry GPU settings, keyed by template path: documents
// whose pods request an extended resource such as nvidia.com/gpu, or that
// mention nvidia.com/ at all (device plugin configs, Flyte's plugin
// config). It then checks that every GPU pod block of the values (a map
// with resources.limits of an extended resource, and enabled not false)
// reached a rendered pod: the same limit on one container, the block's
// nodeSelector entries and its tolerations. A chart that drops them is an
// error diagnostic; so is any failure to render.
func RenderChartPreview(chartPath string, values map[string]any, namespace string) (map[string]string, gpudiag.Diagnostics) {
	var diags gpudiag.Diagnostics
	ch, ok := loadChart(chartPath, &diags)
	if !ok {
		return nil, diags
	}
	if ref := ch.RemoteSchemaRef(); ref != "" {
		diags.AddError(nil, "Chart schema needs the network",
			"The chart's values.schema.json references "+strconv.Quote(ref)+". Allowed: a chart whose schema is self-contained.")
		return nil, diags
	}
	plain, err := chartkit.PlainMap(values)
	if err != nil {
		diags.AddError(nil, "Values cannot be encoded", err.Error()+".")
		return nil, diags
	}
	if namespace == "" {
		namespace = spec.DefaultNamespace
	}
	rendered, err := ch.Render(plain, previewReleaseName, namespace)
	var invalid *helmchart.ValuesInvalidError
	switch {
	case errors.As(err, &invalid):
		diags.Append(schemaDiagnostics(ch.Name(), err))
		return nil, diags
	case err != nil:
		diags.AddError(nil, "Chart does not render", "Helm could not render "+strconv.Quote(ch.Name())+": "+err.Error()+".")
		return nil, diags
	}
	manifests, pods := gpuManifests(rendered)
	diags.Append(checkGPUReached(plain, pods))
	diags.Append(checkExtendedRequestsHaveLimits(pods))
	return manifests, diags
}

// renderedPod is one pod spec found in a rendered template, with the names
// that identify its runner: the workload object's name, or for a job
// template kept in a ConfigMap its data key without ".yaml" (FiftyOne
// names the key after the values key).
type renderedPod struct {
	template string
	names    []string
	spec     corev1.PodSpec
}

// gpuManifests splits the rendered templates into documents, keeps those
// that carry GPU settings, and returns every pod spec found.
func gpuManifests(rendered map[string]string) (map[string]string, []renderedPod) {
	manifests := map[string]string{}
	var pods []renderedPod
	for _, name := range slices.Sorted(maps.Keys(rendered)) {
		if strings.HasSuffix(name, "NOTES.txt") {
			continue
		}
		var keep []string
		for _, doc := range splitYAMLDocuments(rendered[name]) {
			specs := podSpecsIn(doc)
			gpu := strings.Contains(doc, "nvidia.com/")
			for _, s := range specs {
				pods = append(pods, renderedPod{template: name, names: s.names, spec: s.spec})
				gpu = gpu || podRequestsExtended(s.spec)
			}
			if gpu {
				keep = append(keep, strings.TrimSpace(doc))
			}
		}
		if len(keep) > 0 {
			manifests[name] = strings.Join(keep, "\n---\n") + "\n"
		}
	}
	return manifests, pods
}

var documentSeparator = regexp.MustCompile(`(?m)^---[ \t]*$`)

func splitYAMLDocuments(text string) []string {
	var out []string
	for _, doc := range documentSeparator.Split(text, -1) {
		if strings.TrimSpace(doc) != "" {
			out = append(out, doc)
		}
	}
	return out
}

// jinjaPlaceholder and jinjaStatement match what FiftyOne's job templates
// keep for its runner's own (Jinja) templating, which is not YAML: the
// {{ _id }}-style placeholders and the {% for arg in _args %} ... {% endfor %}
// loop around the arguments. Filling each placeholder with a word and
// dropping the loop tags leaves the Job manifest the runner would create
// for one argument.
var (
	jinjaPlaceholder = regexp.MustCompile(`\{\{[^}]*\}\}`)
	jinjaStatement   = regexp.MustCompile(`\{%[^%]*%\}`)
)

// namedSpec is a pod spec and the names of the runner it belongs to.
type namedSpec struct {
	names []string
	spec  corev1.PodSpec
}

// podSpecsIn returns the pod specs of a manifest document: the pod template
// of a workload object, and of Job manifests embedded in ConfigMap data
// (FiftyOne keeps its job templates there).
func podSpecsIn(doc string) []namedSpec {
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(doc), &obj); err != nil || obj == nil {
		return nil
	}
	var out []namedSpec
	if spec, ok := podSpecOf(obj); ok {
		name, _ := chartkit.GetPath(obj, "metadata", "name")
		out = append(out, namedSpec{names: nonEmpty(name), spec: spec})
	}
	if obj["kind"] == "ConfigMap" {
		data, _ := obj["data"].(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(data)) {
			text, _ := data[k].(string)
			text = jinjaStatement.ReplaceAllString(jinjaPlaceholder.ReplaceAllString(text, "placeholder"), "")
			var inner map[string]any
			if yaml.Unmarshal([]byte(text), &inner) != nil {
				continue
			}
			if spec, ok := podSpecOf(inner); ok {
				out = append(out, namedSpec{names: []string{strings.TrimSuffix(k, ".yaml")}, spec: spec})
			}
		}
	}
	return out
}

func nonEmpty(v any) []string {
	if s, ok := v.(string); ok && s != "" {
		return []string{s}
	}
	return nil
}

// podSpecOf finds the pod spec of a workload object by kind.
func podSpecOf(obj map[string]any) (corev1.PodSpec, bool) {
	var raw any
	var ok bool
	switch obj["kind"] {
	case "Pod":
		raw, ok = chartkit.GetPath(obj, "spec")
	case "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job":
		raw, ok = chartkit.GetPath(obj, "spec", "template", "spec")
	case "CronJob":
		raw, ok = chartkit.GetPath(obj, "spec", "jobTemplate", "spec", "template", "spec")
	}
	if !ok {
		return corev1.PodSpec{}, false
	}
	var spec corev1.PodSpec
	return spec, chartkit.DecodePlain(raw, &spec) == nil
}

func podRequestsExtended(spec corev1.PodSpec) bool {
	for _, c := range spec.Containers {
		for name := range c.Resources.Limits {
			if chartkit.IsExtendedResource(string(name)) {
				return true
			}
		}
	}
	return false
}

// gpuBlock is a values map that configures one GPU pod.
type gpuBlock struct {
	path         []any
	limits       map[string]int64
	nodeSelector map[string]string
	tolerations  []corev1.Toleration
}

// findGPUBlocks walks the values for maps with resources.limits holding an
// extended resource; enabled: false blocks are not rendered, so skipped.
// A block's limit, nodeSelector or tolerations that cannot be read is an
// error in diags: checking without it would pass a block the chart's pods
// cannot honour (the API server rejects them at apply).
func findGPUBlocks(v any, path []any, out *[]gpuBlock, diags *gpudiag.Diagnostics) {
	switch t := v.(type) {
	case map[string]any:
		if b, ok := gpuBlockOf(t, path, diags); ok {
			*out = append(*out, b)
		}
		for _, k := range slices.Sorted(maps.Keys(t)) {
			findGPUBlocks(t[k], chartkit.With(path, k), out, diags)
		}
	case []any:
		for i, e := range t {
			findGPUBlocks(e, chartkit.With(path, i), out, diags)
		}
	}
}

// gpuBlockOf reads m as a GPU block. A block with a part that cannot be
// read is reported and not checked further: the chart's pods cannot carry
// it either, and "did not reach the pods" would blame the chart.
func gpuBlockOf(m map[string]any, path []any, diags *gpudiag.Diagnostics) (gpuBlock, bool) {
	if enabled, ok := m["enabled"].(bool); ok && !enabled {
		return gpuBlock{}, false
	}
	readable := true
	refuse := func(steps []any, summary, what, allowed string) {
		at := chartkit.With(path, steps...)
		diags.AddError(append(gpudiag.At(PathRoot), at...), summary,
			"The values at "+chartkit.DisplayValuesPath(at)+" "+what+". Allowed: "+allowed+".")
		readable = false
	}
	limits, _ := chartkit.GetPath(m, "resources", "limits")
	lm, _ := limits.(map[string]any)
	b := gpuBlock{path: path, limits: map[string]int64{}}
	for _, k := range slices.Sorted(maps.Keys(lm)) {
		if !chartkit.IsExtendedResource(k) {
			continue
		}
		var q resource.Quantity
		if chartkit.DecodePlain(lm[k], &q) != nil {
			refuse([]any{"resources", "limits", k}, "GPU limit is not a quantity",
				"set "+strconv.Quote(fmt.Sprint(lm[k]))+", which is not a Kubernetes quantity", "a whole number of devices, such as 1")
			continue
		}
		b.limits[k] = q.Value()
	}
	if len(b.limits) == 0 && readable {
		return gpuBlock{}, false
	}
	if err := chartkit.DecodePlain(m["nodeSelector"], &b.nodeSelector); err != nil {
		refuse([]any{"nodeSelector"}, "GPU node selector cannot be read", "are not a node selector ("+err.Error()+")",
			"a map of node label names to string values (quote numbers and booleans)")
	}
	if err := chartkit.DecodePlain(m["tolerations"], &b.tolerations); err != nil {
		refuse([]any{"tolerations"}, "GPU tolerations cannot be read", "are not a list of tolerations ("+err.Error()+")",
			"a list of maps with key, operator (Equal or Exists), value, effect and tolerationSeconds")
	}
	return b, readable
}

// checkGPUReached reports GPU pod blocks of the values whose limit, node
// selector or tolerations no rendered pod carries.
func checkGPUReached(values map[string]any, pods []renderedPod) gpudiag.Diagnostics {
	var diags gpudiag.Diagnostics
	var blocks []gpuBlock
	findGPUBlocks(values, nil, &blocks, &diags)
	for _, b := range blocks {
		where := chartkit.DisplayValuesPath(b.path)
		path := append(gpudiag.At(PathRoot), b.path...)
		runner, named := runnerPods(pods, b.path)
		if named && len(runner) == 0 {
			diags.AddError(path, "GPU runner did not render",
				"The values at "+where+" configure a GPU runner, but the rendered chart has no workload or job template "+
					"named after it. Allowed: values paths the chart reads (check the chart version), and enabled not false.")
			continue
		}
		if !named {
			runner = pods
		}
		candidates := podsWithLimits(runner, b.limits)
		switch {
		case len(candidates) == 0:
			diags.AddError(path, "GPU limit did not reach the chart's pods",
				"The values at "+where+" ask for "+formatLimits(b.limits)+", but no container of the rendered chart has that "+
					"limit. Allowed: values paths the chart reads (check the chart version).")
		case !slices.ContainsFunc(candidates, func(s corev1.PodSpec) bool { return selectorIncludes(s.NodeSelector, b.nodeSelector) }):
			diags.AddError(path, "Node selector did not reach the chart's pods",
				"The pod with "+formatLimits(b.limits)+" from "+where+" lacks node selector entries of the values, so it may "+
					"land on nodes without that GPU. Allowed: values paths the chart reads.")
		case !slices.ContainsFunc(candidates, func(s corev1.PodSpec) bool { return tolerationsInclude(s.Tolerations, b.tolerations) }):
			diags.AddError(path, "Tolerations did not reach the chart's pods",
				"The pod with "+formatLimits(b.limits)+" from "+where+" lacks tolerations of the values and cannot schedule on "+
					"tainted GPU nodes. Allowed: values paths the chart reads.")
		}
	}
	return diags
}

// checkExtendedRequestsHaveLimits refuses rendered pods the API server
// would refuse: an extended resource such as nvidia.com/gpu cannot be
// overcommitted, so a request needs a limit, and an equal one (core/v1
// validation of resource requirements,
// docs/design/kubernetes.md#extended-resources-are-never-overcommitted). FiftyOne's own GPU guide shows GKE
// values with the GPU under requests only.
func checkExtendedRequestsHaveLimits(pods []renderedPod) gpudiag.Diagnostics {
	var diags gpudiag.Diagnostics
	for _, p := range pods {
		for _, c := range p.spec.Containers {
			for name, request := range c.Resources.Requests {
				if !chartkit.IsExtendedResource(string(name)) {
					continue
				}
				limit, ok := c.Resources.Limits[name]
				if !ok || limit.Cmp(request) != 0 {
					diags.AddError(gpudiag.At(PathRoot), "GPU requested without an equal limit",
						"Container "+strconv.Quote(c.Name)+" of "+p.template+" requests "+string(name)+" "+request.String()+
							" but its limit is "+limitText(limit, ok)+"; the API server rejects such a pod, since "+string(name)+
							" cannot be overcommitted. Allowed: the GPU under resources.limits (a request, if any, equal to it).")
				}
			}
		}
	}
	return diags
}

func limitText(q resource.Quantity, ok bool) string {
	if !ok {
		return "missing"
	}
	return q.String()
}

// runnerPods returns the rendered pods named after the GPU block's key (the
// last name in its values path, as the chart writes it or kebab-cased, as
// FiftyOne names its Deployments). named is false when no rendered pod
// carries a name at all that could match, e.g. charts whose GPU pods are
// named by the chart alone: then every pod is a candidate.
func runnerPods(pods []renderedPod, path []any) (runner []renderedPod, named bool) {
	var key string
	for _, step := range path {
		if s, ok := step.(string); ok {
			key = s
		}
	}
	if key == "" {
		return nil, false
	}
	for _, p := range pods {
		if slices.Contains(p.names, key) || slices.Contains(p.names, fiftyone.KebabCase(key)) {
			runner = append(runner, p)
		}
	}
	return runner, runnerKeyed(path)
}

// runnerKeyed: blocks under a map of runners keyed by name (FiftyOne's
// deployments and jobs) must reach the runner of that name.
func runnerKeyed(path []any) bool {
	if len(path) < 2 {
		return false
	}
	parent, _ := path[len(path)-2].(string)
	return parent == "deployments" || parent == "jobs"
}

func podsWithLimits(pods []renderedPod, limits map[string]int64) []corev1.PodSpec {
	var out []corev1.PodSpec
	for _, p := range pods {
		for _, c := range p.spec.Containers {
			if containerHasLimits(c, limits) {
				out = append(out, p.spec)
				break
			}
		}
	}
	return out
}

func containerHasLimits(c corev1.Container, limits map[string]int64) bool {
	for name, want := range limits {
		q, ok := c.Resources.Limits[corev1.ResourceName(name)]
		if !ok || q.Value() != want {
			return false
		}
	}
	return true
}

func selectorIncludes(have, want map[string]string) bool {
	for k, v := range want {
		if got, ok := have[k]; !ok || got != v {
			return false
		}
	}
	return true
}

func tolerationsInclude(have, want []corev1.Toleration) bool {
	for _, w := range want {
		if !slices.ContainsFunc(have, func(h corev1.Toleration) bool { return sameToleration(h, w) }) {
			return false
		}
	}
	return true
}

// sameToleration compares tolerations as the API does: "" operator means
// Equal.
func sameToleration(a, b corev1.Toleration) bool {
	op := func(t corev1.Toleration) corev1.TolerationOperator {
		if t.Operator == "" {
			return corev1.TolerationOpEqual
		}
		return t.Operator
	}
	seconds := func(t corev1.Toleration) int64 {
		if t.TolerationSeconds == nil {
			return -1
		}
		return *t.TolerationSeconds
	}
	return a.Key == b.Key && op(a) == op(b) && a.Value == b.Value && a.Effect == b.Effect && seconds(a) == seconds(b)
}

func formatLimits(limits map[string]int64) string {
	parts := make([]string, 0, len(limits))
	for _, k := range slices.Sorted(maps.Keys(limits)) {
		parts = append(parts, k+": "+strconv.FormatInt(limits[k], 10))
	}
	return strings.Join(parts, ", ")
}
