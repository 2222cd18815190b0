package provider

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/yaml"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// The clouds' GPU networks from the pool (issue #42,
// docs/design/gpu-networks.md) on the local cluster's network pools
// (scripts/localcluster/fixtures/gpunetwork.yaml and topology.yaml's
// eks-p5-tas): a multi-node Job on the pool gets the network without
// writing it, the API server and the Job controller accept the pods, the
// real scheduler places them on the pool's nodes, whose advertised NICs and
// huge pages they consume, and a refresh plans nothing.

// networkJobConfig is a pool and a Job of pods x 8 GPUs on it.
func networkJobConfig(t *testing.T, ns, name, pool string, pods int) string {
	return acctest.ProviderBlock(t) + pool + fmt.Sprintf(`
resource "gpu_workload" %[1]q {
  name      = %[1]q
  namespace = %[2]q
  kind      = "job"
  node_pool = gpu_node_pool_policy.net.ref
  image     = "registry.invalid/pytorch:24"
  gpu {
    count = 8
  }
  job {
    parallelism = %[3]d
    completions = %[3]d
  }
  wait_for        = "scheduled"
  pod_annotations = { %[4]q = "10m" }
}
`, name, ns, pods, runFor)
}

// networkPods waits until want pods of the workload are scheduled and
// returns them with their nodes.
func networkPods(t *testing.T, ns, name string, want int) ([]corev1.Pod, map[string]*corev1.Node) {
	t.Helper()
	cs := acctest.Client(t)
	var pods []corev1.Pod
	nodes := map[string]*corev1.Node{}
	err := wait.PollUntilContextTimeout(context.Background(), 250*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		list, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=" + name})
		if err != nil {
			return false, err
		}
		pods = slices.DeleteFunc(list.Items, func(p corev1.Pod) bool { return p.Spec.NodeName == "" })
		return len(pods) == want, nil
	})
	if err != nil {
		t.Fatalf("%d pods of %s were not scheduled: %v", want, name, err)
	}
	for _, p := range pods {
		node, err := cs.CoreV1().Nodes().Get(context.Background(), p.Spec.NodeName, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("node %s: %v", p.Spec.NodeName, err)
		}
		nodes[p.Name] = node
	}
	return pods, nodes
}

// checkRequest: the GPU container requests and limits want of resource.
func checkRequest(t *testing.T, p corev1.Pod, name corev1.ResourceName, want string) {
	t.Helper()
	c := p.Spec.Containers[0]
	q := resource.MustParse(want)
	req, lim := c.Resources.Requests[name], c.Resources.Limits[name]
	if req.Cmp(q) != 0 || lim.Cmp(q) != 0 {
		t.Errorf("pod %s: %s requests %s limits %s, want %s", p.Name, name, req.String(), lim.String(), want)
	}
}

// applyNetworkJob applies the configuration, checks the refresh plans
// nothing and returns the scheduled pods.
func applyNetworkJob(t *testing.T, config, ns, name string, pods int) ([]corev1.Pod, map[string]*corev1.Node) {
	t.Helper()
	tf := newFaultTerraform(t, config)
	out, err := tf.Apply()
	if err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	if strings.Contains(acctest.Flatten(out), "do not advertise") {
		t.Errorf("the apply on a pool whose nodes advertise the network warned that they do not:\n%s", out)
	}
	list, nodes := networkPods(t, ns, name, pods)
	if changes, out := tf.PlanHasChanges(); changes {
		t.Errorf("the refresh of the Job with the GPU network plans changes:\n%s", out)
	}
	dryRunRenderedPod(t, tf, ns, name)
	return list, nodes
}

// dryRunRenderedPod creates the pod of the workload's rendered Job (its
// manifests attribute, as a GitOps user would commit it) in a strict
// server-side dry run: the API server validates the pod itself (native
// sidecar, huge pages and extended resources with requests equal to
// limits, annotations) and rejects any field it does not know.
func dryRunRenderedPod(t *testing.T, tf *acctest.Terraform, ns, name string) {
	t.Helper()
	var manifest string
	for _, r := range tf.State() {
		if r.Address == "gpu_workload."+name {
			if list, ok := r.Values["manifests"].([]any); ok && len(list) > 0 {
				manifest, _ = list[len(list)-1].(string)
			}
		}
	}
	var job batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(manifest), &job); err != nil || job.Kind != "Job" {
		t.Fatalf("the rendered manifest of %s is not a Job (%v):\n%s", name, err, manifest)
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{GenerateName: name + "-dry-run-", Namespace: ns,
		Labels: job.Spec.Template.Labels, Annotations: job.Spec.Template.Annotations}, Spec: job.Spec.Template.Spec}
	_, err := acctest.Client(t).CoreV1().Pods(ns).Create(context.Background(), pod,
		metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"})
	if err != nil {
		t.Errorf("the rendered pod of %s fails a strict server-side dry run: %v", name, err)
	}
}

// EKS p5: 4 pods, each with 8 GPUs, 32 EFA devices and huge pages, on
// p5.48xlarge nodes of the node group, one pod per node.
func TestAccGPUNetwork_eksP5EFA(t *testing.T) {
	ns := acctest.Namespace(t)
	pool := netPool("gpu-p5-tas", "eks", "h100-80gb", "")
	pods, nodes := applyNetworkJob(t, networkJobConfig(t, ns, "efa", pool, 4), ns, "efa", 4)
	seen := map[string]bool{}
	for _, p := range pods {
		node := nodes[p.Name]
		if got := node.Labels["node.kubernetes.io/instance-type"]; got != "p5.48xlarge" {
			t.Errorf("pod %s on %s (%s), want a p5.48xlarge", p.Name, node.Name, got)
		}
		seen[node.Name] = true
		checkRequest(t, p, "nvidia.com/gpu", "8")
		checkRequest(t, p, "vpc.amazonaws.com/efa", "32")
		checkRequest(t, p, "hugepages-2Mi", "5120Mi")
	}
	if len(seen) != 4 {
		t.Errorf("4 pods of 8 GPUs and 32 EFA share nodes: %v", seen)
	}
}

// The fixture's EKS p4d.24xlarge node group (scripts/localcluster/fixtures/
// eks.yaml) advertises GPUs but no EFA devices and no huge pages, as a
// cluster without the EFA device plugin does. A 2-node job on it gets
// p4d's EFA share, so the apply warns before the pods are created that the
// pool's nodes lack it and names what installs it; the wait's explanation
// lists the network resources the pods asked for.
func TestAccGPUNetwork_unadvertisedEFAIsNamed(t *testing.T) {
	ns := acctest.Namespace(t)
	config := strings.Replace(networkJobConfig(t, ns, "noefa", netPool("gpu-p4d-spot", "eks", "a100-40gb", ""), 2),
		`wait_for        = "scheduled"`, "wait_for = \"scheduled\"\n  unschedulable_timeout = \"5s\"", 1)
	out, err := newFaultTerraform(t, config).Apply()
	if err == nil {
		t.Fatalf("pods asking for EFA on nodes without it were scheduled:\n%s", out)
	}
	flat := acctest.Flatten(out + err.Error())
	for _, want := range []string{
		"The pool's nodes do not advertise its GPU network",
		"none of the 1 node(s) they may land on (the pool's labels, taints they tolerate) has hugepages-2Mi or vpc.amazonaws.com/efa allocatable",
		"EFA device plugin",
		"gpu_network { enabled = false }",
		"GPU network: hugepages-2Mi: 5Gi, vpc.amazonaws.com/efa: 4",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("the apply does not say %q:\n%s", want, flat)
		}
	}
}

// GKE A3 Mega: the TCPXO annotations and the daemon as a native sidecar
// pass the API server's validation and the pods land on the pool's nodes.
func TestAccGPUNetwork_gkeA3MegaTCPXO(t *testing.T) {
	ns := acctest.Namespace(t)
	pool := netPool("a3mega-pool", "gke", "h100-80gb", `machine_type = "a3-megagpu-8g"`)
	pods, nodes := applyNetworkJob(t, networkJobConfig(t, ns, "tcpxo", pool, 2), ns, "tcpxo", 2)
	for _, p := range pods {
		if got := nodes[p.Name].Labels["cloud.google.com/gke-nodepool"]; got != "a3mega-pool" {
			t.Errorf("pod %s on node pool %q, want a3mega-pool", p.Name, got)
		}
		if !strings.Contains(p.Annotations["networking.gke.io/interfaces"], `"network":"vpc8"`) ||
			!strings.Contains(p.Annotations["devices.gke.io/container.tcpxo-daemon"], "/dev/dmabuf_import_helper") {
			t.Errorf("pod %s lacks the TCPXO annotations: %v", p.Name, p.Annotations)
		}
		if len(p.Spec.InitContainers) != 1 || p.Spec.InitContainers[0].Name != "tcpxo-daemon" ||
			p.Spec.InitContainers[0].RestartPolicy == nil || *p.Spec.InitContainers[0].RestartPolicy != corev1.ContainerRestartPolicyAlways {
			t.Errorf("pod %s: init containers %+v, want the tcpxo-daemon native sidecar", p.Name, p.Spec.InitContainers)
		}
	}
}

// AKS ND H100 v5: the InfiniBand NICs through the Network Operator's
// rdma/ib, with IPC_LOCK.
func TestAccGPUNetwork_aksInfiniBand(t *testing.T) {
	ns := acctest.Namespace(t)
	pool := netPool("ndh100", "aks", "h100-80gb", "")
	pods, nodes := applyNetworkJob(t, networkJobConfig(t, ns, "ib", pool, 2), ns, "ib", 2)
	for _, p := range pods {
		if got := nodes[p.Name].Labels["kubernetes.azure.com/agentpool"]; got != "ndh100" {
			t.Errorf("pod %s on agent pool %q, want ndh100", p.Name, got)
		}
		checkRequest(t, p, "rdma/ib", "8")
		sc := p.Spec.Containers[0].SecurityContext
		if sc == nil || sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Add, "IPC_LOCK") {
			t.Errorf("pod %s: no IPC_LOCK: %+v", p.Name, sc)
		}
	}
}

// In a gpu_queue: the ClusterQueue covers EFA and huge pages for the p5
// pool, so Kueue admits the job (a resource it does not cover would keep
// it pending) and its pods land with them.
func TestAccGPUNetwork_eksP5InQueue(t *testing.T) {
	acctest.RequireKueue(t)
	ns := acctest.Namespace(t)
	// The pool declares its topology as the distributed job's tests do: a
	// ResourceFlavor is named after the pool, so the queues of both share
	// it, and Kueue refuses to change its topologyName.
	pool := netPool("gpu-p5-tas", "eks", "h100-80gb", "topology {}") + fmt.Sprintf(`
resource "gpu_queue" "net" {
  name       = "net-%[1]s"
  namespaces = [%[1]q]
  flavor {
    node_pool = gpu_node_pool_policy.net.ref
    gpus      = 16
  }
}
`, ns)
	job := strings.Replace(networkJobConfig(t, ns, "queued", pool, 2), `  kind      = "job"`,
		`  kind      = "job"
  queue     = gpu_queue.net.ref`, 1)
	pods, _ := applyNetworkJob(t, job, ns, "queued", 2)
	for _, p := range pods {
		checkRequest(t, p, "vpc.amazonaws.com/efa", "32")
	}
}

// GKE A3 Ultra: GPUDirect RDMA by annotation (eth2..eth9 on rdma-0..7) and
// Google's NCCL plugin from the host; no daemon.
func TestAccGPUNetwork_gkeA3UltraRDMA(t *testing.T) {
	ns := acctest.Namespace(t)
	pool := netPool("a3ultra-pool", "gke", "h200", "")
	pods, nodes := applyNetworkJob(t, networkJobConfig(t, ns, "rdma", pool, 2), ns, "rdma", 2)
	for _, p := range pods {
		if got := nodes[p.Name].Labels["node.kubernetes.io/instance-type"]; got != "a3-ultragpu-8g" {
			t.Errorf("pod %s on %q, want an a3-ultragpu-8g", p.Name, got)
		}
		if !strings.Contains(p.Annotations["networking.gke.io/interfaces"], `{"interfaceName":"eth9","network":"rdma-7"}`) {
			t.Errorf("pod %s lacks the RDMA interfaces: %v", p.Name, p.Annotations)
		}
		if len(p.Spec.InitContainers) != 0 {
			t.Errorf("pod %s has init containers %v; RDMA needs no daemon", p.Name, p.Spec.InitContainers)
		}
	}
}

// netPool is the gpu_node_pool_policy "net" of 8-GPU machines the network
// tests place their jobs on; extra adds attribute lines.
func netPool(name, cloud, accelerator, extra string) string {
	return fmt.Sprintf(`
resource "gpu_node_pool_policy" "net" {
  name          = %q
  cloud         = %q
  accelerator   = %q
  gpus_per_node = 8
  %s
}
`, name, cloud, accelerator, extra)
}
