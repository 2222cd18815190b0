package gpuworkload_test

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// The docs list the gpu block under "Optional" (Terraform's protocol has no
// required blocks) and say it is required: a gpu_workload without it must
// fail the plan, on the resource, with no cluster.
func TestWorkload_gpuBlockRequired(t *testing.T) {
	acctest.ClearClusterEnv(t)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{{
			Config: `
resource "gpu_workload" "no_gpu" {
  name      = "no-gpu"
  namespace = "ml"
  cloud     = "gke"
  image     = "registry.example/app:1"
}
`,
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)Invalid Block.*resource "gpu_workload" "no_gpu".*Block gpu must have a configuration value`),
		}},
	})
}
