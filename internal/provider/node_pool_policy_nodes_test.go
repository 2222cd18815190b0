package provider

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// A node that already carries the pool's taint key and effect with another
// value (here GKE's nvidia.com/gpu=present under a generic policy) fails
// the apply with both taints named, the other node is managed anyway, and
// once the node's taint is gone the next apply converges.
//
// Both nodes keep a taint of the test's own throughout, so that no pod of a
// parallel test lands on them while the policy's taint is off (its
// destroy, the clash removed by hand).
func TestAccNodePoolPolicy_taintClashIsNamedThenConverges(t *testing.T) {
	name := "clash-" + rand.String(6)
	hold := corev1.Taint{Key: "gpuform.io/test-hold", Value: name, Effect: corev1.TaintEffectNoSchedule}
	gke := corev1.Taint{Key: "nvidia.com/gpu", Value: "present", Effect: corev1.TaintEffectNoSchedule}
	nodes := acctest.CreateFakeNodes(t, name, 2, map[string]int64{"nvidia.com/gpu": 8}, nil, hold)
	setTaints(t, nodes[0], hold, gke)
	config := acctest.ProviderBlock(t) + fmt.Sprintf(`
resource "gpu_node_pool_policy" "p" {
  name          = %[1]q
  cloud         = "generic"
  accelerator   = "h100-80gb"
  gpus_per_node = 8
  manage_nodes {
    selector = "%[2]s=%[1]s"
  }
}
`, name, acctest.FakeNodeLabel)
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      config,
			ExpectError: regexp.MustCompile(`node ` + nodes[0] + ` already has the taint\s+nvidia\.com/gpu=present:NoSchedule,\s+and\s+the\s+policy's\s+taint\s+nvidia\.com/gpu`),
		}, {
			PreConfig: func() {
				if !hasPoolRecord(t, nodes[1], name) {
					t.Fatalf("node %s was not managed although only %s clashed", nodes[1], nodes[0])
				}
				setTaints(t, nodes[0], hold)
			},
			Config: config,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("gpu_node_pool_policy.p", "managed_nodes.#", "2"),
				func(*terraform.State) error {
					if !hasPoolRecord(t, nodes[0], name) {
						return fmt.Errorf("node %s not managed after the clash was removed", nodes[0])
					}
					return nil
				},
			),
		}},
	})
}

func setTaints(t *testing.T, node string, taints ...corev1.Taint) {
	t.Helper()
	updateTestNode(t, node, "kubectl-taint", func(n *corev1.Node) { n.Spec.Taints = taints })
}

// hasPoolRecord: the node carries the record of what the policy changed,
// under the annotation the generic guide documents.
func hasPoolRecord(t *testing.T, node, policy string) bool {
	t.Helper()
	n, err := acctest.Client(t).CoreV1().Nodes().Get(context.Background(), node, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, ok := n.Annotations["pools.gpu.gpuform.io/"+policy]
	return ok
}
