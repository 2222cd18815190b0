package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// draCapacityConfig reads the local cluster's A100 MIG and H100 DRA pools
// (scripts/localcluster/fixtures/dra.yaml), after the configuration's
// workloads when there are any.
func draCapacityConfig(dependsOn string) string {
	return fmt.Sprintf(`
data "gpu_cluster_capacity" "mig" {
  selector   = "fixtures.gpuform.io/pool=dra-a100-mig"
  depends_on = [%[1]s]
}

data "gpu_cluster_capacity" "h100" {
  selector   = "fixtures.gpuform.io/pool=dra-h100"
  depends_on = [%[1]s]
}
`, dependsOn)
}

// gpu_cluster_capacity counts the DRA pools' devices: published from the
// ResourceSlices, allocated from the claims. Two 1g.5gb MIG devices, which
// no other test takes, move from free to allocated while a workload holds
// them. The H100s are only checked as published: parallel tests allocate
// them.
func TestAccClusterCapacity_countsDRADevices(t *testing.T) {
	ns := acctest.Namespace(t)
	workload := draWorkloadConfig(t, "w", "mig-1g", ns, "count = 2\n    accelerator = \"a100-40gb\"\n    partition = \"1g.5gb\"", "")
	mig := "data.gpu_cluster_capacity.mig"
	h100 := "data.gpu_cluster_capacity.h100"
	migDevices := func(allocated, free string) resource.TestCheckFunc {
		return resource.ComposeAggregateTestCheckFunc(
			resource.TestCheckResourceAttr(mig, "pools.#", "1"),
			resource.TestCheckResourceAttr(mig, "pools.0.key", "generic/NVIDIA-A100-SXM4-40GB/mig-all-balanced/dra"),
			resource.TestCheckResourceAttr(mig, "pools.0.dra_driver", "gpu.nvidia.com"),
			resource.TestCheckResourceAttr(mig, "pools.0.resources.#", "0"),
			resource.TestCheckResourceAttr(mig, "pools.0.dra_devices.#", "3"),
			resource.TestCheckResourceAttr(mig, "pools.0.dra_devices.0.product", "NVIDIA A100-SXM4-40GB"),
			resource.TestCheckResourceAttr(mig, "pools.0.dra_devices.0.type", "mig"),
			resource.TestCheckResourceAttr(mig, "pools.0.dra_devices.0.profile", "1g.5gb"),
			resource.TestCheckResourceAttr(mig, "pools.0.dra_devices.0.published", "16"),
			resource.TestCheckResourceAttr(mig, "pools.0.dra_devices.0.allocated", allocated),
			resource.TestCheckResourceAttr(mig, "pools.0.dra_devices.0.free", free),
			resource.TestCheckResourceAttr(mig, "pools.0.dra_devices.1.profile", "2g.10gb"),
			resource.TestCheckResourceAttr(mig, "pools.0.dra_devices.2.profile", "3g.20gb"),
			resource.TestCheckResourceAttr(h100, "pools.#", "1"),
			resource.TestCheckResourceAttr(h100, "pools.0.key", "generic/NVIDIA-H100-80GB-HBM3/dra"),
			resource.TestCheckResourceAttr(h100, "pools.0.nodes.#", "2"),
			resource.TestCheckResourceAttr(h100, "pools.0.dra_devices.#", "1"),
			resource.TestCheckResourceAttr(h100, "pools.0.dra_devices.0.product", "NVIDIA H100 80GB HBM3"),
			resource.TestCheckResourceAttr(h100, "pools.0.dra_devices.0.type", "gpu"),
			resource.TestCheckResourceAttr(h100, "pools.0.dra_devices.0.profile", ""),
			resource.TestCheckResourceAttr(h100, "pools.0.dra_devices.0.published", "16"),
		)
	}
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkNoClaims(t, ns),
		Steps: []resource.TestStep{
			{
				Config: acctest.ProviderBlock(t) + draCapacityConfig(""),
				Check:  migDevices("0", "16"),
			},
			{
				Config: workload + draCapacityConfig("gpu_workload.w"),
				Check: resource.ComposeAggregateTestCheckFunc(
					checkAllocated(t, ns, "mig-1g", 2, "a 1g.5gb MIG device", func(d draDevice) bool {
						return d.attributes["type"] == "mig" && d.attributes["profile"] == "1g.5gb"
					}),
					migDevices("2", "14"),
				),
			},
		},
	})
}
