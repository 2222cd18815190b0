package gpuraycluster_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

const layer3 = "topology.k8s.aws/network-node-layer-3"

// A worker group's topology on the real scheduler: an EKS node group of
// six p4d nodes in two layer-3 network domains of three, and a group of
// three 8-GPU pods that must share one. All three land in one domain (by
// chance that happens one time in ten).
func TestAccRayCluster_groupTopologyKeepsPodsInOneDomain(t *testing.T) {
	acctest.PreCheck(t)
	acctest.RequireKubeRay(t)
	ns := acctest.Namespace(t)
	tag := "ray-tas-" + rand.String(5)
	createDomains(t, tag, "a", "b")
	config := acctest.ProviderBlock(t) + fmt.Sprintf(`
resource "gpu_node_pool_policy" "tas" {
  name          = "acc-ray-tas"
  cloud         = "eks"
  accelerator   = "a100-40gb"
  gpus_per_node = 8
  labels        = { %[1]q = %[2]q }
  taints        = [{ key = %[1]q, value = %[2]q, effect = "NoSchedule" }]
}

resource "gpu_ray_cluster" "test" {
  name      = "acc-ray-tas"
  namespace = %[3]q
  cloud     = "eks"
  image     = "rayproject/ray:2.52.0"
  wait_for  = "scheduled"
  unschedulable_timeout = "1m"
  head {
    cpu    = "500m"
    memory = "1Gi"
  }
  worker_group {
    name      = "train"
    node_pool = gpu_node_pool_policy.tas.ref
    replicas  = 3
    cpu       = "500m"
    memory    = "1Gi"
    gpu {
      count = 8
    }
    topology {
      level = "layer-3"
    }
  }
}
`, acctest.FakeNodeLabel, tag, ns)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkNothingLeft(t, ns),
		Steps: []resource.TestStep{{
			Config: config,
			Check: resource.ComposeAggregateTestCheckFunc(
				checkGroupPods(t, ns, "train", 3, tag, "8"),
				checkOneDomain(t, ns, "train", layer3),
			),
		}},
	})
}

// createDomains creates, per domain, three nodes like the fixture's EKS
// p4d.24xlarge (8 A100s, 4 EFA devices) in layer-3 network domain
// <tag>-<domain>, all
// labelled and tainted with tag so no other test's pods land there.
func createDomains(t *testing.T, tag string, domains ...string) {
	t.Helper()
	for _, d := range domains {
		labels, taints := fixtureNode(t, "eks-p4d-0")
		labels["eks.amazonaws.com/nodegroup"] = "acc-ray-tas"
		labels[acctest.FakeNodeLabel] = tag
		labels["topology.k8s.aws/network-node-layer-1"] = tag
		labels["topology.k8s.aws/network-node-layer-2"] = tag
		labels[layer3] = tag + "-" + d
		taints = append(taints, corev1.Taint{Key: acctest.FakeNodeLabel, Value: tag, Effect: corev1.TaintEffectNoSchedule})
		// A group of several pods on p4d gets the node's EFA share and huge
		// pages (the pool's GPU network), which these nodes advertise.
		resources := map[string]int64{"nvidia.com/gpu": 8, "vpc.amazonaws.com/efa": 4, "hugepages-2Mi": 16 << 30}
		acctest.CreateFakeNodes(t, tag+"-"+d, 3, resources, labels, taints...)
	}
}

// checkOneDomain: the group's pods run on nodes with one value of label.
func checkOneDomain(t *testing.T, ns, group, label string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		domains := map[string][]string{}
		for _, p := range groupPods(t, ns, group) {
			node, err := acctest.Client(t).CoreV1().Nodes().Get(ctx, p.Spec.NodeName, metav1.GetOptions{})
			if err != nil {
				return err
			}
			domains[node.Labels[label]] = append(domains[node.Labels[label]], p.Name+"@"+node.Name)
		}
		if len(domains) != 1 {
			return fmt.Errorf("group %s's pods are in %d domains of %s: %v", group, len(domains), label, domains)
		}
		return nil
	}
}
