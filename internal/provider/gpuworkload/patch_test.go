package gpuworkload_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// manifests holds one document per object, so yamldecode reads each; the
// plan after apply is empty (issue #13).
func TestWorkload_manifestsDecodeAsObjects(t *testing.T) {
	acctest.ClearClusterEnv(t)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{{
			Config: `
resource "gpu_workload" "w" {
  name      = "w"
  namespace = "ml"
  cloud     = "gke"
  image     = "registry.invalid/cuda:12"
  apply     = false
  gpu {
    count       = 1
    accelerator = "l4"
  }
  model_cache {
    size = "100Gi"
  }
}

output "kinds" {
  value = join(",", [for m in gpu_workload.w.manifests : yamldecode(m).kind])
}
`,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckOutput("kinds", "PersistentVolumeClaim,Deployment"),
				resource.TestCheckResourceAttr("gpu_workload.w", "manifests.#", "2"),
			),
		}},
	})
}
