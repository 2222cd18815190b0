package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// The catalog needs no cluster; filters narrow it as documented.
func TestAccAcceleratorsDataSource_filters(t *testing.T) {
	clearClusterEnv(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
data "gpu_accelerators" "all" {}

data "gpu_accelerators" "gke_mig_80" {
  cloud          = "gke"
  mig            = true
  min_memory_gib = 80
}

data "gpu_accelerators" "aks" {
  cloud = "aks"
}
`,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckTypeSetElemAttr("data.gpu_accelerators.all", "names.*", "t4"),
				resource.TestCheckTypeSetElemAttr("data.gpu_accelerators.all", "names.*", "a10g"),
				resource.TestCheckTypeSetElemAttr("data.gpu_accelerators.all", "names.*", "b200"),
				resource.TestCheckTypeSetElemAttr("data.gpu_accelerators.gke_mig_80", "names.*", "a100-80gb"),
				resource.TestCheckTypeSetElemAttr("data.gpu_accelerators.gke_mig_80", "names.*", "h100-80gb"),
				resource.TestCheckNoResourceAttr("data.gpu_accelerators.gke_mig_80", "names.4"),
				resource.TestCheckResourceAttr("data.gpu_accelerators.gke_mig_80", "accelerators.0.gke_accelerators.0", "nvidia-a100-80gb"),
				resource.TestCheckResourceAttr("data.gpu_accelerators.gke_mig_80", "accelerators.0.mig_profiles.0.name", "1g.10gb"),
				resource.TestCheckTypeSetElemAttr("data.gpu_accelerators.aks", "names.*", "a100-80gb"),
				checkListLacks("data.gpu_accelerators.aks", "names", "a10g"),
			),
		}},
	})
}
