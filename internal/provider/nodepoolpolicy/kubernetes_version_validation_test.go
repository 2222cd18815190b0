package nodepoolpolicy_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// Plan-time rules that follow the cluster's Kubernetes version, with no
// cluster configured: the version is the provider's kubernetes_version,
// or the floor (1.34) assumed. Each refusal names the version, where it
// came from and the gate (docs/design/dra-versions.md).

// draPoolChart is a DRA pool and a FiftyOne deployment on it, under a
// provider block with kubernetes_version (none for "").
func draPoolChart(kubernetesVersion, partition string) string {
	provider := ""
	if kubernetesVersion != "" {
		provider = fmt.Sprintf("provider \"gpu\" {\n  kubernetes_version = %q\n}\n", kubernetesVersion)
	}
	if partition != "" {
		partition = fmt.Sprintf("partition = %q", partition)
	}
	return provider + fmt.Sprintf(`
resource "gpu_node_pool_policy" "dra" {
  name           = "dra-h100"
  cloud          = "generic"
  accelerator    = "h100-80gb"
  gpus_per_node  = 8
  gpu_allocation = "dra"
  %s
}

resource "gpu_operator_values" "fiftyone" {
  target = "fiftyone"
  fiftyone {
    deployment {
      key       = "gpuDra"
      node_pool = gpu_node_pool_policy.dra.ref
      gpu {
        count = 2
      }
    }
  }
}
`, partition)
}

func TestKubernetesVersion_planTimeValidation(t *testing.T) {
	acctest.ClearClusterEnv(t)
	cases := map[string]struct {
		config string
		want   []string
	}{
		"FiftyOne on a DRA pool, kubernetes_version 1.34": {draPoolChart("1.34", ""), []string{
			`DRA pool needs Kubernetes 1.36 for FiftyOne`, `node_pool = gpu_node_pool_policy.dra.ref`,
			`kubernetes_version is 1.34`, `DRAExtendedResource`, `alpha, off by default`, `on by default from Kubernetes 1.36`, `Allowed:`}},
		"FiftyOne on a DRA pool, kubernetes_version 1.35": {draPoolChart("1.35", ""), []string{
			`DRA pool needs Kubernetes 1.36 for FiftyOne`, `kubernetes_version is 1.35`, `DRAExtendedResource`}},
		"FiftyOne on a DRA pool, no version known": {draPoolChart("", ""), []string{
			`DRA pool needs Kubernetes 1.36 for FiftyOne`, `1.34 is assumed`, `DRAExtendedResource`, `Set kubernetes_version`}},
		"kubernetes_version not a known minor": {draPoolChart("1.33", ""), []string{
			`kubernetes_version`, `value must be one of`, `"1.34"`, `"1.38"`}},
		"kubernetes_version with a patch": {draPoolChart("1.36.2", ""), []string{`kubernetes_version`, `value must be one of`}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			planFails(t, c.config, acctest.Phrases(c.want...))
		})
	}
}

// On 1.36 and 1.37 (the setting, no cluster) the same configuration plans:
// the pool's class answers to nvidia.com/gpu (nvidia.com/mig-<profile> for
// a MIG pool) and the chart's pods ask it, with no claim.
func TestKubernetesVersion_draPoolChartPlans(t *testing.T) {
	acctest.ClearClusterEnv(t)
	for _, c := range []struct{ version, partition, resource string }{
		{"1.36", "", "nvidia.com/gpu"}, {"1.37", "", "nvidia.com/gpu"}, {"1.36", "3g.40gb", "nvidia.com/mig-3g.40gb"},
	} {
		t.Run(c.version+c.partition, func(t *testing.T) {
			planned := map[string]map[string]any{}
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: factories,
				Steps: []resource.TestStep{{
					Config:             draPoolChart(c.version, c.partition),
					PlanOnly:           true,
					ExpectNonEmptyPlan: true,
					ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPreRefresh: []plancheck.PlanCheck{
						acctest.CapturePlanned{Address: "gpu_node_pool_policy.dra", Into: planned},
						acctest.CapturePlanned{Address: "gpu_operator_values.fiftyone", Into: planned},
					}},
				}},
			})
			class := fmt.Sprint(planned["gpu_node_pool_policy.dra"]["device_class_yaml"])
			if !strings.Contains(class, "extendedResourceName: "+c.resource) {
				t.Errorf("class lacks extendedResourceName %s:\n%s", c.resource, class)
			}
			values := fmt.Sprint(planned["gpu_operator_values.fiftyone"]["values_yaml"])
			for _, want := range []string{c.resource + ": 2", "nvidia.com/gpu.deploy.device-plugin: \"false\""} {
				if !strings.Contains(values, want) {
					t.Errorf("values lack %q:\n%s", want, values)
				}
			}
			if strings.Contains(values, "resourceClaims") {
				t.Errorf("values carry a claim:\n%s", values)
			}
		})
	}
}

// Without a version known, a DRA pool's class has no extendedResourceName
// (the floor's rules); the warning that says so is resourcekit's test.
func TestKubernetesVersion_assumedFloor(t *testing.T) {
	acctest.ClearClusterEnv(t)
	planned := map[string]map[string]any{}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{{
			Config:             strings.SplitN(draPoolChart("", ""), "resource \"gpu_operator_values\"", 2)[0],
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPreRefresh: []plancheck.PlanCheck{
				acctest.CapturePlanned{Address: "gpu_node_pool_policy.dra", Into: planned},
			}},
		}},
	})
	class := fmt.Sprint(planned["gpu_node_pool_policy.dra"]["device_class_yaml"])
	if !strings.Contains(class, "kind: DeviceClass") || strings.Contains(class, "extendedResourceName") {
		t.Errorf("class on the assumed floor:\n%s", class)
	}
}
