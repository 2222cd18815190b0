package gpuraycluster_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// A RayService: the operator accepts the rendered object and creates its
// cluster, whose GPU group lands on its pool with the GPU and num-gpus of
// the group. Serve never becomes ready on simulated nodes (no Ray runs),
// so the apply waits for the pods to be scheduled; destroy removes the
// service and the cluster KubeRay made for it.
func TestAccRayCluster_serviceRunsItsCluster(t *testing.T) {
	acctest.PreCheck(t)
	acctest.RequireKubeRay(t)
	ns := acctest.Namespace(t)
	pools := accPools(t)
	config := acctest.ProviderBlock(t) + pools.hcl + fmt.Sprintf(`
resource "gpu_ray_cluster" "serve" {
  name      = "acc-serve"
  namespace = %q
  cloud     = "eks"
  image     = "rayproject/ray:2.52.0"
  wait_for  = "scheduled"
  head {
    cpu    = "500m"
    memory = "1Gi"
  }
  worker_group {
    name      = "replica"
    node_pool = gpu_node_pool_policy.g5.ref
    replicas  = 2
    cpu       = "500m"
    memory    = "1Gi"
    gpu {
      count = 1
    }
  }
  serve {
    config_yaml = <<-EOT
      applications:
      - name: llm
        import_path: serve_app:app
        route_prefix: /
    EOT
  }
}
`, ns)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkNothingLeft(t, ns),
		Steps: []resource.TestStep{{
			Config: config,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("gpu_ray_cluster.serve", "kind", "RayService"),
				resource.TestCheckResourceAttr("gpu_ray_cluster.serve", "num_gpus.replica", "1"),
				checkServiceCluster(t, ns, "acc-serve"),
				checkGroupPods(t, ns, "replica", 2, pools.g5, "1"),
			),
		}},
	})
}

// checkServiceCluster: KubeRay made a RayCluster for the RayService, owned
// by it.
func checkServiceCluster(t *testing.T, ns, service string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		list, err := dynamicClient(t).Resource(rayClusters).Namespace(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		for _, c := range list.Items {
			for _, o := range c.GetOwnerReferences() {
				if o.Kind == "RayService" && o.Name == service {
					return nil
				}
			}
		}
		return fmt.Errorf("no RayCluster owned by RayService %s among %d", service, len(list.Items))
	}
}
