package values

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/chartkit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/fiftyone"
	"github.com/gpuform/terraform-provider-gpu/internal/testcharts"
)

// previewChartTemplate mimics the FiftyOne chart's delegated operators: a
// Deployment per deployments.<key> merged over the template (maps merged,
// lists replaced), and a ConfigMap holding each job template as a Job
// manifest with the API's own {{ _id }} placeholders.
const previewChartTemplate = `
{{- $tpl := .Values.delegatedOperatorDeployments.template }}
{{- range $k, $v := .Values.delegatedOperatorDeployments.deployments }}
{{- if ne $v.enabled false }}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ kebabcase $k }}
spec:
  selector: {matchLabels: {app: {{ kebabcase $k }}}}
  template:
    metadata: {labels: {app: {{ kebabcase $k }}}}
    spec:
      {{- with (merge (dict) ($v.nodeSelector | default dict) $tpl.nodeSelector) }}
      nodeSelector: {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with (merge (dict) ($v.affinity | default dict) $tpl.affinity) }}
      affinity: {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with ($v.TOLERATIONS_KEY | default $tpl.tolerations) }}
      tolerations: {{- toYaml . | nindent 8 }}
      {{- end }}
      containers:
      - name: {{ kebabcase $k }}
        image: voxel51/fiftyone-teams-cv-full
        resources: {{- toYaml (merge (dict) ($v.resources | default dict) $tpl.resources) | nindent 10 }}
{{- end }}
{{- end }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-do-templates
data:
{{- range $k, $v := .Values.delegatedOperatorJobTemplates.jobs }}
  {{ $k }}.yaml: |
    apiVersion: batch/v1
    kind: Job
    metadata:
      name: {{ kebabcase $k | trunc 48 }}-{{ "{{ _id }}" }}
    spec:
      template:
        spec:
          restartPolicy: Never
          {{- with $v.nodeSelector }}
          nodeSelector: {{- toYaml . | nindent 12 }}
          {{- end }}
          {{- with $v.TOLERATIONS_KEY }}
          tolerations: {{- toYaml . | nindent 12 }}
          {{- end }}
          containers:
          - name: executor
            image: voxel51/fiftyone-teams-cv-full
            command:
            - {{ "{{ _command }}" }}
            args:
            {{ "{% for arg in _args %}" }}
            - {{ "{{ arg }}" }}
            {{ "{% endfor %}" }}
            resources: {{- toYaml $v.resources | nindent 14 }}
{{- end }}
`

const previewChartValues = `
delegatedOperatorDeployments:
  template:
    affinity: {}
    nodeSelector: {}
    resources: {limits: {}, requests: {}}
    tolerations: []
  deployments: {}
delegatedOperatorJobTemplates:
  jobs: {}
`

// writePreviewChart writes the synthetic chart; tolerationsKey is the
// values key its templates read tolerations from ("tolerations", or a
// wrong key to simulate a chart that drops them).
func writePreviewChart(t *testing.T, tolerationsKey string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "fiftyone-preview")
	if err := os.MkdirAll(filepath.Join(dir, "templates"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"Chart.yaml":                "apiVersion: v2\nname: fiftyone-preview\nversion: 0.1.0\n",
		"values.yaml":               previewChartValues,
		"templates/operators.yaml":  strings.ReplaceAll(previewChartTemplate, "TOLERATIONS_KEY", tolerationsKey),
		"templates/NOTES.txt":       "GPU operators: nvidia.com/gpu\n",
		"templates/_helpers.tpl":    `{{- define "x" }}nvidia.com/gpu{{ end }}`,
		"templates/unrelated.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain}\ndata: {a: b}\n",
		"values.schema.json":        `{"type": "object", "properties": {"delegatedOperatorDeployments": {"type": "object"}}}`,
		"templates/service.yaml":    "apiVersion: v1\nkind: Service\nmetadata: {name: api}\nspec: {ports: [{port: 80}]}\n",
		"templates/empty.yaml":      "{{- if false }}never{{- end }}\n",
		"templates/second-doc.yaml": "---\n# only a comment\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestRenderChartPreview(t *testing.T) {
	chartDir := writePreviewChart(t, "tolerations")
	for _, cloud := range []spec.Cloud{spec.CloudAKS, spec.CloudGKEAutopilot, spec.CloudKarpenter} {
		values := mustGenerate(t, TargetFiftyOne, Input{Cloud: string(cloud), Blocks: map[string]any{fiftyone.Block: fiftyOneCase(cloud)}})
		manifests, diags := RenderChartPreview(chartDir, values, "fiftyone")
		if len(diags) > 0 {
			t.Fatalf("%s: %s", cloud, rendertest.FormatDiags(diags))
		}
		deployments := manifests["fiftyone-preview/templates/operators.yaml"]
		if !strings.Contains(deployments, "name: gpu-worker") || !strings.Contains(deployments, "nvidia.com/gpu: 1") {
			t.Fatalf("%s: GPU manifests:\n%s", cloud, deployments)
		}
		if !strings.Contains(deployments, "gpuBatch.yaml") {
			t.Errorf("%s: the job template ConfigMap carries GPU settings too", cloud)
		}
		for name := range manifests {
			if strings.Contains(name, "unrelated") || strings.Contains(name, "NOTES") || strings.Contains(name, "service") {
				t.Errorf("%s: %s carries no GPU settings", cloud, name)
			}
		}
	}
}

func TestRenderChartPreviewDetectsDroppedSettings(t *testing.T) {
	values := mustGenerate(t, TargetFiftyOne, Input{Cloud: "aks", Blocks: map[string]any{fiftyone.Block: fiftyOneCase(spec.CloudAKS)}})
	_, diags := RenderChartPreview(writePreviewChart(t, "tolerationz"), values, "")
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "values.delegatedOperatorDeployments.deployments.gpuWorker", "lacks tolerations")
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "values.delegatedOperatorJobTemplates.jobs.gpuBatch", "lacks tolerations")

	// Values at a path the chart does not read never reach a pod.
	moved := map[string]any{"operators": values["delegatedOperatorDeployments"]}
	_, diags = RenderChartPreview(writePreviewChart(t, "tolerations"), moved, "")
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "values.operators.deployments.gpuWorker", "no workload or job template named after it")

	// Node selectors that do not reach the pod.
	chartkit.SetPath(values, "b", "delegatedOperatorDeployments", "template", "x") // harmless extra
	nodeSel, _ := chartkit.GetPath(values, "delegatedOperatorDeployments", "deployments", "gpuWorker")
	asMap(t, nodeSel)["nodeSelector"] = map[string]any{"kubernetes.azure.com/accelerator": "nvidia", "only-in-values": "x"}
	chart := writePreviewChart(t, "tolerations")
	tpl := filepath.Join(chart, "templates", "operators.yaml")
	data, _ := os.ReadFile(tpl)
	broken := strings.Replace(string(data), "($v.nodeSelector | default dict)", "(dict)", 1)
	if err := os.WriteFile(tpl, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags = RenderChartPreview(chart, values, "")
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "values.delegatedOperatorDeployments.deployments.gpuWorker", "node selector")
}

func TestRenderChartPreviewErrors(t *testing.T) {
	chartDir := writePreviewChart(t, "tolerations")
	// The chart's schema is enforced as in helm install.
	_, diags := RenderChartPreview(chartDir, map[string]any{"delegatedOperatorDeployments": "not a map"}, "")
	if !diags.HasError() {
		t.Fatal("schema violations must be errors")
	}
	if _, diags := RenderChartPreview(filepath.Join(t.TempDir(), "none"), nil, ""); !diags.HasError() {
		t.Fatal("missing chart")
	}
	bad := writePreviewChart(t, "tolerations")
	if err := os.WriteFile(filepath.Join(bad, "templates", "broken.yaml"), []byte("{{ .Values.x.y.z | required \"x\" }}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, diags := RenderChartPreview(bad, nil, ""); !diags.HasError() {
		t.Fatal("render errors must be reported")
	}
	remote := writePreviewChart(t, "tolerations")
	if err := os.WriteFile(filepath.Join(remote, "values.schema.json"), []byte(`{"$ref": "https://example.com/s.json"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	rendertest.RequireDiag(t, ValidateAgainstChart(remote, nil), gpudiag.SeverityError, "", "would be downloaded")
	if _, diags := RenderChartPreview(remote, nil, ""); !diags.HasError() {
		t.Fatal("remote schema references are refused")
	}
}

// TestRenderChartPreviewPackaged: a .tgz works like a directory.
func TestRenderChartPreviewPackaged(t *testing.T) {
	ch, err := loader.Load(writePreviewChart(t, "tolerations"))
	if err != nil {
		t.Fatal(err)
	}
	archive, err := chartutil.Save(ch, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	values := mustGenerate(t, TargetFiftyOne, Input{Cloud: "eks", Blocks: map[string]any{fiftyone.Block: fiftyOneCase(spec.CloudEKS)}})
	manifests, diags := RenderChartPreview(archive, values, "ns")
	if len(diags) > 0 || len(manifests) == 0 {
		t.Fatalf("packaged chart: %d manifests, diagnostics:\n%s", len(manifests), rendertest.FormatDiags(diags))
	}
	if diags := ValidateAgainstChart(archive, values); len(diags) > 0 {
		t.Fatal(rendertest.FormatDiags(diags))
	}
}

// A job template alone (no GPU Deployment) passes the preview: its Job
// manifest, Jinja loop over _args included, is read like the runner's
// (issue #15). Before, the loop made the document unreadable and the plan
// failed unless some GPU Deployment happened to exist.
func TestRenderChartPreviewReadsJobTemplatesAlone(t *testing.T) {
	values := mustGenerate(t, TargetFiftyOne, Input{Cloud: "gke", Blocks: map[string]any{fiftyone.Block: &fiftyone.Values{
		JobTemplates: []fiftyone.JobTemplate{{Runner: fiftyone.Runner{Key: "gpuBatch", GPU: &spec.GPU{Count: 1, Accelerator: "l4"}}}},
	}}})
	_, diags := RenderChartPreview(writePreviewChart(t, "tolerations"), values, "")
	rendertest.RequireNoErrors(t, diags)
}

// The check follows each runner by name: a GPU limit on another runner's
// container does not stand in for a runner whose settings were dropped.
func TestRenderChartPreviewChecksEachRunnerByName(t *testing.T) {
	values := mustGenerate(t, TargetFiftyOne, Input{Cloud: "gke", Blocks: map[string]any{fiftyone.Block: &fiftyone.Values{
		Deployments:  []fiftyone.FiftyOneDeployment{{Runner: fiftyone.Runner{Key: "gpuWorker", GPU: &spec.GPU{Count: 1, Accelerator: "l4"}}}},
		JobTemplates: []fiftyone.JobTemplate{{Runner: fiftyone.Runner{Key: "gpuBatch", GPU: &spec.GPU{Count: 1, Accelerator: "l4"}}}},
	}}})
	chart := writePreviewChart(t, "tolerations")
	tpl := filepath.Join(chart, "templates", "operators.yaml")
	data, _ := os.ReadFile(tpl)
	dropped := strings.Replace(string(data), "resources: {{- toYaml $v.resources | nindent 14 }}", "resources: {}", 1)
	if err := os.WriteFile(tpl, []byte(dropped), 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags := RenderChartPreview(chart, values, "")
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "values.delegatedOperatorJobTemplates.jobs.gpuBatch", "no container of the rendered chart has that limit")
}

// FiftyOne's GPU guide shows GKE values with nvidia.com/gpu under requests
// only; the API server rejects such pods, and so does the preview.
func TestRenderChartPreviewRefusesGPURequestsWithoutLimits(t *testing.T) {
	guide := map[string]any{"delegatedOperatorDeployments": map[string]any{"deployments": map[string]any{
		"gpuWorker": map[string]any{
			"nodeSelector": map[string]any{"cloud.google.com/gke-accelerator": "nvidia-l4"},
			"resources":    map[string]any{"requests": map[string]any{"nvidia.com/gpu": 1}},
		},
	}}}
	_, diags := RenderChartPreview(writePreviewChart(t, "tolerations"), guide, "")
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "values", "the API server rejects such a pod")
}

// The real FiftyOne chart 2.22.1: a GPU job template alone, and a GPU
// runner with a job template, both pass the preview.
func TestRenderChartPreviewRealFiftyOne(t *testing.T) {
	chart := testcharts.Chart(t, "fiftyone-teams-app")
	for name, in := range map[string]*fiftyone.Values{
		"job template alone": {JobTemplates: []fiftyone.JobTemplate{{Runner: fiftyone.Runner{Key: "gpuBatch", GPU: &spec.GPU{Count: 1, Accelerator: "l4"}}}}},
		"runner and job": {
			Deployments:  []fiftyone.FiftyOneDeployment{{Runner: fiftyone.Runner{Key: "gpuWorker", GPU: &spec.GPU{Count: 1, Accelerator: "l4"}}}},
			JobTemplates: []fiftyone.JobTemplate{{Runner: fiftyone.Runner{Key: "gpuBatch", GPU: &spec.GPU{Count: 1, Accelerator: "l4"}}}},
		},
	} {
		values := mustGenerate(t, TargetFiftyOne, Input{Cloud: "gke", Blocks: map[string]any{fiftyone.Block: in}})
		values["teamsAppSettings"] = map[string]any{"dnsName": "fiftyone.example.test"}
		_, diags := RenderChartPreview(chart, values, "")
		if diags.HasError() {
			t.Errorf("%s: %s", name, rendertest.FormatDiags(diags))
		}
	}
}

// A GPU block whose limit, nodeSelector or tolerations cannot be read was
// once checked as if they were absent, so a chart preview passed values the
// API server rejects at apply. Each is now an error at its own path.
func TestRenderChartPreviewRefusesUnreadableGPUBlocks(t *testing.T) {
	worker := "values.delegatedOperatorDeployments.deployments.gpuWorker"
	for _, c := range []struct {
		key, path, want string
		value           any
	}{
		{"nodeSelector", worker + ".nodeSelector", "string values", map[string]any{"pool": 1}},
		{"tolerations", worker + ".tolerations", "list of tolerations", "gpu"},
		{"tolerations", worker + ".tolerations", "list of tolerations", []any{map[string]any{"key": "gpu", "tolerationSeconds": "soon"}}},
	} {
		values := mustGenerate(t, TargetFiftyOne, Input{Cloud: "aks", Blocks: map[string]any{fiftyone.Block: fiftyOneCase(spec.CloudAKS)}})
		block, _ := chartkit.GetPath(values, "delegatedOperatorDeployments", "deployments", "gpuWorker")
		asMap(t, block)[c.key] = c.value
		_, diags := RenderChartPreview(writePreviewChart(t, "tolerations"), values, "")
		rendertest.RequireDiag(t, diags, gpudiag.SeverityError, c.path, c.want)
		if len(diags.Errors()) != 1 {
			t.Errorf("%s: one error, on the values, not also on the chart:\n%s", c.path, rendertest.FormatDiags(diags))
		}
	}

	values := mustGenerate(t, TargetFiftyOne, Input{Cloud: "aks", Blocks: map[string]any{fiftyone.Block: fiftyOneCase(spec.CloudAKS)}})
	limits, _ := chartkit.GetPath(values, "delegatedOperatorDeployments", "deployments", "gpuWorker", "resources", "limits")
	asMap(t, limits)["nvidia.com/gpu"] = "one"
	_, diags := RenderChartPreview(writePreviewChart(t, "tolerations"), values, "")
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, worker+".resources.limits.nvidia.com/gpu", "not a Kubernetes quantity")
}
