package operatorvalues_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
	"github.com/gpuform/terraform-provider-gpu/internal/testcharts"
)

// writeChart writes a chart directory with the given files.
func writeChart(t *testing.T, name string, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	for file, content := range files {
		p := filepath.Join(dir, file)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// realFiftyOneChart is a chart directory holding the real FiftyOne chart's
// values.yaml and values.schema.json (chart 2.22.1, from the charts folder
// testcharts finds): enough for Helm to coalesce and validate exactly as
// `helm install` does.
func realFiftyOneChart(t *testing.T) string {
	t.Helper()
	read := func(name string) string {
		return string(testcharts.File(t, name))
	}
	return writeChart(t, "fiftyone-teams-app", map[string]string{
		"Chart.yaml":         "apiVersion: v2\nname: fiftyone-teams-app\nversion: 2.22.1\n",
		"values.yaml":        read("fiftyone-teams-app.values.yaml"),
		"values.schema.json": read("fiftyone-teams-app.values.schema.json"),
	})
}

func fiftyOneWithChart(chartPath, extra string) string {
	return fmt.Sprintf(`
resource "gpu_operator_values" "fiftyone" {
  target     = "fiftyone"
  cloud      = "gke"
  chart_path = %q
  %s
  fiftyone {
    deployment {
      key      = "gpuL4"
      replicas = 2
      cpu      = "8"
      memory   = "32Gi"
      env      = { FIFTYONE_MEDIA_CACHE_DIR = "/opt/media_cache" }
      gpu {
        count       = 1
        accelerator = "l4"
      }
    }
    deployment {
      key     = "teamsDoCpuDefault"
      enabled = true
      cpu     = "4"
      memory  = "16Gi"
    }
    job_template {
      key    = "gpuBatch"
      memory = "24Gi"
      spot   = true
      gpu {
        count       = 1
        accelerator = "l4"
      }
    }
  }
}
`, chartPath, extra)
}

// Generated FiftyOne values pass the chart's real values.schema.json; a
// base values file that breaks it fails the plan on base_values_yaml.
func TestAccOperatorValues_realFiftyOneSchema(t *testing.T) {
	acctest.ClearClusterEnv(t)
	chart := realFiftyOneChart(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{
			valuesStep(fiftyOneWithChart(chart, ""), []string{"gpu_operator_values.fiftyone"},
				expectValue("gpu_operator_values.fiftyone", tfjsonpath.New("preview_manifests"), knownvalue.Null())),
			{
				Config: fiftyOneWithChart(chart, `base_values_yaml = [yamlencode({
    delegatedOperatorDeployments = { deployments = { teamsDoCpuDefault = { replicaCount = "two" } } }
  })]`),
				PlanOnly: true,
				ExpectError: acctest.Phrases(`Values violate the chart's schema`, `base_values_yaml = [`,
					`Chart "fiftyone-teams-app" rejects the value at`,
					`delegatedOperatorDeployments.deployments.teamsDoCpuDefault.replicaCount`, `want integer`),
			},
		},
	})
}

// previewChartTemplate renders a Deployment per delegated-operator entry,
// reading tolerations from TOLERATIONS_KEY, as the FiftyOne chart does.
const previewChartTemplate = `
{{- range $k, $v := .Values.delegatedOperatorDeployments.deployments }}
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
      {{- with $v.nodeSelector }}
      nodeSelector: {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.TOLERATIONS_KEY }}
      tolerations: {{- toYaml . | nindent 8 }}
      {{- end }}
      containers:
      - name: {{ kebabcase $k }}
        image: voxel51/fiftyone-teams-cv-full
        resources: {{- toYaml $v.resources | nindent 10 }}
{{- end }}
`

// previewChartSchema caps replicaCount, so a generated value can break it.
const previewChartSchema = `{"type": "object", "properties": {"delegatedOperatorDeployments": {"type": "object",
  "properties": {"deployments": {"type": "object", "additionalProperties": {"type": "object",
    "properties": {"replicaCount": {"type": "integer", "maximum": 3}}}}}}}}`

func previewChart(t *testing.T, tolerationsKey string) string {
	return writeChart(t, "operators", map[string]string{
		"Chart.yaml":               "apiVersion: v2\nname: operators\nversion: 0.1.0\n",
		"values.yaml":              "delegatedOperatorDeployments:\n  deployments: {}\n",
		"values.schema.json":       previewChartSchema,
		"templates/operators.yaml": strings.ReplaceAll(previewChartTemplate, "TOLERATIONS_KEY", tolerationsKey),
		"templates/service.yaml":   "apiVersion: v1\nkind: Service\nmetadata: {name: api}\nspec: {ports: [{port: 80}]}\n",
	})
}

func previewConfig(chartPath string, replicas int) string {
	return fmt.Sprintf(`
resource "gpu_operator_values" "preview" {
  target         = "fiftyone"
  cloud          = "aks"
  chart_path     = %q
  render_preview = true
  fiftyone {
    deployment {
      key      = "gpuT4"
      replicas = %d
      gpu {
        count       = 1
        accelerator = "t4"
      }
    }
  }
}
`, chartPath, replicas)
}

// render_preview renders the chart offline and exposes its GPU manifests;
// a chart that drops the tolerations, or a schema the generated values
// break, fails the plan on the attribute behind the value.
func TestAccOperatorValues_renderPreview(t *testing.T) {
	acctest.ClearClusterEnv(t)
	manifests := tfjsonpath.New("preview_manifests")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{
			{
				Config: previewConfig(previewChart(t, "tolerations"), 2),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue("gpu_operator_values.preview", manifests, knownvalue.MapSizeExact(1)),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					expectValue("gpu_operator_values.preview", manifests.AtMapKey("operators/templates/operators.yaml"),
						knownvalue.StringFunc(func(v string) error {
							for _, want := range []string{"name: gpu-t4", "nvidia.com/gpu: 1", "key: sku", "kubernetes.azure.com/accelerator: nvidia"} {
								if !strings.Contains(v, want) {
									return fmt.Errorf("preview lacks %q:\n%s", want, v)
								}
							}
							return nil
						})),
				},
			},
			{
				Config:   previewConfig(previewChart(t, "tolerationz"), 2),
				PlanOnly: true,
				ExpectError: acctest.Phrases(`Tolerations did not reach the chart's pods`, `deployment {`,
					`delegatedOperatorDeployments.deployments.gpuT4 lacks tolerations`),
			},
			{
				Config:   previewConfig(previewChart(t, "tolerations"), 5),
				PlanOnly: true,
				ExpectError: acctest.Phrases(`Values violate the chart's schema`, `replicas = 5`,
					`delegatedOperatorDeployments.deployments.gpuT4.replicaCount`),
			},
		},
	})
}
