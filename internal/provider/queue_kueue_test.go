package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/rand"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// The acceptance tests of queues run the real Kueue controller that the
// local cluster starts (scripts/localcluster). Each test has a pool of its
// own, named after the test, whose fake nodes carry exactly the labels and
// taints the pool policy derives, so only that test's queue can place work
// there.

// runFor is the kwok annotation that keeps a Job's pod running that long
// (scripts/localcluster/kwok/kwok.yaml): a running Job holds its quota.
const runFor = "pod-complete.stage.kwok.x-k8s.io/delay"

// queueTestPool is a generic H100 pool of one GPU per node, labelled with the
// test's name, and its nodes.
type queueTestPool struct {
	name   string
	taints []spec.Taint
}

func newQueueTestPool(t *testing.T, nodes int, taints ...spec.Taint) queueTestPool {
	t.Helper()
	acctest.RequireKueue(t)
	name := "kq-" + rand.String(6)
	// A taint of the test's own keeps every other test's generic H100 work
	// off these nodes; the queue's flavor tolerates it for its workloads.
	taints = append(taints, spec.Taint{Key: acctest.FakeNodeLabel, Value: name, Effect: "NoSchedule"})
	p := spec.PoolPolicy{Name: name, Cloud: "generic", Accelerator: "h100-80gb", GPUsPerNode: 1,
		Labels: map[string]string{acctest.FakeNodeLabel: name}, Taints: taints}
	rendered, diags := pool.Render(p)
	if diags.HasError() {
		t.Fatalf("pool.Render: %v", diags)
	}
	labels := map[string]string{}
	for k, v := range rendered.CloudSetLabels {
		labels[k] = v
	}
	for k, v := range rendered.NodeSelector {
		labels[k] = v
	}
	acctest.CreateFakeNodes(t, name, nodes, rendered.ResourcesPerNode, labels, rendered.NodeTaints...)
	return queueTestPool{name: name, taints: taints}
}

// config is the pool policy and a queue of one GPU for namespace ns.
func (p queueTestPool) config(t *testing.T, ns string, queueExtra string) string {
	return acctest.ProviderBlock(t) + p.policy("p") + fmt.Sprintf(`
resource "gpu_queue" "q" {
  name       = %[1]q
  namespaces = [%[2]q]
  %[3]s
  flavor {
    node_pool = gpu_node_pool_policy.p.ref
    gpus      = 1
  }
}
`, p.name, ns, queueExtra)
}

// policy is the test pool's gpu_node_pool_policy, as resource label.
func (p queueTestPool) policy(label string) string {
	return fmt.Sprintf(`
resource "gpu_node_pool_policy" %[1]q {
  name          = %[2]q
  cloud         = "generic"
  accelerator   = "h100-80gb"
  gpus_per_node = 1
  labels        = { %[3]q = %[2]q }
  %[4]s
}
`, label, p.name, acctest.FakeNodeLabel, p.taintsHCL())
}

// pool matches the names of the test pool's nodes.
func (p queueTestPool) pool() string { return "^" + regexp.QuoteMeta(p.name) + `-\d+$` }

func (p queueTestPool) taintsHCL() string {
	if len(p.taints) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("taints = [")
	for _, tn := range p.taints {
		fmt.Fprintf(&b, "{ key = %q, value = %q, effect = %q },", tn.Key, tn.Value, tn.Effect)
	}
	b.WriteString("]")
	return b.String()
}

// queuedWorkloadConfig is a one-GPU workload on the test pool, in the queue.
func queuedWorkloadConfig(label, name, ns, kind, extra string) string {
	return fmt.Sprintf(`
resource "gpu_workload" %q {
  name      = %q
  namespace = %q
  kind      = %q
  node_pool = gpu_node_pool_policy.p.ref
  queue     = gpu_queue.q.ref
  image     = "registry.invalid/cuda:12"
  gpu {
    count = 1
  }
  %s
}
`, label, name, ns, kind, extra)
}

// (a) Two Jobs on a queue with quota for one GPU: the second is reported as
// queued with Kueue's own reason, is admitted when the first completes,
// and its pod lands on the flavor's pool. A refresh of admitted Jobs is
// empty, and a label change applies over Kueue's fields without conflict.
func TestAccQueue_secondJobWaitsForQuota(t *testing.T) {
	ns := acctest.Namespace(t)
	p := newQueueTestPool(t, 2)
	config := func(labels string) string {
		return p.config(t, ns, "") +
			queuedWorkloadConfig("first", "first", ns, "job", `wait_for = "scheduled"
  pod_annotations = { "`+runFor+`" = "20s" }`+labels) +
			queuedWorkloadConfig("second", "second", ns, "job", `depends_on = [gpu_workload.first]
  timeouts {
    create = "5s"
  }`+labels)
	}
	tf := newFaultTerraform(t, config(""))
	out, err := tf.Apply()
	if err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	for _, want := range []string{`is waiting in queue "` + p.name + `"`, "insufficient unused quota for nvidia.com/gpu in flavor " + p.name} {
		if !strings.Contains(out, want) {
			t.Errorf("the apply does not report the queued Job with Kueue's reason (%q):\n%s", want, out)
		}
	}
	if strings.Contains(out, "did not become ready") || strings.Contains(out, "no pod reported a problem") {
		t.Errorf("the queued Job was reported as a failure:\n%s", out)
	}
	waitJobComplete(t, ns, "second", 2*time.Minute)
	assertPodsOn(t, ns, "app.kubernetes.io/name=second", p.pool())
	if changes, out := tf.PlanHasChanges(); changes {
		t.Errorf("a refresh of the admitted Jobs plans changes:\n%s", out)
	}
	tf.Write(config("\n  labels = { team = \"a\" }"))
	if out, err := tf.Apply(); err != nil {
		t.Fatalf("a label change over admitted Jobs: %v\n%s", err, out)
	}
	if changes, out := tf.PlanHasChanges(); changes {
		t.Errorf("the plan after the label change is not empty:\n%s", out)
	}
}

// (b) A Deployment in a queue: Kueue gates its pod until admission, then
// it is scheduled on the pool; (c) a refresh is then empty and an image
// change applies with no server-side apply conflict.
func TestAccQueue_deploymentIsGatedThenAdmitted(t *testing.T) {
	ns := acctest.Namespace(t)
	p := newQueueTestPool(t, 1)
	config := func(image string) string {
		return p.config(t, ns, "") + strings.Replace(queuedWorkloadConfig("d", "server", ns, "deployment", ""),
			"registry.invalid/cuda:12", image, 1)
	}
	tf := newFaultTerraform(t, config("registry.invalid/cuda:12"))
	if out, err := tf.Apply(); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	assertPodsOn(t, ns, "app.kubernetes.io/name=server", p.pool())
	assertKueueAdmitted(t, ns, p.name)
	if changes, out := tf.PlanHasChanges(); changes {
		t.Errorf("a refresh of the admitted Deployment plans changes:\n%s", out)
	}
	tf.Write(config("registry.invalid/cuda:12.1"))
	if out, err := tf.Apply(); err != nil {
		t.Fatalf("image change of the admitted Deployment: %v\n%s", err, out)
	}
	assertPodsOn(t, ns, "app.kubernetes.io/name=server", p.pool())
	if changes, out := tf.PlanHasChanges(); changes {
		t.Errorf("the plan after the image change is not empty:\n%s", out)
	}
}

// (e) A higher-priority Job preempts a lower one holding the quota; the
// lower one's refresh reports the eviction, as such, not as a failure.
func TestAccQueue_preemptionIsReported(t *testing.T) {
	ns := acctest.Namespace(t)
	p := newQueueTestPool(t, 1)
	low, high := priorityClass(t, p.name+"-low", 10), priorityClass(t, p.name+"-high", 1000)
	base := p.config(t, ns, "preemption {\n    within_cluster_queue = \"LowerPriority\"\n  }") +
		queuedWorkloadConfig("low", "low", ns, "job", `wait_for = "scheduled"
  priority_class_name = "`+low+`"
  pod_annotations = { "`+runFor+`" = "5m" }`)
	tf := newFaultTerraform(t, base)
	if out, err := tf.Apply(); err != nil {
		t.Fatalf("apply of the low-priority Job: %v\n%s", err, out)
	}
	// wait_for = "admitted" returns once Kueue has made room by preempting.
	tf.Write(base + queuedWorkloadConfig("high", "high", ns, "job", `wait_for = "admitted"
  depends_on = [gpu_workload.low]
  priority_class_name = "`+high+`"
  pod_annotations = { "`+runFor+`" = "5m" }`))
	if out, err := tf.Apply(); err != nil {
		t.Fatalf("apply of the high-priority Job: %v\n%s", err, out)
	}
	_, out := tf.PlanHasChanges()
	if !strings.Contains(out, "Kueue evicted Job "+ns+"/low") || !strings.Contains(out, "Preempted") {
		t.Errorf("the refresh does not report the low-priority Job's preemption:\n%s", out)
	}
}

// (f) Destroying a queue that still runs work is refused with the work
// named, and deletes nothing; once the work is gone it deletes every object.
func TestAccQueue_destroyWithAdmittedWork(t *testing.T) {
	ns := acctest.Namespace(t)
	p := newQueueTestPool(t, 1)
	tf := acctest.NewTerraform(t, testAccProtoV6ProviderFactories["gpu"], p.config(t, ns, ""))
	if out, err := tf.Apply(); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	cs := acctest.Client(t)
	ctx := context.Background()
	outside := outsideDeployment(p.name)
	if _, err := cs.AppsV1().Deployments(ns).Create(ctx, outside, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	assertKueueAdmitted(t, ns, p.name)
	out, err := tf.Destroy()
	if err == nil || !strings.Contains(out, "The queue still runs work") || !strings.Contains(out, ns+"/") {
		t.Fatalf("destroy with admitted work: err %v, output:\n%s", err, out)
	}
	if !kueueObjectExists(t, "clusterqueues", "", p.name) || !kueueObjectExists(t, "localqueues", ns, p.name) {
		t.Fatal("the refused destroy deleted the queue")
	}
	if err := cs.AppsV1().Deployments(ns).Delete(ctx, outside.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitNoKueueWorkloads(t, ns)
	if out, err := tf.Destroy(); err != nil {
		t.Fatalf("destroy after the work is gone: %v\n%s", err, out)
	}
	for _, o := range [][3]string{{"clusterqueues", "", p.name}, {"localqueues", ns, p.name}, {"resourceflavors", "", p.name}} {
		if kueueObjectExists(t, o[0], o[1], o[2]) {
			t.Errorf("%s %s/%s is left behind", o[0], o[1], o[2])
		}
	}
}

// outsideDeployment is a one-GPU Deployment written by hand, queued in the
// test's LocalQueue: work the provider does not own.
func outsideDeployment(queueName string) *appsv1.Deployment {
	labels := map[string]string{"app": "outside"}
	one := int32(1)
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "outside", Labels: map[string]string{"kueue.x-k8s.io/queue-name": queueName}},
		Spec: appsv1.DeploymentSpec{
			Replicas: &one,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.invalid/cuda:12",
					Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{"nvidia.com/gpu": *resourceQuantity("1")}}}}},
			},
		},
	}
}

// gpu_queue_usage reports, per flavor, the quota and what admitted work
// uses, read from Kueue's status.
func TestAccQueue_usageReportsAdmittedWork(t *testing.T) {
	ns := acctest.Namespace(t)
	p := newQueueTestPool(t, 1)
	config := p.config(t, ns, "") + queuedWorkloadConfig("d", "server", ns, "deployment", "")
	usage := config + `
data "gpu_queue_usage" "u" {
  name       = gpu_queue.q.name
  depends_on = [gpu_workload.d]
}
`
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config},
			{
				// Kueue publishes a ClusterQueue's counts in batches (a second
				// after the change, pkg/constants UpdatesBatchPeriod), which a
				// rollout on kwok can beat: the data source reports what Kueue
				// published, so the test waits for it.
				PreConfig: func() { waitClusterQueueAdmitted(t, p.name, 1) },
				Config:    usage,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("data.gpu_queue_usage.u", "queues.#", "1"),
					resource.TestCheckResourceAttr("data.gpu_queue_usage.u", "queues.0.active", "true"),
					resource.TestCheckResourceAttr("data.gpu_queue_usage.u", "queues.0.admitted_workloads", "1"),
					resource.TestCheckResourceAttr("data.gpu_queue_usage.u", "queues.0.resources.0.flavor", p.name),
					resource.TestCheckResourceAttr("data.gpu_queue_usage.u", "queues.0.resources.0.resource", "nvidia.com/gpu"),
					resource.TestCheckResourceAttr("data.gpu_queue_usage.u", "queues.0.resources.0.quota", "1"),
					resource.TestCheckResourceAttr("data.gpu_queue_usage.u", "queues.0.resources.0.used", "1"),
				),
			},
		},
	})
}

// A workload sent to a LocalQueue that does not exist fails the apply
// before anything is created: Kueue would never admit it.
func TestAccQueue_missingLocalQueueIsAnError(t *testing.T) {
	acctest.RequireKueue(t)
	ns := acctest.Namespace(t)
	config := acctest.ProviderBlock(t) + workloadConfig("j", "orphan", ns, "job",
		landingCase{cloud: "generic", accelerator: "h100-80gb", count: 1, extra: `queue = "nobody"`})
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:      config,
			ExpectError: regexp.MustCompile(`(?s)No such queue.*LocalQueue "nobody" does not exist`),
		}},
		CheckDestroy: func(*terraform.State) error {
			if _, err := acctest.Client(t).BatchV1().Jobs(ns).Get(context.Background(), "orphan", metav1.GetOptions{}); err == nil {
				return fmt.Errorf("the Job was created although its queue does not exist")
			}
			return nil
		},
	})
}

// At admission Kueue writes the flavor's node selector and tolerations into
// a Job's pod template with an update of its own. Here the workload does not
// name the pool (a generic H100 Job) and the pool has a taint of its own, so
// Kueue adds a toleration and a node selector entry: the refresh shows no
// drift, and a change applies without taking them back (an admitted Job's
// template cannot change) and without a conflict.
func TestAccQueue_kueueAdditionsAreNotDrift(t *testing.T) {
	ns := acctest.Namespace(t)
	p := newQueueTestPool(t, 1, spec.Taint{Key: "gpuform.io/team", Value: "research", Effect: "NoSchedule"})
	job := func(labels string) string {
		return fmt.Sprintf(`
resource "gpu_workload" "j" {
  name      = "admitted"
  namespace = %q
  kind      = "job"
  cloud     = "generic"
  queue     = gpu_queue.q.ref
  image     = "registry.invalid/cuda:12"
  wait_for  = "scheduled"
  pod_annotations = { %q = "5m" }
  %s
  gpu {
    count       = 1
    accelerator = "h100-80gb"
  }
}
`, ns, runFor, labels)
	}
	tf := newFaultTerraform(t, p.config(t, ns, "")+job(""))
	if out, err := tf.Apply(); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	assertPodsOn(t, ns, "app.kubernetes.io/name=admitted", p.pool())
	live, err := acctest.Client(t).BatchV1().Jobs(ns).Get(context.Background(), "admitted", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(live.Spec.Template.Spec.Tolerations, func(tl corev1.Toleration) bool { return tl.Key == "gpuform.io/team" }) ||
		live.Spec.Template.Spec.NodeSelector[acctest.FakeNodeLabel] != p.name {
		t.Fatalf("Kueue did not add the flavor's toleration and node selector: %+v", live.Spec.Template.Spec)
	}
	if changes, out := tf.PlanHasChanges(); changes {
		t.Errorf("Kueue's additions show as drift:\n%s", out)
	}
	tf.Write(p.config(t, ns, "") + job(`labels = { team = "research" }`))
	if out, err := tf.Apply(); err != nil {
		t.Fatalf("a change over Kueue's additions: %v\n%s", err, out)
	}
	live, err = acctest.Client(t).BatchV1().Jobs(ns).Get(context.Background(), "admitted", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if live.Labels["team"] != "research" || !slices.ContainsFunc(live.Spec.Template.Spec.Tolerations, func(tl corev1.Toleration) bool { return tl.Key == "gpuform.io/team" }) {
		t.Errorf("the change did not apply, or took Kueue's toleration back: labels %v, tolerations %v", live.Labels, live.Spec.Template.Spec.Tolerations)
	}
	if changes, out := tf.PlanHasChanges(); changes {
		t.Errorf("the plan after the change is not empty:\n%s", out)
	}
}

// The queue part of `make demo` (examples/queues) runs for real: team A's
// second Job is queued behind its first and runs once it is done, on the
// A100 pool; team B's runs from its own quota. (terraform-exec: the example
// uses for_each, which terraform-plugin-testing's state checks cannot read.)
func TestAccExamples_queuesApply(t *testing.T) {
	acctest.RequireKueue(t)
	teamA, teamB := acctest.Namespace(t), acctest.Namespace(t)
	src, err := os.ReadFile(filepath.Join(acctest.RepoRoot(t), "examples", "queues", "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	body := regexp.MustCompile(`(?s)^.*?terraform \{.*?\n\}\n`).ReplaceAllString(string(src), "")
	tf := newFaultTerraform(t, body)
	vars := fmt.Sprintf(`{"kubeconfig": %q, "teams": [%q, %q], "run_for": "15s"}`, acctest.Kubeconfig(t), teamA, teamB)
	if err := os.WriteFile(filepath.Join(tf.Dir, "terraform.tfvars.json"), []byte(vars), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := tf.Apply()
	if err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	if !strings.Contains(out, "Job "+teamA+"/train-2 is waiting in queue") {
		t.Errorf("train-2 was not reported as queued:\n%s", out)
	}
	waitJobComplete(t, teamA, "train-2", 2*time.Minute)
	assertPodsOn(t, teamA, "app.kubernetes.io/name=train-2", `^gke-a100-\d$`)
	waitJobComplete(t, teamB, "eval", time.Minute)
}

// A gpu_queue is imported by its ClusterQueue's name with every attribute
// back, and a quota changed outside Terraform shows in the plan and is
// repaired by the next apply.
func TestAccQueue_importAndDriftRepair(t *testing.T) {
	ns := acctest.Namespace(t)
	p := newQueueTestPool(t, 1)
	config := p.config(t, ns, "cohort = \"imports\"")
	cq := dynamicClient(t).Resource(kueueResource("clusterqueues"))
	quota := func() string {
		live, err := cq.Get(context.Background(), p.name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var typed kueuev1beta2.ClusterQueue
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(live.Object, &typed); err != nil {
			t.Fatal(err)
		}
		q := typed.Spec.ResourceGroups[0].Flavors[0].Resources[0].NominalQuota
		return q.String()
	}
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: config},
			{
				ResourceName:            "gpu_queue.q",
				ImportState:             true,
				ImportStateId:           p.name,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"timeouts"},
				Config:                  config,
			},
			{
				PreConfig: func() {
					patch := `[{"op": "replace", "path": "/spec/resourceGroups/0/flavors/0/resources/0/nominalQuota", "value": "5"}]`
					if _, err := cq.Patch(context.Background(), p.name, k8stypes.JSONPatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("gpu_queue.q", plancheck.ResourceActionUpdate),
				}},
				Check: func(*terraform.State) error {
					if q := quota(); q != "1" {
						return fmt.Errorf("the apply did not repair the quota: %s", q)
					}
					return nil
				},
			},
		},
	})
}

// A StatefulSet in a queue is admitted by Kueue as one Workload for all its
// replicas, and its pods land on the pool.
func TestAccQueue_statefulSetIsAdmitted(t *testing.T) {
	ns := acctest.Namespace(t)
	p := newQueueTestPool(t, 2)
	config := strings.Replace(p.config(t, ns, ""), "gpus      = 1", "gpus      = 2", 1) +
		queuedWorkloadConfig("s", "shards", ns, "statefulset", "replicas = 2")
	tf := newFaultTerraform(t, config)
	if out, err := tf.Apply(); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	assertPodsOn(t, ns, "app.kubernetes.io/name=shards", p.pool())
	assertKueueAdmitted(t, ns, p.name)
	if changes, out := tf.PlanHasChanges(); changes {
		t.Errorf("a refresh of the admitted StatefulSet plans changes:\n%s", out)
	}
}
