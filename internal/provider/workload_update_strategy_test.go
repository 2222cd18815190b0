package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

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

// update_strategy reaches the planned Deployment: "surge" with one replica
// (unset) plans RollingUpdate with maxSurge 1 and maxUnavailable 0 instead
// of the Recreate one replica gets by default; nothing is contacted.
func TestWorkload_updateStrategyPlans(t *testing.T) {
	clearClusterEnv(t)
	planned := map[string]map[string]any{}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
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
	clearClusterEnv(t)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      strategyWorkload("statefulset", "recreate"),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)update_strategy is for deployments.*update_strategy = "recreate".*Allowed: remove\s+update_strategy`),
		}},
	})
}

// On the cluster, each change of update_strategy reaches the live
// Deployment in place, including the switch from RollingUpdate back to
// Recreate, which the API server refuses while rollingUpdate is still set;
// dropping the attribute returns to the strategy replicas give. Every step
// ends with an empty plan (terraform-plugin-testing checks it).
func TestAccWorkload_updateStrategyApplies(t *testing.T) {
	ns := acctest.Namespace(t)
	config := func(extra string) string {
		return acctest.ProviderBlock(t) + workloadConfig("w", "strategy", ns, "deployment",
			landingCase{cloud: "gke", accelerator: "a100-40gb", count: 1, extra: extra})
	}
	live := func(typ string, surge, unavailable int) resource.TestCheckFunc {
		return func(*terraform.State) error {
			d, err := acctest.Client(t).AppsV1().Deployments(ns).Get(context.Background(), "strategy", metav1.GetOptions{})
			if err != nil {
				return err
			}
			s := d.Spec.Strategy
			switch {
			case string(s.Type) != typ:
				return fmt.Errorf("live strategy %s, want %s", s.Type, typ)
			case typ == "Recreate" && s.RollingUpdate != nil:
				return fmt.Errorf("Recreate with rollingUpdate %+v", s.RollingUpdate)
			case typ == "RollingUpdate" && (s.RollingUpdate.MaxSurge.IntValue() != surge || s.RollingUpdate.MaxUnavailable.IntValue() != unavailable):
				return fmt.Errorf("maxSurge %s maxUnavailable %s, want %d and %d",
					s.RollingUpdate.MaxSurge.String(), s.RollingUpdate.MaxUnavailable.String(), surge, unavailable)
			}
			return nil
		}
	}
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config(`update_strategy = "surge"`), Check: live("RollingUpdate", 1, 0)},
			{Config: config(`update_strategy = "recreate"`), Check: live("Recreate", 0, 0)},
			{Config: config(`replicas = 2`), Check: live("RollingUpdate", 0, 1)},
			{Config: config("replicas = 2\n  update_strategy = \"recreate\""), Check: live("Recreate", 0, 0)},
		},
	})
}
