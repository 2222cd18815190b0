package provider

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

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
