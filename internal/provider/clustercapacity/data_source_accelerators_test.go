package clustercapacity_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// The catalog needs no cluster; filters narrow it as documented.
func TestAcceleratorsDataSource_filters(t *testing.T) {
	acctest.ClearClusterEnv(t)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
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
				// MIG-capable on GKE with 80 GB or more: A100 80GB, B200, GB200,
				// H100 80GB, H200 and RTX PRO 6000 (96 GB); not A100 40GB.
				resource.TestCheckResourceAttr("data.gpu_accelerators.gke_mig_80", "names.#", "6"),
				resource.TestCheckTypeSetElemAttr("data.gpu_accelerators.gke_mig_80", "names.*", "a100-80gb"),
				resource.TestCheckTypeSetElemAttr("data.gpu_accelerators.gke_mig_80", "names.*", "h100-80gb"),
				resource.TestCheckTypeSetElemAttr("data.gpu_accelerators.gke_mig_80", "names.*", "gb200"),
				resource.TestCheckTypeSetElemAttr("data.gpu_accelerators.gke_mig_80", "names.*", "rtx-pro-6000"),
				acctest.CheckListLacks("data.gpu_accelerators.gke_mig_80", "names", "a100-40gb"),
				resource.TestCheckResourceAttr("data.gpu_accelerators.gke_mig_80", "accelerators.0.gke_accelerators.0", "nvidia-a100-80gb"),
				resource.TestCheckResourceAttr("data.gpu_accelerators.gke_mig_80", "accelerators.0.mig_profiles.0.name", "1g.10gb"),
				resource.TestCheckTypeSetElemAttr("data.gpu_accelerators.aks", "names.*", "a100-80gb"),
				acctest.CheckListLacks("data.gpu_accelerators.aks", "names", "a10g"),
			),
		}},
	})
}
