package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// On a real API server, changing a Job's pod template applies cleanly as a
// replacement; the in-place update it was planned as before was refused
// ("field is immutable").
func TestAccWorkload_jobTemplateChangeAppliesAsReplacement(t *testing.T) {
	ns := acctest.Namespace(t)
	config := func(value string) string {
		return acctest.ProviderBlock(t) + workloadConfig("j", "retrain", ns, "job",
			landingCase{cloud: "generic", accelerator: "h100-80gb", count: 1, extra: fmt.Sprintf(`
  env = { DATASET = %q }`, value)})
	}
	var firstUID string
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config("v1"),
				Check: resource.TestCheckResourceAttrWith("gpu_workload.j", "uid", func(uid string) error {
					firstUID = uid
					return nil
				}),
			},
			{
				Config: config("v2"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("gpu_workload.j", plancheck.ResourceActionDestroyBeforeCreate),
				}},
				Check: resource.TestCheckResourceAttrWith("gpu_workload.j", "uid", func(uid string) error {
					if uid == "" || uid == firstUID {
						return fmt.Errorf("the Job was not replaced: uid %q, before %q", uid, firstUID)
					}
					return nil
				}),
			},
		},
	})
}

// A Job still running (here: still Pending, no A30 node exists) when the
// create timeout ends is kept in state untainted, with a warning instead of
// an error, so the next plan leaves it alone instead of deleting and
// re-running it (issue #12, finding 6).
func TestAccWorkload_jobOutlivingTheWaitIsKept(t *testing.T) {
	ns := acctest.Namespace(t)
	config := acctest.ProviderBlock(t) + workloadConfig("j", "long-training", ns, "job",
		landingCase{cloud: "generic", accelerator: "a30", count: 1, extra: `
  timeouts {
    create = "5s"
  }`})
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttrSet("gpu_workload.j", "uid"),
					resource.TestCheckResourceAttr("gpu_workload.j", "scheduled_nodes.#", "0"),
				),
			},
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
			},
		},
	})
}

// spec.completions of a Job is immutable in Kubernetes too (batch/v1
// validation allows changing it only on Indexed Jobs, which gpu_workload does
// not create): changing job.completions replaces the Job on a real API
// server instead of failing the apply with "field is immutable".
func TestAccWorkload_jobCompletionsChangeAppliesAsReplacement(t *testing.T) {
	ns := acctest.Namespace(t)
	config := func(completions int) string {
		return acctest.ProviderBlock(t) + workloadConfig("j", "sweep", ns, "job",
			landingCase{cloud: "generic", accelerator: "h100-80gb", count: 1, extra: fmt.Sprintf(`
  job {
    completions = %d
  }`, completions)})
	}
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config(1)},
			{
				Config: config(2),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("gpu_workload.j", plancheck.ResourceActionDestroyBeforeCreate),
				}},
			},
		},
	})
}
