package provider

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
)

// Issue #30 on the real Kueue: a queue's flavors select exactly their pools.
// A plain Job sent to the queue (no selector, no toleration: what a chart or
// a hand-written manifest sends) is admitted to a flavor and must land on
// that flavor's pool; gpu_workloads of every pool of a mixed queue are
// admitted and land on their own pool.

// fixtureFlavorPool is a pool of the test: one node cloned from a fixture
// pool's first node: the labels and taints the cloud really puts there, the
// cloud's pool-name label set to the test's pool name, and a taint of the
// test's own so no other test's work lands there (the pool policy lists
// it, and the flavor's tolerations carry it to admitted pods).
type fixtureFlavorPool struct {
	name   string // the policy's name: the cloud's node pool name
	prefix string // the nodes' name prefix
}

func cloneFixturePool(t *testing.T, fixture, poolLabel, name string) fixtureFlavorPool {
	t.Helper()
	var src *corev1.Node
	for _, n := range rendertest.LoadFixtureNodes(t) {
		if n.Labels["fixtures.gpuform.io/pool"] == fixture {
			src = &n
			break
		}
	}
	if src == nil {
		t.Fatalf("no fixture node of pool %s", fixture)
	}
	prefix := "kf-" + name
	labels := maps.Clone(src.Labels)
	for _, k := range []string{"kubernetes.io/hostname", "fixtures.gpuform.io/pool", "fixtures.gpuform.io/cloud"} {
		delete(labels, k)
	}
	labels[poolLabel] = name
	if _, legacy := labels["agentpool"]; legacy {
		labels["agentpool"] = name // AKS's older label carries the same name
	}
	resources := map[string]int64{}
	for res, q := range src.Status.Allocatable {
		if strings.Contains(string(res), "/") {
			resources[string(res)] = q.Value()
		}
	}
	taints := append(src.Spec.Taints, corev1.Taint{Key: acctest.FakeNodeLabel, Value: prefix, Effect: corev1.TaintEffectNoSchedule})
	acctest.CreateFakeNodes(t, prefix, 1, resources, labels, taints...)
	return fixtureFlavorPool{name: name, prefix: prefix}
}

// taintHCL is the test taint for the pool policy.
func (p fixtureFlavorPool) taintHCL() string {
	return fmt.Sprintf(`taints = [{ key = %q, value = %q, effect = "NoSchedule" }]`, acctest.FakeNodeLabel, p.prefix)
}

// plainJob is a one-unit Job of resource in the LocalQueue, with no node
// selector and no toleration, running for a while so it holds its quota.
func plainJob(t *testing.T, ns, name, localQueue, res string) *batchv1.Job {
	t.Helper()
	one := resource.MustParse("1")
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"kueue.x-k8s.io/queue-name": localQueue}},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"plain-job": name}, Annotations: map[string]string{runFor: "2m"}},
			Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{
				Name: "main", Image: "registry.invalid/plain:1",
				Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceName(res): one}},
			}}},
		}},
	}
	created, err := acctest.Client(t).BatchV1().Jobs(ns).Create(context.Background(), job, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating Job %s: %v", name, err)
	}
	return created
}

// admittedFlavor waits until Kueue admits the Job and returns the flavor it
// took for res.
func admittedFlavor(t *testing.T, job *batchv1.Job, res string) string {
	t.Helper()
	var flavor string
	err := wait.PollUntilContextTimeout(context.Background(), 250*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		list, err := dynamicClient(t).Resource(kueueResource("workloads")).Namespace(job.Namespace).List(ctx,
			metav1.ListOptions{LabelSelector: "kueue.x-k8s.io/job-uid=" + string(job.UID)})
		if err != nil || len(list.Items) == 0 {
			return false, err
		}
		assignments, _, _ := unstructured.NestedSlice(list.Items[0].Object, "status", "admission", "podSetAssignments")
		for _, a := range assignments {
			assignment, isMap := a.(map[string]any)
			if !isMap {
				continue
			}
			if f, ok, _ := unstructured.NestedString(assignment, "flavors", res); ok {
				flavor = f
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("Kueue did not admit Job %s: %v", job.Name, err)
	}
	return flavor
}

// nodeOfJob waits until the Job's pod is scheduled and returns its node.
func nodeOfJob(t *testing.T, job *batchv1.Job) *corev1.Node {
	t.Helper()
	cs := acctest.Client(t)
	var node string
	err := wait.PollUntilContextTimeout(context.Background(), 250*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		pods, err := cs.CoreV1().Pods(job.Namespace).List(ctx, metav1.ListOptions{LabelSelector: "plain-job=" + job.Name})
		if err != nil || len(pods.Items) == 0 {
			return false, err
		}
		node = pods.Items[0].Spec.NodeName
		return node != "", nil
	})
	if err != nil {
		t.Fatalf("the pod of Job %s was not scheduled: %v", job.Name, err)
	}
	n, err := cs.CoreV1().Nodes().Get(context.Background(), node, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// deletePlainJobsFirst deletes the namespace's plain Jobs before the
// Terraform destroy (cleanups run last first) and waits for Kueue to drop
// their Workloads, so the queue's destroy finds no running work.
func deletePlainJobsFirst(t *testing.T, ns string) {
	t.Cleanup(func() {
		background := metav1.DeletePropagationBackground
		err := acctest.Client(t).BatchV1().Jobs(ns).DeleteCollection(context.Background(),
			metav1.DeleteOptions{PropagationPolicy: &background}, metav1.ListOptions{LabelSelector: "kueue.x-k8s.io/queue-name"})
		if err != nil {
			t.Errorf("deleting the plain Jobs: %v", err)
		}
		waitNoKueueWorkloads(t, ns)
	})
}

// sendPlainJobs sends one plain Job per expected flavor, in flavor order,
// each after the one before is admitted: with one unit of quota per
// flavor, Kueue gives each Job the next flavor. It checks that each lands
// on a node of the flavor it was admitted to.
func sendPlainJobs(t *testing.T, ns, localQueue string, flavors []plainJobFlavor) {
	t.Helper()
	for i, f := range flavors {
		job := plainJob(t, ns, fmt.Sprintf("plain-%d", i), localQueue, f.resource)
		got := admittedFlavor(t, job, f.resource)
		if got != f.flavor {
			t.Errorf("plain Job %s (%s) was admitted to flavor %q, want %q", job.Name, f.resource, got, f.flavor)
			continue
		}
		node := nodeOfJob(t, job)
		if !f.onPool(node) {
			t.Errorf("plain Job %s, admitted to flavor %q, runs on node %s (labels %v): not that flavor's pool",
				job.Name, got, node.Name, node.Labels)
		}
	}
}

type plainJobFlavor struct {
	flavor, resource string
	onPool           func(*corev1.Node) bool
}

func hasLabel(key, value string) func(*corev1.Node) bool {
	return func(n *corev1.Node) bool { return n.Labels[key] == value }
}

func fixturePoolNode(fixture string) func(*corev1.Node) bool {
	return hasLabel("fixtures.gpuform.io/pool", fixture)
}

// AKS A100 + V100 in one queue, told apart by the agent pool and the VM
// size AKS labels nodes with: no label of the user's.
func TestAccQueue_mixedAKSQueueSelectsEachPool(t *testing.T) {
	acctest.RequireKueue(t)
	ns := acctest.Namespace(t)
	id := rand.String(5)
	a100 := cloneFixturePool(t, "aks-nc24adsa100", "kubernetes.azure.com/agentpool", "kqa"+id)
	v100 := cloneFixturePool(t, "aks-nc6sv3", "kubernetes.azure.com/agentpool", "kqv"+id)
	config := acctest.ProviderBlock(t) + fmt.Sprintf(`
resource "gpu_node_pool_policy" "a100" {
  name          = %[1]q
  cloud         = "aks"
  accelerator   = "a100-80gb"
  gpus_per_node = 1
  %[2]s
}

resource "gpu_node_pool_policy" "v100" {
  name          = %[3]q
  cloud         = "aks"
  accelerator   = "v100-16gb"
  gpus_per_node = 1
  %[4]s
}

resource "gpu_queue" "q" {
  name       = "kq-%[5]s"
  namespaces = [%[6]q]
  flavor {
    node_pool = gpu_node_pool_policy.a100.ref
    gpus      = 1
  }
  flavor {
    node_pool = gpu_node_pool_policy.v100.ref
    gpus      = 1
  }
}
`, a100.name, a100.taintHCL(), v100.name, v100.taintHCL(), id, ns) +
		poolJob("on_a100", "a100", ns) + poolJob("on_v100", "v100", ns)
	tf := newFaultTerraform(t, config)
	deletePlainJobsFirst(t, ns)
	out, err := tf.Apply()
	if err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	if strings.Contains(out, "selects no node") {
		t.Errorf("the apply says a flavor of pools that have nodes selects none:\n%s", out)
	}
	assertPodsOn(t, ns, "app.kubernetes.io/name=on-a100", "^"+a100.prefix+`-\d+$`)
	assertPodsOn(t, ns, "app.kubernetes.io/name=on-v100", "^"+v100.prefix+`-\d+$`)
	waitJobComplete(t, ns, "on-a100", 2*time.Minute)
	waitJobComplete(t, ns, "on-v100", 2*time.Minute)
	sendPlainJobs(t, ns, "kq-"+id, []plainJobFlavor{
		{a100.name, "nvidia.com/gpu", hasLabel("kubernetes.azure.com/agentpool", a100.name)},
		{v100.name, "nvidia.com/gpu", hasLabel("kubernetes.azure.com/agentpool", v100.name)},
	})
	if changes, out := tf.PlanHasChanges(); changes {
		t.Errorf("a refresh plans changes:\n%s", out)
	}
}

// GKE whole A100s and A100s cut into 2g.10gb, both advertised as
// nvidia.com/gpu: the whole pool's flavor must not select the MIG pool's
// nodes (they carry the same gke-accelerator).
func TestAccQueue_gkeWholeAndMIGFlavorsSelectTheirPools(t *testing.T) {
	acctest.RequireKueue(t)
	ns := acctest.Namespace(t)
	id := rand.String(5)
	whole := cloneFixturePool(t, "gke-a100", "cloud.google.com/gke-nodepool", "kq-"+id+"-a100")
	mig := cloneFixturePool(t, "gke-a100-mig", "cloud.google.com/gke-nodepool", "kq-"+id+"-mig")
	config := acctest.ProviderBlock(t) + fmt.Sprintf(`
resource "gpu_node_pool_policy" "whole" {
  name          = %[1]q
  cloud         = "gke"
  accelerator   = "a100-40gb"
  gpus_per_node = 8
  %[2]s
}

resource "gpu_node_pool_policy" "mig" {
  name          = %[3]q
  cloud         = "gke"
  accelerator   = "a100-40gb"
  gpus_per_node = 8
  partition     = "2g.10gb"
  %[4]s
}

resource "gpu_queue" "q" {
  name       = "kq-%[5]s"
  namespaces = [%[6]q]
  flavor {
    node_pool = gpu_node_pool_policy.whole.ref
    gpus      = 1
  }
  flavor {
    node_pool     = gpu_node_pool_policy.mig.ref
    mig_instances = 1
  }
}
`, whole.name, whole.taintHCL(), mig.name, mig.taintHCL(), id, ns)
	tf := newFaultTerraform(t, config)
	deletePlainJobsFirst(t, ns)
	if out, err := tf.Apply(); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	sendPlainJobs(t, ns, "kq-"+id, []plainJobFlavor{
		{whole.name, "nvidia.com/gpu", hasLabel("cloud.google.com/gke-nodepool", whole.name)},
		{mig.name, "nvidia.com/gpu", hasLabel("cloud.google.com/gke-nodepool", mig.name)},
	})
}

// genericPartner is the second pool of a generic queue with an H100 pool:
// its policy body, quota line, fixture pool, resource and flavor name.
type genericPartner struct {
	policy, quota, fixture, resource, flavor string
}

// Generic pools share a queue with no label of the user's: GPU Feature
// Discovery's labels tell them apart. With a time-sliced T4 pool this is the
// queue of issue #30's first finding, which Kueue could never admit. The
// fixture nodes are the pools (the T4 pool's device plugin config entry is
// named after the pool, t4-shared, as on the fixture node). gpu_workloads of
// both pools are admitted and land on their pools, and plain Jobs of each
// flavor's resource land on that flavor's pool.
func TestAccQueue_genericPoolsShareAQueue(t *testing.T) {
	acctest.RequireKueue(t)
	id := rand.String(5)
	for name, partner := range map[string]genericPartner{
		"time-sliced T4": {`name = "t4-shared"
  accelerator   = "t4"
  gpus_per_node = 1
  sharing       = "time-slicing"
  replicas      = 4`, "shared_slots = 2", "generic-t4-timeslice", "nvidia.com/gpu.shared", "t4-shared"},
		"H200": {`name = "kq-` + id + `-h200"
  accelerator   = "h200"
  gpus_per_node = 8`, "gpus = 1", "generic-h200", "nvidia.com/gpu", "kq-" + id + "-h200"},
	} {
		t.Run(name, func(t *testing.T) {
			ns := acctest.Namespace(t)
			queueName := "kq-" + id + "-" + strings.ToLower(partner.fixture[len("generic-"):len("generic-")+2])
			config := acctest.ProviderBlock(t) + fmt.Sprintf(`
resource "gpu_node_pool_policy" "h100" {
  name          = "kq-%[1]s-h100"
  cloud         = "generic"
  accelerator   = "h100-80gb"
  gpus_per_node = 8
}

resource "gpu_node_pool_policy" "other" {
  cloud = "generic"
  %[2]s
}

resource "gpu_queue" "q" {
  name       = %[3]q
  namespaces = [%[4]q]
  flavor {
    node_pool = gpu_node_pool_policy.h100.ref
    gpus      = 1
  }
  flavor {
    node_pool = gpu_node_pool_policy.other.ref
    %[5]s
  }
}
`, id, partner.policy, queueName, ns, partner.quota) + poolJob("on_h100", "h100", ns) + poolJob("on_other", "other", ns)
			tf := newFaultTerraform(t, config)
			deletePlainJobsFirst(t, ns)
			out, err := tf.Apply()
			if err != nil {
				t.Fatalf("apply: %v\n%s", err, out)
			}
			if strings.Contains(out, "doesn't match node affinity") || strings.Contains(out, "is waiting in queue") {
				t.Errorf("a pool's workload was not admitted:\n%s", out)
			}
			assertPodsOn(t, ns, "app.kubernetes.io/name=on-h100", `^generic-h100-\d+$`)
			assertPodsOn(t, ns, "app.kubernetes.io/name=on-other", "^"+partner.fixture+`-\d+$`)
			waitJobComplete(t, ns, "on-h100", 2*time.Minute)
			waitJobComplete(t, ns, "on-other", 2*time.Minute)
			sendPlainJobs(t, ns, queueName, []plainJobFlavor{
				{"kq-" + id + "-h100", "nvidia.com/gpu", fixturePoolNode("generic-h100")},
				{partner.flavor, partner.resource, fixturePoolNode(partner.fixture)},
			})
			if changes, out := tf.PlanHasChanges(); changes {
				t.Errorf("a refresh plans changes:\n%s", out)
			}
		})
	}
}

// poolJob is a one-unit gpu_workload Job on a pool of the test, in its queue.
func poolJob(label, pool, ns string) string {
	return fmt.Sprintf(`
resource "gpu_workload" %[1]q {
  name      = %[2]q
  namespace = %[3]q
  kind      = "job"
  node_pool = gpu_node_pool_policy.%[4]s.ref
  queue     = gpu_queue.q.ref
  image     = "registry.invalid/cuda:12"
  wait_for  = "scheduled"
  gpu {
    count = 1
  }
}
`, label, strings.ReplaceAll(label, "_", "-"), ns, pool)
}

// A GKE pool whose node pool is named otherwise (here: no node at all): the
// apply says the flavor selects no node, instead of leaving admitted work
// Pending without a word.
func TestAccQueue_flavorWithoutNodesIsReported(t *testing.T) {
	acctest.RequireKueue(t)
	ns := acctest.Namespace(t)
	id := rand.String(5)
	config := acctest.ProviderBlock(t) + fmt.Sprintf(`
resource "gpu_node_pool_policy" "p" {
  name          = "kq-%[1]s-elsewhere"
  cloud         = "gke"
  accelerator   = "a100-40gb"
  gpus_per_node = 8
}

resource "gpu_queue" "q" {
  name       = "kq-%[1]s"
  namespaces = [%[2]q]
  flavor {
    node_pool = gpu_node_pool_policy.p.ref
    gpus      = 8
  }
}
`, id, ns)
	tf := newFaultTerraform(t, config)
	out, err := tf.Apply()
	if err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	want := `ResourceFlavor "kq-` + id + `-elsewhere" selects no node`
	if !strings.Contains(out, want) || !strings.Contains(out, "cloud.google.com/gke-nodepool=kq-"+id+"-elsewhere") {
		t.Errorf("the apply does not report the flavor that selects no node (%q):\n%s", want, out)
	}
}
