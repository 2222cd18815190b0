package provider

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// A generic DRA pool matching the local cluster's dra-h100 nodes
// (scripts/localcluster/fixtures/dra.yaml: 2 nodes x 8 H100 published as
// ResourceSlices) and a Deployment asking it for two GPUs, with no gpu.dra
// block: the pool applies its DeviceClass, the workload claims two devices
// of it, the real scheduler allocates two H100s of one dra-h100 node and
// kwok runs the pod there. Destroy removes the class.
func TestAccNodePoolPolicy_draPoolWorkloadGetsTwoH100s(t *testing.T) {
	ns := acctest.Namespace(t)
	cs := acctest.Client(t)
	pool := ns // a DNS label of its own per test: the class is cluster-wide
	class := pool + ".gpu.gpuform.io"
	config := acctest.ProviderBlock(t) + fmt.Sprintf(`
resource "gpu_node_pool_policy" "p" {
  name           = %[1]q
  cloud          = "generic"
  accelerator    = "h100-80gb"
  gpus_per_node  = 8
  gpu_allocation = "dra"
}

resource "gpu_workload" "w" {
  name      = "llm"
  namespace = %[1]q
  node_pool = gpu_node_pool_policy.p.ref
  image     = "registry.invalid/cuda:12"
  gpu {
    count = 2
  }
}
`, ns)
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkDeviceClassGone(cs, class),
		Steps: []resource.TestStep{{
			Config: config,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("gpu_node_pool_policy.p", "device_class_name", class),
				resource.TestCheckResourceAttr("gpu_workload.w", "resource_name", ""),
				acctest.ManifestMatches("gpu_workload.w", regexp.MustCompile(`deviceClassName: `+regexp.QuoteMeta(class))),
				func(*terraform.State) error { return checkTwoH100sOfOneNode(cs, ns, class) },
			),
		}},
	})
}

// checkTwoH100sOfOneNode reads the class, the pod and its claim's
// allocation back from the cluster.
func checkTwoH100sOfOneNode(cs kubernetes.Interface, ns, class string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := cs.ResourceV1().DeviceClasses().Get(ctx, class, metav1.GetOptions{}); err != nil {
		return fmt.Errorf("the pool's DeviceClass: %w", err)
	}
	pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil || len(pods.Items) != 1 {
		return fmt.Errorf("want the Deployment's one pod, got %d (%v)", len(pods.Items), err)
	}
	pod := pods.Items[0]
	if err := checkNoExtendedGPU(pod); err != nil {
		return err
	}
	node, err := cs.CoreV1().Nodes().Get(ctx, pod.Spec.NodeName, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if got := node.Labels["fixtures.gpuform.io/pool"]; got != "dra-h100" {
		return fmt.Errorf("pod runs on %s of pool %q, want dra-h100", node.Name, got)
	}
	claims, err := cs.ResourceV1().ResourceClaims(ns).List(ctx, metav1.ListOptions{})
	if err != nil || len(claims.Items) != 1 {
		return fmt.Errorf("want one ResourceClaim, got %d (%v)", len(claims.Items), err)
	}
	return checkAllocation(claims.Items[0], class, node.Name)
}

func checkNoExtendedGPU(pod corev1.Pod) error {
	for _, c := range pod.Spec.Containers {
		for name := range c.Resources.Limits {
			if strings.HasPrefix(string(name), "nvidia.com/") {
				return fmt.Errorf("container %s requests %s on a DRA pool", c.Name, name)
			}
		}
	}
	return nil
}

// checkAllocation: two distinct devices of the driver, from the node's own
// pool (the driver names a node's pool after the node), for the class.
func checkAllocation(claim resourcev1.ResourceClaim, class, node string) error {
	if claim.Status.Allocation == nil {
		return fmt.Errorf("claim %s is not allocated", claim.Name)
	}
	if req := claim.Spec.Devices.Requests; len(req) != 1 || req[0].Exactly == nil || req[0].Exactly.DeviceClassName != class ||
		len(req[0].Exactly.Selectors) > 0 {
		return fmt.Errorf("claim %s requests %+v, want %s alone", claim.Name, req, class)
	}
	var devices []string
	for _, r := range claim.Status.Allocation.Devices.Results {
		if r.Driver != "gpu.nvidia.com" || r.Pool != node {
			return fmt.Errorf("claim %s got %s/%s/%s, want a gpu.nvidia.com device of pool %s", claim.Name, r.Driver, r.Pool, r.Device, node)
		}
		devices = append(devices, r.Device)
	}
	slices.Sort(devices)
	if len(slices.Compact(devices)) != 2 {
		return fmt.Errorf("claim %s got devices %v, want two distinct H100s", claim.Name, devices)
	}
	return nil
}

func checkDeviceClassGone(cs kubernetes.Interface, class string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err := cs.ResourceV1().DeviceClasses().Get(ctx, class, metav1.GetOptions{})
		if !apierrors.IsNotFound(err) {
			return fmt.Errorf("DeviceClass %s still exists (%v)", class, err)
		}
		return nil
	}
}

// An update that stops applying the pool's DeviceClass (apply_device_class
// = false: GitOps takes the class over) removes it through the prune step;
// turning it back on applies it again.
func TestAccNodePoolPolicy_draClassPrunedWhenNoLongerApplied(t *testing.T) {
	ns := acctest.Namespace(t)
	cs := acctest.Client(t)
	class := ns + ".gpu.gpuform.io"
	config := func(apply bool) string {
		return acctest.ProviderBlock(t) + fmt.Sprintf(`
resource "gpu_node_pool_policy" "p" {
  name               = %q
  cloud              = "generic"
  accelerator        = "h100-80gb"
  gpus_per_node      = 8
  gpu_allocation     = "dra"
  apply_device_class = %t
}
`, ns, apply)
	}
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkDeviceClassGone(cs, class),
		Steps: []resource.TestStep{
			{Config: config(true), Check: checkDeviceClassExists(cs, class)},
			{Config: config(false), Check: checkDeviceClassGone(cs, class)},
			{Config: config(true), Check: checkDeviceClassExists(cs, class)},
		},
	})
}

func checkDeviceClassExists(cs kubernetes.Interface, class string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := cs.ResourceV1().DeviceClasses().Get(ctx, class, metav1.GetOptions{}); err != nil {
			return fmt.Errorf("DeviceClass %s: %w", class, err)
		}
		return nil
	}
}
