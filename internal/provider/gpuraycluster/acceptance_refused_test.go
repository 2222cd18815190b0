package gpuraycluster_test

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// A group whose pods the scheduler refuses: three pods of 4 A10Gs on a
// node group of two 4-GPU nodes leave one Pending. The failed apply says
// which group, how many of its pods, and which GPU pools could take them
// and why not (the pool's nodes are full), as gpu_workload's wait does.
func TestAccRayCluster_refusedGroupNamesThePools(t *testing.T) {
	acctest.PreCheck(t)
	acctest.RequireKubeRay(t)
	ns := acctest.Namespace(t)
	config := acctest.ProviderBlock(t) + accPools(t).hcl + fmt.Sprintf(`
resource "gpu_ray_cluster" "test" {
  name      = "acc-ray-full"
  namespace = %q
  cloud     = "eks"
  image     = "rayproject/ray:2.52.0"
  unschedulable_timeout = "5s"
  head {
    cpu    = "500m"
    memory = "1Gi"
  }
  worker_group {
    name      = "small"
    node_pool = gpu_node_pool_policy.g5.ref
    replicas  = 3
    cpu       = "500m"
    memory    = "1Gi"
    gpu {
      count = 4
    }
  }
}
`, ns)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkNothingLeft(t, ns),
		Steps: []resource.TestStep{{
			Config: config,
			ExpectError: phrases("did not become ready", "the scheduler has refused a pod", "Group small (1 pod(s) refused):",
				"GPU pools in the cluster:", "eks/acc-ray-g5: 2/2 nodes: all 4 nvidia.com/gpu requested by other pods"),
		}},
	})
}

// A cluster sent to a LocalQueue that does not exist fails the apply
// before anything is created: Kueue would hold it suspended forever.
func TestAccRayCluster_missingLocalQueueStopsTheApply(t *testing.T) {
	acctest.PreCheck(t)
	acctest.RequireKubeRay(t)
	ns := acctest.Namespace(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkNothingLeft(t, ns),
		Steps: []resource.TestStep{{
			Config: acctest.ProviderBlock(t) + fmt.Sprintf(`
resource "gpu_ray_cluster" "test" {
  name      = "acc-ray-noqueue"
  namespace = %q
  cloud     = "eks"
  image     = "rayproject/ray:2.52.0"
  queue     = "nobody"
}
`, ns),
			ExpectError: phrases("No such queue", `LocalQueue "nobody" does not exist`, "never admit the Ray cluster"),
		}},
	})
}
