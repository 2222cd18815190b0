package gpuworkload_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// update_strategy reaches the planned Deployment: "surge" with one replica
// (unset) plans RollingUpdate with maxSurge 1 and maxUnavailable 0 instead
// of the Recreate one replica gets by default; nothing is contacted.
func TestWorkload_updateStrategyPlans(t *testing.T) {
	acctest.ClearClusterEnv(t)
	planned := map[string]map[string]any{}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{{
			Config:             strategyWorkload("deployment", "surge"),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPreRefresh: []plancheck.PlanCheck{
				acctest.CapturePlanned{Address: "gpu_workload.w", Into: planned},
			}},
		}},
	})
	manifest := fmt.Sprint(planned["gpu_workload.w"]["manifests"])
	want := regexp.MustCompile(`(?s)strategy:\s+rollingUpdate:\s+maxSurge: 1\s+maxUnavailable: 0\s+type: RollingUpdate`)
	if !want.MatchString(manifest) || strings.Contains(manifest, "Recreate") {
		t.Errorf("the planned Deployment does not surge:\n%s", manifest)
	}
}

// On any other kind update_strategy is a plan error on its line.
func TestWorkload_updateStrategyOnlyForDeployments(t *testing.T) {
	acctest.ClearClusterEnv(t)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{{
			Config:      strategyWorkload("statefulset", "recreate"),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)update_strategy is for deployments.*update_strategy = "recreate".*Allowed: remove\s+update_strategy`),
		}},
	})
}

func strategyWorkload(kind, strategy string) string {
	return fmt.Sprintf(`
resource "gpu_workload" "w" {
  name            = "llm"
  namespace       = "ml"
  kind            = %q
  cloud           = "gke"
  image           = "vllm/vllm-openai:v0.6.3"
  apply           = false
  update_strategy = %q
  gpu {
    count       = 1
    accelerator = "l4"
  }
}
`, kind, strategy)
}
