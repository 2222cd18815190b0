package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// Topology-aware placement on the local cluster's real Kueue (issue #33),
// on the fixture pool gke-h100-tas (scripts/localcluster/fixtures/
// topology.yaml): GKE node pool h100-tas-pool, 8 nodes of 8 H100s in 2
// blocks x 2 sub-blocks x 2 hosts. The flavor selects the pool by its GKE
// node pool name, which must be the fixture's, so the pool and its flavor
// are shared with nothing else only while one test runs: the cases are
// steps of this one test, which does not run in parallel.

const tasPoolName = "h100-tas-pool"

func tasConfig(t *testing.T, ns, jobs string) string {
	return acctest.ProviderBlock(t) + fmt.Sprintf(`
resource "gpu_node_pool_policy" "tas" {
  name          = %[1]q
  cloud         = "gke"
  accelerator   = "h100-80gb"
  gpus_per_node = 8
  topology {}
}

resource "gpu_queue" "tas" {
  name       = "tas-%[2]s"
  namespaces = [%[2]q]
  flavor {
    node_pool = gpu_node_pool_policy.tas.ref
    gpus      = 64
  }
}
%[3]s`, tasPoolName, ns, jobs)
}

func tasJobConfig(label string, pods int, level, extra string) string {
	return fmt.Sprintf(`
resource "gpu_workload" %[1]q {
  name      = %[1]q
  namespace = gpu_queue.tas.namespaces[0]
  kind      = "job"
  node_pool = gpu_node_pool_policy.tas.ref
  queue     = gpu_queue.tas.ref
  image     = "registry.invalid/pytorch:24"
  gpu {
    count = 8
  }
  job {
    parallelism = %[2]d
    completions = %[2]d
  }
  topology {
    level = %[3]q
    mode  = "required"
  }
  %[4]s
}
`, label, pods, level, extra)
}

// (a) 4 pods x 8 GPUs, one block required: admitted, every pod in one
// block (a block is 4 nodes). (e) The refresh after TAS admission is empty.
// (b) 3 x 8 in one sub-block (2 nodes): Kueue keeps it queued with its
// topology reason; the apply reports that, and does not fail. (e) An image
// change of the admitted Job applies (a Job's template is immutable: the
// Job is replaced) and its pods are again in one block.
func TestAccTopology_gkeBlockAndSubblock(t *testing.T) {
	acctest.RequireKueue(t)
	ns := acctest.Namespace(t)
	keepRunning := `wait_for = "scheduled"
  pod_annotations = { "` + runFor + `" = "10m" }`
	block := tasJobConfig("block", 4, "block", keepRunning)
	tf := newFaultTerraform(t, tasConfig(t, ns, block))
	if out, err := tf.Apply(); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	if domains := podDomains(t, ns, "app.kubernetes.io/name=block", 4); len(domains) != 1 {
		t.Errorf("the 4 pods of the block Job are in blocks %v, want one", domains)
	}
	if changes, out := tf.PlanHasChanges(); changes {
		t.Errorf("a refresh of the TAS-admitted Job plans changes:\n%s", out)
	}

	tf.Write(tasConfig(t, ns, block+tasJobConfig("subblock", 3, "subblock", `depends_on = [gpu_workload.block]
  timeouts {
    create = "20s"
  }`)))
	out, err := tf.Apply()
	if err != nil {
		t.Fatalf("the Job waiting for a sub-block failed the apply: %v\n%s", err, out)
	}
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{"is waiting in queue \"tas-" + ns + "\" for a topology domain", "allows to fit only 2 out of 3 pod(s)"} {
		if !strings.Contains(flat, want) {
			t.Errorf("the apply does not report the queued Job with Kueue's topology reason (%q):\n%s", want, out)
		}
	}
	if strings.Contains(out, "Unschedulable") || strings.Contains(out, "cannot be scheduled") {
		t.Errorf("the Job waiting for a domain was reported as unschedulable:\n%s", out)
	}

	newImage := strings.Replace(block, "registry.invalid/pytorch:24", "registry.invalid/pytorch:25", 1)
	tf.Write(tasConfig(t, ns, newImage))
	if out, err := tf.Apply(); err != nil {
		t.Fatalf("an image change of the TAS-admitted Job: %v\n%s", err, out)
	}
	if domains := podDomains(t, ns, "app.kubernetes.io/name=block", 4); len(domains) != 1 {
		t.Errorf("after the image change the 4 pods are in blocks %v, want one", domains)
	}
	if changes, out := tf.PlanHasChanges(); changes {
		t.Errorf("the plan after the image change is not empty:\n%s", out)
	}
}

// (c) "preferred": 4 pods pack into one block, which can hold them; 6 pods,
// which no block can, still run, across both blocks.
func TestAccTopology_gkePreferredPacksWhenItCan(t *testing.T) {
	acctest.RequireKueue(t)
	ns := acctest.Namespace(t)
	preferred := func(pods int) string {
		return strings.Replace(tasJobConfig("pref", pods, "block", `wait_for = "scheduled"
  pod_annotations = { "`+runFor+`" = "10m" }`), `mode  = "required"`, `mode  = "preferred"`, 1)
	}
	tf := newFaultTerraform(t, tasConfig(t, ns, preferred(4)))
	if out, err := tf.Apply(); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	if domains := podDomains(t, ns, "app.kubernetes.io/name=pref", 4); len(domains) != 1 {
		t.Errorf("4 pods preferring one block are in blocks %v, want one", domains)
	}
	tf.Write(tasConfig(t, ns, preferred(6)))
	if out, err := tf.Apply(); err != nil {
		t.Fatalf("6 pods preferring one block, which holds 4: %v\n%s", err, out)
	}
	if domains := podDomains(t, ns, "app.kubernetes.io/name=pref", 6); len(domains) != 2 {
		t.Errorf("6 pods preferring one block are in blocks %v, want both", domains)
	}
}

// (d) Without a queue, the default scheduler's path: required pod affinity
// on the level's label keeps the Job's pods in one block.
func TestAccTopology_gkeWithoutQueueStaysInOneBlock(t *testing.T) {
	ns := acctest.Namespace(t)
	job := strings.NewReplacer("  queue     = gpu_queue.tas.ref\n", "", "gpu_queue.tas.namespaces[0]", fmt.Sprintf("%q", ns)).
		Replace(tasJobConfig("noqueue", 3, "block", `wait_for = "scheduled"
  pod_annotations = { "`+runFor+`" = "10m" }`))
	config := acctest.ProviderBlock(t) + fmt.Sprintf(`
resource "gpu_node_pool_policy" "tas" {
  name          = %q
  cloud         = "gke"
  accelerator   = "h100-80gb"
  gpus_per_node = 8
  topology {}
}
`, tasPoolName) + job
	tf := newFaultTerraform(t, config)
	if out, err := tf.Apply(); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	if domains := podDomains(t, ns, "app.kubernetes.io/name=noqueue", 3); len(domains) != 1 {
		t.Errorf("the 3 pods of the Job without a queue are in blocks %v, want one", domains)
	}
}

// tasBlockLabel is the GKE block level's node label.
const tasBlockLabel = "cloud.google.com/gce-topology-block"

// podDomains waits for want scheduled pods and returns the blocks
// (tasBlockLabel) of their nodes.
func podDomains(t *testing.T, ns, selector string, want int) map[string]bool {
	t.Helper()
	cs := acctest.Client(t)
	domains := map[string]bool{}
	err := wait.PollUntilContextTimeout(context.Background(), 250*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			return false, err
		}
		clear(domains)
		scheduled := 0
		for _, p := range pods.Items {
			if p.Spec.NodeName == "" {
				continue
			}
			node, err := cs.CoreV1().Nodes().Get(ctx, p.Spec.NodeName, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			domains[node.Labels[tasBlockLabel]] = true
			scheduled++
		}
		return scheduled == want, nil
	})
	if err != nil {
		t.Fatalf("%d pods of %s were not scheduled: %v", want, selector, err)
	}
	return domains
}
