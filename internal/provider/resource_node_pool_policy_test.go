package provider

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/util/retry"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// poolCase is one cloud's pool for the manage_nodes tests.
type poolCase struct {
	cloud, accelerator string
	gpusPerNode        int64
	extra              string
	// shape checks the cloud node-pool shape fed to a second resource.
	shape []statecheck.StateCheck
}

// poolConfig is a policy that manages the test's own nodes, a workload
// placed with it, and the cloud shape passed on as a node-pool resource
// would take it.
func poolConfig(t *testing.T, ns, prefix string, c poolCase, shape string, workloadCount int) string {
	return acctest.ProviderBlock(t) + fmt.Sprintf(`
resource "gpu_node_pool_policy" "p" {
  name          = %[1]q
  cloud         = %[2]q
  accelerator   = %[3]q
  gpus_per_node = %[4]d
  # Only the test's nodes carry this label, so workloads land exactly there.
  labels = { "gpuform.io/test-run" = %[1]q }
  %[5]s

  manage_nodes {
    selector = "%[6]s=%[1]s"
  }
}

resource "gpu_workload" "w" {
  name      = "on-pool"
  namespace = %[7]q
  node_pool = gpu_node_pool_policy.p.ref
  image     = "registry.invalid/cuda:12"
  gpu {
    count = %[8]d
  }
  timeouts {
    create = "60s"
  }
}

resource "terraform_data" "node_pool" {
  input = %[9]s
}
`, prefix, c.cloud, c.accelerator, c.gpusPerNode, c.extra, acctest.FakeNodeLabel, ns, workloadCount, shape)
}

func TestAccNodePoolPolicy_manageNodesPerCloud(t *testing.T) {
	cases := map[string]poolCase{
		"gke": {cloud: "gke", accelerator: "a100-40gb", gpusPerNode: 8, shape: []statecheck.StateCheck{
			shapeValue("guest_accelerator", "type", knownvalue.StringExact("nvidia-tesla-a100")),
			shapeValue("guest_accelerator", "count", knownvalue.Int64Exact(8)),
			shapeValue("guest_accelerator", "gpu_driver_version", knownvalue.StringExact("LATEST")),
		}},
		"aks": {cloud: "aks", accelerator: "a100-80gb", gpusPerNode: 1, shape: []statecheck.StateCheck{
			shapeValue("node_taints", "", knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("sku=gpu:NoSchedule")})),
			shapeValue("vm_size", "", knownvalue.StringExact("Standard_NC24ads_A100_v4")),
		}},
		"eks": {cloud: "eks", accelerator: "a10g", gpusPerNode: 4, shape: []statecheck.StateCheck{
			shapeValue("taints", "", knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectExact(map[string]knownvalue.Check{
				"key": knownvalue.StringExact("nvidia.com/gpu"), "value": knownvalue.StringExact("true"),
				"effect": knownvalue.StringExact("NO_SCHEDULE"),
			})})),
			shapeValue("labels", "k8s.amazonaws.com/accelerator", knownvalue.StringExact("nvidia-a10g")),
		}},
		"eks-auto":  {cloud: "eks-auto", accelerator: "l40s", gpusPerNode: 4},
		"karpenter": {cloud: "karpenter", accelerator: "l4", gpusPerNode: 4, extra: "spot = true"},
		"generic":   {cloud: "generic", accelerator: "h100-80gb", gpusPerNode: 8},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			ns := acctest.Namespace(t)
			prefix := "pool-" + rand.String(6)
			nodes := acctest.CreateFakeNodes(t, prefix, 2, map[string]int64{"nvidia.com/gpu": c.gpusPerNode}, nil)
			before := acctest.SnapshotNodes(t, nodes)
			shape := "gpu_node_pool_policy.p." + shapeAttribute(c.cloud)
			resource.ParallelTest(t, resource.TestCase{
				PreCheck:                 func() { acctest.PreCheck(t) },
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				CheckDestroy:             checkNodesRestored(t, before),
				Steps: []resource.TestStep{{
					Config: poolConfig(t, ns, prefix, c, shape, 1),
					Check: resource.ComposeAggregateTestCheckFunc(
						resource.TestMatchResourceAttr("gpu_workload.w", "scheduled_nodes.0", regexp.MustCompile("^"+prefix+`-\d$`)),
						resource.TestCheckResourceAttr("gpu_workload.w", "cloud", c.cloud),
						resource.TestCheckResourceAttr("gpu_node_pool_policy.p", "managed_nodes.#", "2"),
						resource.TestCheckResourceAttr("gpu_node_pool_policy.p", "drift.#", "0"),
					),
					ConfigStateChecks: c.shape,
				}},
			})
		})
	}
}

// A MIG layout pool and a time-slicing pool, each with a workload that
// lands on it, and the device plugin config entry the time-sliced pool
// writes.
func TestAccNodePoolPolicy_migAndTimeSlicingPools(t *testing.T) {
	ns := acctest.Namespace(t)
	mig := "mig-" + rand.String(6)
	shared := "ts-" + rand.String(6)
	acctest.CreateFakeNodes(t, mig, 1, map[string]int64{"nvidia.com/mig-1g.5gb": 56}, nil)
	acctest.CreateFakeNodes(t, shared, 1, map[string]int64{"nvidia.com/gpu.shared": 4}, nil)
	config := acctest.ProviderBlock(t) + fmt.Sprintf(`
resource "gpu_node_pool_policy" "mig" {
  name          = %[1]q
  cloud         = "generic"
  accelerator   = "a100-40gb"
  gpus_per_node = 8
  partition     = "all-1g.5gb"
  mig_strategy  = "mixed"
  labels        = { "gpuform.io/test-run" = %[1]q }
  manage_nodes {
    selector = "%[3]s=%[1]s"
  }
}

resource "gpu_node_pool_policy" "shared" {
  name          = %[2]q
  cloud         = "generic"
  accelerator   = "t4"
  gpus_per_node = 1
  sharing       = "time-slicing"
  replicas      = 4
  labels        = { "gpuform.io/test-run" = %[2]q }
  manage_nodes {
    selector = "%[3]s=%[2]s"
  }
  device_plugin_config {
    namespace = %[4]q
    name      = "device-plugin-config"
  }
}

resource "gpu_workload" "mig" {
  name      = "mig-slices"
  namespace = %[4]q
  node_pool = gpu_node_pool_policy.mig.ref
  image     = "registry.invalid/cuda:12"
  gpu {
    count = 2
  }
}

resource "gpu_workload" "shared" {
  name      = "shared-slot"
  namespace = %[4]q
  node_pool = gpu_node_pool_policy.shared.ref
  image     = "registry.invalid/cuda:12"
  replicas  = 3
  gpu {
    count = 1
  }
}
`, mig, shared, acctest.FakeNodeLabel, ns)
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: config,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("gpu_workload.mig", "scheduled_nodes.0", mig+"-0"),
				resource.TestCheckResourceAttr("gpu_workload.mig", "resource_name", "nvidia.com/mig-1g.5gb"),
				resource.TestCheckResourceAttr("gpu_node_pool_policy.mig", "mig_config", "all-1g.5gb"),
				resource.TestCheckResourceAttr("gpu_workload.shared", "scheduled_nodes.0", shared+"-0"),
				resource.TestCheckResourceAttr("gpu_workload.shared", "resource_name", "nvidia.com/gpu.shared"),
				checkConfigMapKey(t, ns, "device-plugin-config", "gpu_node_pool_policy.shared", regexp.MustCompile(`(?s)timeSlicing:.*replicas: 4`)),
			),
		}},
	})
}

// Drift on a managed node (a label removed by hand) shows in the plan and
// the apply puts it back.
func TestAccNodePoolPolicy_nodeDriftIsRepaired(t *testing.T) {
	ns := acctest.Namespace(t)
	prefix := "drift-" + rand.String(6)
	nodes := acctest.CreateFakeNodes(t, prefix, 2, map[string]int64{"nvidia.com/gpu": 8}, nil)
	// An accelerator no other test's workload asks for: once labelled, these
	// nodes are real V100 nodes, and a parallel test's generic H100 pod
	// landed on them when they were H100s.
	c := poolCase{cloud: "generic", accelerator: "v100-32gb", gpusPerNode: 8}
	config := poolConfig(t, ns, prefix, c, "gpu_node_pool_policy.p.node_labels", 1)
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config},
			{
				PreConfig:          func() { removeNodeLabel(t, nodes[1], "gpuform.io/test-run") },
				Config:             config,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("gpu_node_pool_policy.p", plancheck.ResourceActionUpdate),
				}},
				Check: checkNodeLabel(t, nodes[1], "gpuform.io/test-run", prefix),
			},
			{
				// A node that joins the pool later is reported, then managed.
				PreConfig: func() {
					acctest.CreateFakeNodes(t, prefix+"-late", 1, map[string]int64{"nvidia.com/gpu": 8}, map[string]string{acctest.FakeNodeLabel: prefix})
				},
				Config:             config,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				Config: config,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("gpu_node_pool_policy.p", "managed_nodes.#", "3"),
					checkNodeLabel(t, prefix+"-late-0", "gpuform.io/test-run", prefix),
				),
			},
		},
	})
}

// The capacity data source reports what the nodes advertise, and what
// workloads request once applied.
func TestAccClusterCapacity_reportsNodesAndRequests(t *testing.T) {
	ns := acctest.Namespace(t)
	prefix := "cap-" + rand.String(6)
	// An instance type groups the plain nodes into one pool before the
	// policy labels them.
	acctest.CreateFakeNodes(t, prefix, 2, map[string]int64{"nvidia.com/gpu": 8},
		map[string]string{"node.kubernetes.io/instance-type": "test-" + prefix})
	capacity := fmt.Sprintf(`
data "gpu_cluster_capacity" "test" {
  selector   = "%s=%s"
  depends_on = [gpu_workload.w]
}
`, acctest.FakeNodeLabel, prefix)
	c := poolCase{cloud: "generic", accelerator: "h100-80gb", gpusPerNode: 8}
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: acctest.ProviderBlock(t) + fmt.Sprintf(`
data "gpu_cluster_capacity" "test" {
  selector = "%s=%s"
}
`, acctest.FakeNodeLabel, prefix),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("data.gpu_cluster_capacity.test", "pools.#", "1"),
					resource.TestCheckResourceAttr("data.gpu_cluster_capacity.test", "pools.0.nodes.#", "2"),
					resource.TestCheckResourceAttr("data.gpu_cluster_capacity.test", "pools.0.resources.0.name", "nvidia.com/gpu"),
					resource.TestCheckResourceAttr("data.gpu_cluster_capacity.test", "pools.0.resources.0.capacity", "16"),
					resource.TestCheckResourceAttr("data.gpu_cluster_capacity.test", "pools.0.resources.0.requested", "0"),
				),
			},
			{
				Config: poolConfig(t, ns, prefix, c, "null", 3) + capacity,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("data.gpu_cluster_capacity.test", "pools.0.accelerator", "h100-80gb"),
					resource.TestCheckResourceAttr("data.gpu_cluster_capacity.test", "pools.0.resources.0.requested", "3"),
					resource.TestCheckResourceAttr("data.gpu_cluster_capacity.test", "pools.0.resources.0.free", "13"),
				),
			},
		},
	})
}

func shapeAttribute(cloud string) string {
	switch cloud {
	case "gke", "aks", "eks":
		return cloud
	case "eks-auto", "karpenter":
		return "karpenter_node_pool"
	default:
		return "node_labels"
	}
}

// shapeValue checks terraform_data.node_pool.output: the shape as the
// cloud's node-pool resource would receive it.
func shapeValue(attribute, key string, check knownvalue.Check) statecheck.StateCheck {
	p := tfjsonpath.New("output").AtMapKey(attribute)
	if key != "" {
		p = p.AtMapKey(key)
	}
	return statecheck.ExpectKnownValue("terraform_data.node_pool", p, check)
}

// checkNodesRestored: after destroy the nodes carry exactly the labels and
// taints they had before the policy.
func checkNodesRestored(t *testing.T, before map[string]acctest.NodeSnapshot) resource.TestCheckFunc {
	return func(*terraform.State) error {
		after := acctest.SnapshotNodes(t, slices.Collect(maps.Keys(before)))
		for name, b := range before {
			a := after[name]
			if !maps.Equal(a.Labels, b.Labels) {
				return fmt.Errorf("node %s labels after destroy %v, before %v", name, a.Labels, b.Labels)
			}
			if !reflect.DeepEqual(a.Taints, b.Taints) {
				return fmt.Errorf("node %s taints after destroy %v, before %v", name, a.Taints, b.Taints)
			}
		}
		return nil
	}
}

func removeNodeLabel(t *testing.T, node, label string) {
	t.Helper()
	updateTestNode(t, node, "kubectl-label", func(n *corev1.Node) { delete(n.Labels, label) })
}

// updateTestNode changes a node as a person with kubectl would (get,
// change, update under the given field manager), again on a conflict with
// kwok's status updates.
func updateTestNode(t *testing.T, node, manager string, change func(*corev1.Node)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	nodes := acctest.Client(t).CoreV1().Nodes()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n, err := nodes.Get(ctx, node, metav1.GetOptions{})
		if err != nil {
			return err
		}
		change(n)
		_, err = nodes.Update(ctx, n, metav1.UpdateOptions{FieldManager: manager})
		return err
	})
	if err != nil {
		t.Fatalf("updating node %s as %s: %v", node, manager, err)
	}
}

func checkNodeLabel(t *testing.T, node, label, want string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		n, err := acctest.Client(t).CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if got := n.Labels[label]; got != want {
			return fmt.Errorf("node %s label %s = %q, want %q", node, label, got, want)
		}
		return nil
	}
}

// checkConfigMapKey checks the ConfigMap entry named by the policy's
// device_plugin_config_name.
func checkConfigMapKey(t *testing.T, ns, name, policy string, want *regexp.Regexp) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[policy]
		if !ok {
			return fmt.Errorf("%s not in state", policy)
		}
		key := rs.Primary.Attributes["device_plugin_config_name"]
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cm, err := acctest.Client(t).CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if !want.MatchString(cm.Data[key]) {
			return fmt.Errorf("ConfigMap %s/%s key %q = %q, want %s", ns, name, key, cm.Data[key], want)
		}
		return nil
	}
}

// Asking a pool for what it cannot give fails the plan, with no cluster.
func TestAccNodePoolPolicy_workloadMustFitPool(t *testing.T) {
	clearClusterEnv(t)
	cases := map[string]struct {
		pool, gpu string
		want      string
	}{
		"another accelerator": {
			pool: `accelerator = "l4"` + "\n  gpus_per_node = 4", gpu: "count = 1\n    accelerator = \"a100-40gb\"",
			want: `(?s)Accelerator differs from the node pool.*accelerator = "a100-40gb".*Allowed: accelerator = "l4"`,
		},
		"more GPUs than a node has": {
			pool: `accelerator = "l4"` + "\n  gpus_per_node = 4", gpu: "count = 8",
			want: `(?s)More GPUs than a node of the pool has.*count = 8.*has 4 GPUs per node`,
		},
		"several GPUs from a time-sliced pool": {
			pool: "accelerator = \"t4\"\n  gpus_per_node = 1\n  sharing = \"time-slicing\"\n  replicas = 4", gpu: "count = 2",
			want: `(?s)Shared GPUs come one slot at a time.*count = 2.*shares each GPU among 4`,
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config: fmt.Sprintf(`
resource "gpu_node_pool_policy" "p" {
  name  = "pool"
  cloud = "generic"
  %s
}

resource "gpu_workload" "w" {
  name      = "w"
  namespace = "default"
  node_pool = gpu_node_pool_policy.p.ref
  image     = "registry.invalid/cuda:12"
  gpu {
    %s
  }
}
`, c.pool, c.gpu),
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(c.want),
				}},
			})
		})
	}
}
