package provider

import (
	"context"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/ptr"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
)

// (#43 d) Tainted devices on Kubernetes 1.37's real scheduler: a node of 8
// H100s whose gpu-0 carries a taint in its ResourceSlice (as the driver's
// health checks publish one) and whose every device a DeviceTaintRule
// taints (as an administrator draining the node would). gpu_cluster_capacity
// counts the 8 as tainted and none free, and a workload on the node's pool
// that asks for one device fails at the scheduler's first refusal with the
// devices and their taints named.
func TestAccWorkload_draTaintedDevicesAreNotFreeAndNamed(t *testing.T) {
	requireServerMinor(t, 37, "DeviceTaintRule in resource.k8s.io/v1 (device taints are GA in 1.37)")
	ns := acctest.Namespace(t)
	prefix := "taint-" + rand.String(6)
	node := taintedH100Node(t, prefix)
	config := acctest.ProviderBlock(t) + fmt.Sprintf(`
resource "gpu_node_pool_policy" "p" {
  name           = %[1]q
  cloud          = "generic"
  accelerator    = "h100-80gb"
  gpus_per_node  = 8
  gpu_allocation = "dra"
  labels         = { %[2]q = %[1]q }
  taints         = [{ key = %[2]q, value = %[1]q, effect = "NoSchedule" }]
}

data "gpu_cluster_capacity" "node" {
  selector = "%[2]s=%[1]s"
}
`, prefix, acctest.FakeNodeLabel)
	workload := fmt.Sprintf(`
resource "gpu_workload" "w" {
  name                  = "one"
  namespace             = %[1]q
  node_pool             = gpu_node_pool_policy.p.ref
  image                 = "registry.invalid/cuda:12"
  unschedulable_timeout = "0s"
  gpu {
    count = 1
  }
  timeouts {
    create = "2m"
  }
}
`, ns)
	capacity := "data.gpu_cluster_capacity.node"
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkDeviceClassGone(acctest.Client(t), prefix+".gpu.gpuform.io"),
		Steps: []resource.TestStep{
			{
				Config: config,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(capacity, "pools.#", "1"),
					resource.TestCheckResourceAttr(capacity, "pools.0.dra_devices.0.published", "8"),
					resource.TestCheckResourceAttr(capacity, "pools.0.dra_devices.0.tainted", "8"),
					resource.TestCheckResourceAttr(capacity, "pools.0.dra_devices.0.free", "0"),
				),
			},
			{
				Config: config + workload,
				ExpectError: wrappedRegexp(`did not become ready`, `Unschedulable`,
					`GPU pools in the cluster \(DRA devices matching the claim\):`,
					`8 more tainted \(NoSchedule or NoExecute; the claim has no toleration\): `+
						`gpu-0 of `+node+` \(gpu\.nvidia\.com/xid=79:NoSchedule, example\.com/maintenance:NoExecute\), `+
						`gpu-1 of `+node+` \(example\.com/maintenance:NoExecute\)`,
					`at most 0 free on one node`),
			},
		},
	})
}

// taintedH100Node creates a DRA node of 8 H100s like the local cluster's
// dra-h100 nodes, with the test's label and taint so only its pool lands
// there, gpu-0 tainted in the slice and a DeviceTaintRule over the node's
// pool; it returns the node's name. The rule goes when the test ends.
func taintedH100Node(t *testing.T, prefix string) string {
	t.Helper()
	var labels map[string]string
	for _, n := range rendertest.LoadFixtureNodes(t, "dra") {
		if n.Name == "dra-h100-0" {
			labels = maps.Clone(n.Labels)
		}
	}
	for _, k := range []string{"kubernetes.io/hostname", "fixtures.gpuform.io/pool", "fixtures.gpuform.io/cloud", "fixtures.gpuform.io/dra-driver"} {
		delete(labels, k)
	}
	devices := pairedRootDevices(t, prefix+"-0")
	devices[0].Taints = []resourcev1.DeviceTaint{{Key: "gpu.nvidia.com/xid", Value: "79", Effect: resourcev1.DeviceTaintEffectNoSchedule}}
	taint := corev1.Taint{Key: acctest.FakeNodeLabel, Value: prefix, Effect: corev1.TaintEffectNoSchedule}
	node := acctest.CreateFakeDRANode(t, prefix, labels, devices, taint)

	cs := acctest.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rule := &resourcev1.DeviceTaintRule{
		ObjectMeta: metav1.ObjectMeta{Name: prefix},
		Spec: resourcev1.DeviceTaintRuleSpec{
			DeviceSelector: &resourcev1.DeviceTaintSelector{Driver: ptr.To("gpu.nvidia.com"), Pool: ptr.To(node)},
			Taint:          resourcev1.DeviceTaint{Key: "example.com/maintenance", Effect: resourcev1.DeviceTaintEffectNoExecute},
		},
	}
	if _, err := cs.ResourceV1().DeviceTaintRules().Create(ctx, rule, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating DeviceTaintRule %s: %v", prefix, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := cs.ResourceV1().DeviceTaintRules().Delete(ctx, prefix, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting DeviceTaintRule %s: %v", prefix, err)
		}
	})
	return node
}
