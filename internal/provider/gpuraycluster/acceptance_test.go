package gpuraycluster_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
)

// Acceptance tests against the real KubeRay operator in the local cluster
// (scripts/localcluster, whose fixture pools the pools below describe).
// They skip, saying why, when the cluster has no KubeRay, unless
// GPU_REQUIRE_KUBERAY=1 (CI) makes that a failure.

var (
	rayClusters = schema.GroupVersionResource{Group: "ray.io", Version: "v1", Resource: "rayclusters"}
	rayJobs     = schema.GroupVersionResource{Group: "ray.io", Version: "v1", Resource: "rayjobs"}
	rayServices = schema.GroupVersionResource{Group: "ray.io", Version: "v1", Resource: "rayservices"}
)

// accPools creates the test's own EKS node groups, one p4d.24xlarge node
// (8 A100 40GB) and two g5.12xlarge nodes (4 A10G each), labelled as the
// local cluster's eks-p4d-0 and eks-g5-0 are (scripts/localcluster/fixtures/eks.yaml)
// plus a label and taint only this test's pools name, and returns those
// pools' HCL and node name prefixes. Tests of other packages run at the same time and use the fixture
// nodes; a whole node of 8 GPUs taken by a Ray group would leave them
// pending, and theirs this test's.
func accPools(t *testing.T) accGroups {
	t.Helper()
	prefix := "ray-" + rand.String(6)
	group := func(fixture, suffix string, nodes int, gpus int64) string {
		name := prefix + "-" + suffix
		labels, taints := fixtureNode(t, fixture)
		// Named like the pool, as EKS names a node group's nodes: the
		// queue's flavor selects them by it.
		labels["eks.amazonaws.com/nodegroup"] = "acc-ray-" + suffix
		taints = append(taints, corev1.Taint{Key: acctest.FakeNodeLabel, Value: name, Effect: corev1.TaintEffectNoSchedule})
		acctest.CreateFakeNodes(t, name, nodes, map[string]int64{"nvidia.com/gpu": gpus}, labels, taints...)
		return name
	}
	p4d, g5 := group("eks-p4d-0", "p4d", 1, 8), group("eks-g5-0", "g5", 2, 4)
	return accGroups{p4d: p4d, g5: g5, hcl: fmt.Sprintf(`
resource "gpu_node_pool_policy" "g5" {
  name          = "acc-ray-g5"
  cloud         = "eks"
  accelerator   = "a10g"
  gpus_per_node = 4
  labels        = { %[1]q = %[2]q }
  taints        = [{ key = %[1]q, value = %[2]q, effect = "NoSchedule" }]
}

resource "gpu_node_pool_policy" "p4d" {
  name          = "acc-ray-p4d"
  cloud         = "eks"
  accelerator   = "a100-40gb"
  gpus_per_node = 8
  labels        = { %[1]q = %[3]q }
  taints        = [{ key = %[1]q, value = %[3]q, effect = "NoSchedule" }]
}
`, acctest.FakeNodeLabel, g5, p4d)}
}

// fixtureNode is the labels and taints of the local cluster's fixture
// node name (scripts/localcluster/fixtures/eks.yaml), without its host
// name and the fixtures' own labels: what a node of its kind carries.
func fixtureNode(t *testing.T, name string) (map[string]string, []corev1.Taint) {
	t.Helper()
	for _, n := range rendertest.LoadFixtureNodes(t, "eks") {
		if n.Name != name {
			continue
		}
		labels := maps.Clone(n.Labels)
		maps.DeleteFunc(labels, func(k, _ string) bool {
			return k == "kubernetes.io/hostname" || strings.HasPrefix(k, "fixtures.gpuform.io/")
		})
		return labels, slices.Clone(n.Spec.Taints)
	}
	t.Fatalf("no fixture node %s", name)
	return nil, nil
}

// accGroups are accPools' node groups: their node name prefixes and the
// pools' HCL.
type accGroups struct{ p4d, g5, hcl string }

// accCluster is a CPU head and two GPU worker groups, g5 pods of 1 A10G
// and p4d pods of 8 A100s.
func accCluster(t *testing.T, pools accGroups, namespace string, g5Replicas int) string {
	return acctest.ProviderBlock(t) + pools.hcl + fmt.Sprintf(`
resource "gpu_ray_cluster" "test" {
  name      = "acc-ray"
  namespace = %q
  cloud     = "eks"
  image     = "rayproject/ray:2.52.0"
  unschedulable_timeout = "2m"
  head {
    cpu    = "500m"
    memory = "1Gi"
  }
  worker_group {
    name      = "small"
    node_pool = gpu_node_pool_policy.g5.ref
    replicas  = %d
    cpu       = "500m"
    memory    = "1Gi"
    gpu {
      count = 1
    }
  }
  worker_group {
    name      = "large"
    node_pool = gpu_node_pool_policy.p4d.ref
    replicas  = 1
    cpu       = "500m"
    memory    = "1Gi"
    gpu {
      count = 8
    }
  }
}
`, namespace, g5Replicas)
}

// (a) and (b): the operator creates the pods, each group on its pool with
// its GPU resource and num-gpus; scaling a group changes its pods, and the
// refresh after each apply is empty (resource.Test checks that).
func TestAccRayCluster_groupsOnTheirPools(t *testing.T) {
	acctest.PreCheck(t)
	acctest.RequireKubeRay(t)
	ns := acctest.Namespace(t)
	pools := accPools(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkNothingLeft(t, ns),
		Steps: []resource.TestStep{
			{
				Config: accCluster(t, pools, ns, 1),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("gpu_ray_cluster.test", "kind", "RayCluster"),
					resource.TestCheckResourceAttr("gpu_ray_cluster.test", "num_gpus.head", "0"),
					resource.TestCheckResourceAttr("gpu_ray_cluster.test", "num_gpus.small", "1"),
					resource.TestCheckResourceAttr("gpu_ray_cluster.test", "num_gpus.large", "8"),
					checkGroupPods(t, ns, "small", 1, pools.g5, "1"),
					checkGroupPods(t, ns, "large", 1, pools.p4d, "8"),
				),
			},
			{
				Config: accCluster(t, pools, ns, 2),
				Check:  checkGroupPods(t, ns, "small", 2, pools.g5, "1"),
			},
		},
	})
}

// checkGroupPods: the group runs want pods, on nodes of the pool (their
// names start with nodePrefix), asking for the GPUs Ray is told of.
func checkGroupPods(t *testing.T, ns, group string, want int, nodePrefix, numGPUs string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		pods := groupPods(t, ns, group)
		if len(pods) != want {
			return fmt.Errorf("worker group %s has %d pods, want %d", group, len(pods), want)
		}
		for _, p := range pods {
			if !strings.HasPrefix(p.Spec.NodeName, nodePrefix) {
				return fmt.Errorf("pod %s runs on %q, not on the %s pool", p.Name, p.Spec.NodeName, nodePrefix)
			}
			limit := p.Spec.Containers[0].Resources.Limits["nvidia.com/gpu"]
			if limit.String() != numGPUs {
				return fmt.Errorf("pod %s has nvidia.com/gpu %s, want %s", p.Name, limit.String(), numGPUs)
			}
		}
		return nil
	}
}

// groupPods are the running pods of a Ray group (KubeRay's ray.io/group).
func groupPods(t *testing.T, ns, group string) []corev1.Pod {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	list, err := acctest.Client(t).CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "ray.io/group=" + group})
	if err != nil {
		t.Fatal(err)
	}
	var out []corev1.Pod
	for _, p := range list.Items {
		if p.DeletionTimestamp == nil {
			out = append(out, p)
		}
	}
	return out
}

// (e): destroy leaves no Ray object and no Ray pod.
func checkNothingLeft(t *testing.T, ns string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		pods, err := acctest.Client(t).CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "ray.io/node-type"})
		if err != nil {
			return err
		}
		if len(pods.Items) > 0 {
			return fmt.Errorf("%d Ray pods left after destroy", len(pods.Items))
		}
		for _, res := range []schema.GroupVersionResource{rayClusters, rayJobs, rayServices} {
			left, err := dynamicClient(t).Resource(res).Namespace(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return err
			}
			if len(left.Items) > 0 {
				return fmt.Errorf("%s %s left after destroy", left.Items[0].GetKind(), left.Items[0].GetName())
			}
		}
		return nil
	}
}

func dynamicClient(t *testing.T) dynamic.Interface {
	dyn, err := dynamic.NewForConfig(acctest.RESTConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	return dyn
}

// (c): a RayJob in a Kueue queue over quota is reported as queued with
// Kueue's reason, and admitted once the quota frees. A RayCluster holds
// the queue's 8 GPUs: it runs until deleted, whereas a RayJob ends (here
// FAILED, with no Ray to submit to) and would free the quota on its own.
func TestAccRayCluster_jobQueuedThenAdmitted(t *testing.T) {
	acctest.PreCheck(t)
	acctest.RequireKubeRay(t)
	acctest.RequireKueue(t)
	ns := acctest.Namespace(t)
	queued := func(name, extra string) string {
		return fmt.Sprintf(`
resource "gpu_ray_cluster" %[1]q {
  name      = %[1]q
  namespace = %[2]q
  cloud     = "eks"
  image     = "rayproject/ray:2.52.0"
  queue     = gpu_queue.q.ref
  wait_for  = "admitted"
  timeouts {
    create = "30s"
  }
  worker_group {
    name      = "train"
    node_pool = gpu_node_pool_policy.p4d.ref
    replicas  = 1
    cpu       = "500m"
    memory    = "1Gi"
    gpu {
      count = 8
    }
  }
  %[3]s
}
`, name, ns, extra)
	}
	holder := queued("holder", "")
	job := queued("second", `job {
    entrypoint = "python train.py"
  }`)
	queue := fmt.Sprintf(`
resource "gpu_queue" "q" {
  name       = "acc-ray-%[1]s"
  namespaces = [%[1]q]
  flavor {
    node_pool = gpu_node_pool_policy.p4d.ref
    gpus      = 8
  }
}
`, ns)
	base := acctest.ProviderBlock(t) + accPools(t).hcl + queue
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkNothingLeft(t, ns),
		Steps: []resource.TestStep{
			{
				Config: base + holder,
				Check:  kueueWorkloadOf(t, ns, "RayCluster", "holder", "Admitted", "True", ""),
			},
			{
				// The job's 8 GPUs exceed what the holder leaves: the apply
				// warns and keeps it, and Kueue says why it waits.
				Config: base + holder + job,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("gpu_ray_cluster.second", "kind", "RayJob"),
					kueueWorkloadOf(t, ns, "RayJob", "second", "QuotaReserved", "False", "insufficient unused quota"),
				),
			},
			{
				Config: base + job,
				Check:  kueueWorkloadOf(t, ns, "RayJob", "second", "Admitted", "True", ""),
			},
		},
	})
}

var kueueWorkloads = schema.GroupVersionResource{Group: "kueue.x-k8s.io", Version: "v1beta2", Resource: "workloads"}

// kueueWorkloadOf checks the condition of the Kueue Workload owned by the
// named Ray object, waiting up to 30 s for it to hold; message is a
// substring of the condition's message ("" for any).
func kueueWorkloadOf(t *testing.T, ns, ownerKind, owner, condition, status, message string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		var last string
		found := func(ctx context.Context) (bool, error) {
			list, err := dynamicClient(t).Resource(kueueWorkloads).Namespace(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return false, err
			}
			for _, w := range list.Items {
				if !ownedBy(w, ownerKind, owner) {
					continue
				}
				conds, _, _ := unstructured.NestedSlice(w.Object, "status", "conditions")
				for _, c := range conds {
					cond, _ := c.(map[string]any)
					if cond["type"] != condition {
						continue
					}
					last = fmt.Sprintf("%v=%v: %v", cond["type"], cond["status"], cond["message"])
					if cond["status"] == status && strings.Contains(fmt.Sprint(cond["message"]), message) {
						return true, nil
					}
				}
			}
			return false, nil
		}
		if err := wait.PollUntilContextTimeout(context.Background(), 250*time.Millisecond, 30*time.Second, true, found); err != nil {
			return fmt.Errorf("the Kueue Workload of %s %s has no %s=%s with %q (last seen: %q): %w",
				ownerKind, owner, condition, status, message, last, err)
		}
		return nil
	}
}

func ownedBy(obj unstructured.Unstructured, kind, name string) bool {
	for _, ref := range obj.GetOwnerReferences() {
		if ref.Kind == kind && ref.Name == name {
			return true
		}
	}
	return false
}

// (d): a MIG worker group (the generic DGX A100 pool cut all-balanced, 1g.5gb
// instances, mixed strategy) and a DRA one (fixtures/dra.yaml's H100s):
// each pod asks for its MIG resource or claims its devices, and Ray is told
// the count either way.
func TestAccRayCluster_migAndDRAGroups(t *testing.T) {
	acctest.PreCheck(t)
	acctest.RequireKubeRay(t)
	ns := acctest.Namespace(t)
	config := acctest.ProviderBlock(t) + fmt.Sprintf(`
resource "gpu_node_pool_policy" "mig" {
  name          = "acc-ray-mig"
  cloud         = "generic"
  accelerator   = "a100-40gb"
  gpus_per_node = 8
  partition     = "all-balanced"
  mig_strategy  = "mixed"
}

resource "gpu_node_pool_policy" "dra" {
  name           = "acc-ray-dra"
  cloud          = "generic"
  accelerator    = "h100-80gb"
  gpus_per_node  = 8
  gpu_allocation = "dra"
}

resource "gpu_ray_cluster" "test" {
  name      = "acc-ray-mig-dra"
  namespace = %q
  cloud     = "generic"
  image     = "rayproject/ray:2.52.0"
  head {
    cpu    = "500m"
    memory = "1Gi"
  }
  worker_group {
    name      = "mig"
    node_pool = gpu_node_pool_policy.mig.ref
    cpu       = "500m"
    memory    = "1Gi"
    gpu {
      count     = 2
      partition = "1g.5gb"
    }
  }
  worker_group {
    name      = "dra"
    node_pool = gpu_node_pool_policy.dra.ref
    cpu       = "500m"
    memory    = "1Gi"
    gpu {
      count = 1
    }
  }
}
`, ns)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		CheckDestroy:             checkNothingLeft(t, ns),
		Steps: []resource.TestStep{{
			Config: config,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("gpu_ray_cluster.test", "num_gpus.mig", "2"),
				resource.TestCheckResourceAttr("gpu_ray_cluster.test", "num_gpus.dra", "1"),
				func(*terraform.State) error {
					for _, p := range groupPods(t, ns, "mig") {
						if q := p.Spec.Containers[0].Resources.Limits["nvidia.com/mig-1g.5gb"]; q.Value() != 2 {
							return fmt.Errorf("MIG pod %s asks for %s nvidia.com/mig-1g.5gb, want 2", p.Name, q.String())
						}
					}
					for _, p := range groupPods(t, ns, "dra") {
						if len(p.Spec.ResourceClaims) == 0 {
							return fmt.Errorf("DRA pod %s claims no devices", p.Name)
						}
					}
					return nil
				},
			),
		}},
	})
}

// (f): a RayCluster written by hand is imported: the import's state plans
// with only the provider's corrections, and the cluster is then managed.
func TestAccRayCluster_importHandWritten(t *testing.T) {
	acctest.PreCheck(t)
	acctest.RequireKubeRay(t)
	ns := acctest.Namespace(t)
	handWritten := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "ray.io/v1", "kind": "RayCluster",
		"metadata": map[string]any{"name": "hand", "namespace": ns},
		"spec": map[string]any{
			"headGroupSpec": map[string]any{"rayStartParams": map[string]any{}, "template": podTemplate("ray-head", nil)},
			"workerGroupSpecs": []any{map[string]any{
				"groupName": "gpu", "replicas": int64(1), "minReplicas": int64(1), "maxReplicas": int64(1),
				"rayStartParams": map[string]any{"num-gpus": "1"},
				"template":       podTemplate("ray-worker", map[string]any{"nvidia.com/gpu": "1"}),
			}},
		},
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := dynamicClient(t).Resource(rayClusters).Namespace(ns).Create(ctx, handWritten, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{{
			Config: acctest.ProviderBlock(t) + fmt.Sprintf(`
resource "gpu_ray_cluster" "hand" {
  name      = "hand"
  namespace = %q
  cloud     = "generic"
  image     = "rayproject/ray:2.52.0"
  worker_group {
    name     = "gpu"
    replicas = 1
    gpu {
      count = 1
    }
  }
}
`, ns),
			ResourceName:       "gpu_ray_cluster.hand",
			ImportState:        true,
			ImportStateId:      ns + "/hand",
			ImportStatePersist: true,
			ImportStateCheck: func(states []*terraform.InstanceState) error {
				if got := states[0].Attributes["worker_group.0.gpu.count"]; got != "1" {
					return fmt.Errorf("imported gpu.count %q, want 1", got)
				}
				return nil
			},
		}},
	})
}

// podTemplate is a hand-written Ray pod template of one container.
func podTemplate(container string, limits map[string]any) map[string]any {
	resources := map[string]any{"requests": map[string]any{"cpu": "500m", "memory": "1Gi"}}
	if limits != nil {
		resources["limits"] = limits
	}
	return map[string]any{"spec": map[string]any{"containers": []any{map[string]any{
		"name": container, "image": "rayproject/ray:2.52.0", "resources": resources,
	}}}}
}
