package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// Distributed jobs on the local cluster's real scheduler, controller
// manager (Job and EndpointSlice controllers) and Kueue (issue #42), on the
// fixture pool eks-p5-tas (scripts/localcluster/fixtures/topology.yaml):
// EKS managed node group gpu-p5-tas, 8 x p5.48xlarge of 8 H100s, of which
// each test takes 4. The queued gang test has a node group of its own
// (freshP5NodeGroup says why).

const p5PoolName = "gpu-p5-tas"

// p5Config is the pool policy of the EKS p5 pool and the given resources.
// The pool has its topology (as in examples/distributed), so that every
// test renders the pool's Kueue flavor alike.
func p5Config(t *testing.T, resources string) string {
	return p5ConfigOn(t, p5PoolName, resources)
}

// p5ConfigOn is p5Config for the p5 node group of that name.
func p5ConfigOn(t *testing.T, nodeGroup, resources string) string {
	return acctest.ProviderBlock(t) + fmt.Sprintf(`
resource "gpu_node_pool_policy" "p5" {
  name          = %q
  cloud         = "eks"
  accelerator   = "h100-80gb"
  gpus_per_node = 8
  topology {}
}
%s`, nodeGroup, resources)
}

// freshP5NodeGroup creates a node group of six p5.48xlarge nodes for one
// test, labelled as the fixture's are: four under one layer-1 network node
// and two under another, so a gang of four fits only under the first. It
// returns the node group's name.
//
// A test whose queue admits a gang by topology uses it rather than the
// fixture pool. Kueue v0.17.0 does not look at a workload it found no room
// for again when pods it does not manage leave the nodes
// (kubernetes-sigs/kueue#8653, fixed in v0.18.5, v0.19.1 and v0.20.0:
// kueuever.RequeueAfterUnmanagedPods): pods an earlier
// test deleted from the fixture nodes a moment before could keep the gang
// pending until something else touches the queue.
func freshP5NodeGroup(t *testing.T) string {
	t.Helper()
	group := "p5-" + rand.String(8)
	resources := map[string]int64{
		"cpu": 192, "nvidia.com/gpu": 8, "vpc.amazonaws.com/efa": 32,
		"hugepages-2Mi": 10256 << 20, "memory": 2 << 40,
	}
	for i, domain := range []struct {
		name  string
		nodes int
	}{{"nn-a", 4}, {"nn-b", 2}} {
		labels := map[string]string{
			"node.kubernetes.io/instance-type": "p5.48xlarge", "beta.kubernetes.io/instance-type": "p5.48xlarge",
			"topology.kubernetes.io/region": "us-east-1", "topology.kubernetes.io/zone": "us-east-1a",
			"eks.amazonaws.com/nodegroup": group, "eks.amazonaws.com/capacityType": "ON_DEMAND",
			"k8s.amazonaws.com/accelerator":         "nvidia-h100",
			p5Layer1Label:                           group + "-" + domain.name,
			"topology.k8s.aws/network-node-layer-2": fmt.Sprintf("%s-%s-2", group, domain.name),
			"topology.k8s.aws/network-node-layer-3": fmt.Sprintf("%s-%s-3", group, domain.name),
		}
		acctest.CreateFakeNodes(t, fmt.Sprintf("%s-%d", group, i), domain.nodes, resources, labels,
			corev1.Taint{Key: "nvidia.com/gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule})
	}
	return group
}

// distributedJobConfig is a 4-node torchrun job of 8 GPUs per pod whose
// pods keep running (kwok completes them after runFor), so their names,
// ranks and endpoints can be read.
func distributedJobConfig(name, ns, image, extra string) string {
	return fmt.Sprintf(`
resource "gpu_workload" "train" {
  name      = %q
  namespace = %q
  kind      = "distributed_job"
  node_pool = gpu_node_pool_policy.p5.ref
  image     = %q
  command   = ["torchrun", "train.py"]
  wait_for  = "scheduled"
  pod_annotations = { %q = "10m" }
  gpu {
    count = 8
  }
  distributed {
    nodes = 4
  }
  %s
}
`, name, ns, image, runFor, extra)
}

// (a) A 4-node job forms: 4 pods of 8 GPUs on p5 nodes, each pod's node
// rank read from its completion index, the master address pod 0's name
// under the headless Service, whose EndpointSlice lists every pod with its
// hostname. (d) An image change re-creates the Job and keeps the Service;
// (e) import takes both back; destroy leaves neither.
func TestAccDistributedJob_formsOnEKSp5(t *testing.T) {
	ns := acctest.Namespace(t)
	job := distributedJobConfig("llama", ns, "registry.invalid/pytorch:24", "")
	tf := newFaultTerraform(t, p5Config(t, job))
	out, err := tf.Apply()
	if err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	if flat := acctest.Flatten(out); !strings.Contains(flat, "may not start together") {
		t.Errorf("no warning that the default scheduler does not gang-schedule:\n%s", out)
	}
	pods := runningPods(t, ns, "app.kubernetes.io/name=llama")
	checkRanks(t, pods, "llama")
	checkEndpoints(t, ns, "llama", pods)
	if changes, out := tf.PlanHasChanges(); changes {
		t.Errorf("the plan after the apply is not empty:\n%s", out)
	}

	svcUID, oldJobUID := serviceUID(t, ns), jobUID(t, ns)
	tf.Write(p5Config(t, strings.Replace(job, "pytorch:24", "pytorch:25", 1)))
	if out, err := tf.Apply(); err != nil {
		t.Fatalf("image change: %v\n%s", err, out)
	} else if !strings.Contains(acctest.Flatten(out), "will be re-created") {
		t.Errorf("the image change did not say the Job is re-created:\n%s", out)
	}
	if got := serviceUID(t, ns); got != svcUID {
		t.Errorf("the image change replaced the Service: UID %s, was %s", got, svcUID)
	}
	if got := jobUID(t, ns); got == oldJobUID {
		t.Error("the image change did not re-create the Job")
	}
	pods = runningPods(t, ns, "app.kubernetes.io/name=llama")
	for _, p := range pods {
		if img := p.Spec.Containers[0].Image; img != "registry.invalid/pytorch:25" {
			t.Errorf("pod %s runs %s after the image change", p.Name, img)
		}
	}
	if changes, out := tf.PlanHasChanges(); changes {
		t.Errorf("the plan after the image change is not empty:\n%s", out)
	}

	// (e) Import takes the Job and its Service back from the spec
	// annotation: the plan after it is empty.
	if out, err := tf.StateRm("gpu_workload.train"); err != nil {
		t.Fatalf("state rm: %v\n%s", err, out)
	}
	if out, err := tf.Import("gpu_workload.train", ns+"/llama"); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	if changes, out := tf.PlanHasChanges(); changes {
		t.Errorf("the plan after import is not empty:\n%s", out)
	}

	if out, err := tf.Destroy(); err != nil {
		t.Fatalf("destroy: %v\n%s", err, out)
	}
	cs := acctest.Client(t)
	if _, err := cs.CoreV1().Services(ns).Get(context.Background(), "llama", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the Service is still there after destroy: %v", err)
	}
	if _, err := cs.BatchV1().Jobs(ns).Get(context.Background(), "llama", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the Job is still there after destroy: %v", err)
	}
}

// (c) In a Kueue queue the Indexed Job is one Kueue Workload of all 4
// pods, admitted together in one layer-1 network domain, and the plan does
// not warn about gangs; an image change re-creates it through the queue.
func TestAccDistributedJob_admittedTogetherInQueue(t *testing.T) {
	acctest.RequireKueue(t)
	ns := acctest.Namespace(t)
	queue := fmt.Sprintf(`
resource "gpu_queue" "p5" {
  name       = "p5-%[1]s"
  namespaces = [%[1]q]
  flavor {
    node_pool = gpu_node_pool_policy.p5.ref
    gpus      = 32
  }
}
`, ns)
	job := distributedJobConfig("gang", ns, "registry.invalid/pytorch:24", `queue = gpu_queue.p5.ref
  topology {
    level = "layer-1"
  }`)
	group := freshP5NodeGroup(t)
	tf := newFaultTerraform(t, p5ConfigOn(t, group, queue+job))
	out, err := tf.Apply()
	if err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	if strings.Contains(acctest.Flatten(out), "may not start together") {
		t.Errorf("a queued distributed job was warned about gangs:\n%s", out)
	}
	assertKueueAdmitted(t, ns, "p5-"+ns)
	list, err := dynamicClient(t).Resource(kueueResource("workloads")).Namespace(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 {
		t.Fatalf("%d Kueue Workloads for the distributed job, want one", len(list.Items))
	}
	podSets, _, _ := unstructured.NestedSlice(list.Items[0].Object, "spec", "podSets")
	if len(podSets) != 1 {
		t.Fatalf("podSets = %v, want one", podSets)
	}
	podSet, _ := podSets[0].(map[string]any)
	if count, _, _ := unstructured.NestedInt64(podSet, "count"); count != 4 {
		t.Errorf("the Kueue Workload admits %d pods together, want 4", count)
	}
	pods := runningPods(t, ns, "app.kubernetes.io/name=gang")
	checkRanks(t, pods, "gang")
	if domains := nodeDomains(t, pods, p5Layer1Label); len(domains) != 1 {
		t.Errorf("the 4 pods are under layer-1 network nodes %v, want one", domains)
	}
	if changes, out := tf.PlanHasChanges(); changes {
		t.Errorf("the plan after Kueue's admission is not empty:\n%s", out)
	}

	// An image change re-creates the Job: the old one's Kueue workload is
	// released before the new one is queued, and the new one is admitted.
	tf.Write(p5ConfigOn(t, group, queue+strings.Replace(job, "pytorch:24", "pytorch:25", 1)))
	if out, err := tf.Apply(); err != nil {
		t.Fatalf("image change of the queued job: %v\n%s", err, out)
	}
	pods = runningPods(t, ns, "app.kubernetes.io/name=gang")
	if img := pods[0].Spec.Containers[0].Image; img != "registry.invalid/pytorch:25" {
		t.Errorf("pod 0 runs %s after the image change", img)
	}
	waitClusterQueueAdmitted(t, "p5-"+ns, 1)
	if changes, out := tf.PlanHasChanges(); changes {
		t.Errorf("the plan after the image change is not empty:\n%s", out)
	}
}

// (f) examples/distributed, the guide's example, applies on the local
// cluster: one Kueue Workload of 4 pods, admitted, ranked and in one
// layer-1 network domain.
func TestAccExamples_distributedApplies(t *testing.T) {
	acctest.RequireKueue(t)
	ns := acctest.Namespace(t)
	tf := newFaultTerraform(t, exampleBody(t, "distributed"))
	vars := fmt.Sprintf(`{"kubeconfig": %q, "namespace": %q}`, acctest.Kubeconfig(t), ns)
	if err := os.WriteFile(filepath.Join(tf.Dir, "terraform.tfvars.json"), []byte(vars), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := tf.Apply(); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	assertKueueAdmitted(t, ns, "training-"+ns)
	pods := scheduledPods(t, ns, "app.kubernetes.io/name=pretrain")
	checkRanks(t, pods, "pretrain")
	if domains := nodeDomains(t, pods, p5Layer1Label); len(domains) != 1 {
		t.Errorf("the example's 4 pods are under layer-1 network nodes %v, want one", domains)
	}
}

// p5Layer1Label is the AWS topology's outermost level on the p5 pool.
const p5Layer1Label = "topology.k8s.aws/network-node-layer-1"

// nodeDomains are the values of a node label over the pods' nodes.
func nodeDomains(t *testing.T, pods []corev1.Pod, label string) map[string]bool {
	t.Helper()
	domains := map[string]bool{}
	for _, p := range pods {
		node, err := acctest.Client(t).CoreV1().Nodes().Get(context.Background(), p.Spec.NodeName, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		domains[node.Labels[label]] = true
	}
	return domains
}

// runningPods waits until the 4 pods of the selector run on p5 nodes, and
// returns them in index order.
func runningPods(t *testing.T, ns, selector string) []corev1.Pod {
	t.Helper()
	return podsOnP5(t, ns, selector, 4, func(p corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
}

// scheduledPods is runningPods for pods that may have finished already
// (the example's pods run for kwok's default time).
func scheduledPods(t *testing.T, ns, selector string) []corev1.Pod {
	t.Helper()
	return podsOnP5(t, ns, selector, 4, func(p corev1.Pod) bool { return p.Spec.NodeName != "" })
}

// podsOnP5 waits until want pods of the selector are as keep says, checks
// that they are on p5 nodes with 8 GPUs each, and returns them in index
// order.
func podsOnP5(t *testing.T, ns, selector string, want int, keep func(corev1.Pod) bool) []corev1.Pod {
	t.Helper()
	cs := acctest.Client(t)
	var pods []corev1.Pod
	err := wait.PollUntilContextTimeout(context.Background(), 250*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		list, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			return false, err
		}
		pods = slices.DeleteFunc(list.Items, func(p corev1.Pod) bool {
			return p.DeletionTimestamp != nil || !keep(p)
		})
		return len(pods) == want, nil
	})
	if err != nil {
		t.Fatalf("%d pods of %s: %v (have %d)", want, selector, err, len(pods))
	}
	slices.SortFunc(pods, func(a, b corev1.Pod) int { return strings.Compare(a.Spec.Hostname, b.Spec.Hostname) })
	for _, p := range pods {
		node, err := cs.CoreV1().Nodes().Get(context.Background(), p.Spec.NodeName, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := node.Labels["node.kubernetes.io/instance-type"]; got != "p5.48xlarge" {
			t.Errorf("pod %s runs on %s (%q), not on a p5.48xlarge", p.Name, p.Spec.NodeName, got)
		}
		gpus := p.Spec.Containers[0].Resources.Limits["nvidia.com/gpu"]
		if gpus.Value() != 8 {
			t.Errorf("pod %s has %s GPUs, want 8", p.Name, gpus.String())
		}
	}
	return pods
}

// checkRanks: pod i is <job>-i under the Service, its node rank comes from
// its completion index i, and every pod names pod 0 as the master.
func checkRanks(t *testing.T, pods []corev1.Pod, job string) {
	t.Helper()
	for i, p := range pods {
		index := p.Annotations[batchv1.JobCompletionIndexAnnotation]
		if index != fmt.Sprint(i) || p.Spec.Hostname != fmt.Sprintf("%s-%d", job, i) || p.Spec.Subdomain != job {
			t.Errorf("pod %s: index %q, hostname %q, subdomain %q; want %d, %s-%d, %s",
				p.Name, index, p.Spec.Hostname, p.Spec.Subdomain, i, job, i, job)
		}
		env := map[string]corev1.EnvVar{}
		for _, e := range p.Spec.Containers[0].Env {
			env[e.Name] = e
		}
		rank := env["PET_NODE_RANK"].ValueFrom
		if rank == nil || rank.FieldRef.FieldPath != "metadata.annotations['"+batchv1.JobCompletionIndexAnnotation+"']" {
			t.Errorf("pod %s: PET_NODE_RANK = %+v, want the completion index", p.Name, env["PET_NODE_RANK"])
		}
		want := map[string]string{"PET_MASTER_ADDR": job + "-0." + job, "PET_NNODES": fmt.Sprint(len(pods)),
			"PET_NPROC_PER_NODE": "8", "PET_MASTER_PORT": "29500"}
		for name, value := range want {
			if env[name].Value != value {
				t.Errorf("pod %s: %s = %q, want %q", p.Name, name, env[name].Value, value)
			}
		}
	}
}

// checkEndpoints waits until the Service's EndpointSlices list every pod,
// by its hostname, with the pods' own addresses (not-ready ones too).
func checkEndpoints(t *testing.T, ns, service string, pods []corev1.Pod) {
	t.Helper()
	want := map[string]string{}
	for _, p := range pods {
		want[p.Spec.Hostname] = p.Name
	}
	cs := acctest.Client(t)
	got := map[string]string{}
	err := wait.PollUntilContextTimeout(context.Background(), 250*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		slices, err := cs.DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=" + service})
		if err != nil {
			return false, err
		}
		clear(got)
		for _, s := range slices.Items {
			for _, e := range s.Endpoints {
				if e.Hostname != nil && e.TargetRef != nil && len(e.Addresses) > 0 {
					got[*e.Hostname] = e.TargetRef.Name
				}
			}
		}
		return fmt.Sprint(got) == fmt.Sprint(want), nil
	})
	if err != nil {
		t.Fatalf("the EndpointSlices of Service %s list %v, want %v: %v", service, got, want, err)
	}
}

// llamaJob is the name of the distributed jobs these tests create.
const llamaJob = "llama"

// serviceUID is the UID of llamaJob's Service, which must be headless and
// owned by nothing.
func serviceUID(t *testing.T, ns string) types.UID {
	t.Helper()
	name := llamaJob
	svc, err := acctest.Client(t).CoreV1().Services(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the Service %s/%s: %v", ns, name, err)
	}
	if svc.Spec.ClusterIP != corev1.ClusterIPNone || !svc.Spec.PublishNotReadyAddresses {
		t.Errorf("the Service is not headless with not-ready addresses: %+v", svc.Spec)
	}
	if len(svc.OwnerReferences) > 0 {
		t.Errorf("the Service is owned by %v: a re-created Job would take it along", svc.OwnerReferences)
	}
	return svc.UID
}

// jobUID is the UID of llamaJob's Job.
func jobUID(t *testing.T, ns string) types.UID {
	t.Helper()
	name := llamaJob
	job, err := acctest.Client(t).BatchV1().Jobs(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the Job %s/%s: %v", ns, name, err)
	}
	return job.UID
}

// A Service of the job's name that someone else created is not taken over
// (server-side apply would merge into it and destroy would delete it), and
// no Job is created.
func TestAccDistributedJob_foreignServiceIsRefused(t *testing.T) {
	ns := acctest.Namespace(t)
	cs := acctest.Client(t)
	_, err := cs.CoreV1().Services(ns).Create(context.Background(), &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "taken"},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}, Selector: map[string]string{"app": "web"}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	job := strings.Replace(distributedJobConfig("taken", ns, "registry.invalid/pytorch:24", ""), "nodes = 4", "nodes = 2", 1)
	tf := newFaultTerraform(t, p5Config(t, job))
	out, err := tf.Apply()
	if err == nil || !strings.Contains(acctest.Flatten(out), "Service "+ns+"/taken exists and was not created by gpu_workload") {
		t.Fatalf("the apply over a foreign Service did not fail as expected: %v\n%s", err, out)
	}
	if _, err := cs.BatchV1().Jobs(ns).Get(context.Background(), "taken", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the Job was created although its Service is someone else's: %v", err)
	}
}
