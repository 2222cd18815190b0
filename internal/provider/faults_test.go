package provider

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/rand"
	k8swait "k8s.io/apimachinery/pkg/util/wait"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// faultPool is a time-sliced pool on the test's own fake nodes (created by
// the test, possibly later), which workloads reach through node_pool.
func faultPool(kubeconfig, ns, prefix string) string {
	return fmt.Sprintf(`
provider "gpu" {
  config_path = %[1]q
}

resource "gpu_node_pool_policy" "pool" {
  name          = %[3]q
  cloud         = "generic"
  accelerator   = "t4"
  gpus_per_node = 8
  labels        = { "gpuform.io/test-run" = %[3]q }
  manage_nodes {
    selector = "%[4]s=%[3]s"
  }
}
`, kubeconfig, ns, prefix, acctest.FakeNodeLabel)
}

// faultWorkload is one one-GPU Deployment on the pool; after names a
// workload whose creation it waits for, so an apply creates them one by one.
func faultWorkload(ns, name, after string, extra ...string) string {
	annotations := strings.Join(extra, "\n")
	if after != "" {
		annotations += fmt.Sprintf("\nannotations = { after = gpu_workload.%s.uid }", after)
	}
	return fmt.Sprintf(`
resource "gpu_workload" %[2]q {
  name      = %[2]q
  namespace = %[1]q
  node_pool = gpu_node_pool_policy.pool.ref
  image     = "registry.example/cuda:12"
  %[3]s
  gpu {
    count = 1
  }
}
`, ns, name, annotations)
}

// newFaultTerraform prepares the terraform CLI for config and destroys
// what it applied when the test ends.
func newFaultTerraform(t *testing.T, config string) *acctest.Terraform {
	t.Helper()
	clearClusterEnv(t)
	tf := acctest.NewTerraform(t, testAccProtoV6ProviderFactories["gpu"], config)
	t.Cleanup(func() {
		if out, err := tf.Destroy(); err != nil {
			t.Errorf("terraform destroy: %v\n%s", err, out)
		}
	})
	return tf
}

// startApply starts an apply and returns once its first Deployment exists,
// with a function that interrupts it and one that waits for its end.
func startApply(t *testing.T, tf *acctest.Terraform, ns string) (interrupt func(), wait func() (string, error)) {
	t.Helper()
	interrupt, wait = tf.ApplyInBackground()
	err := k8swait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, 2*time.Minute, true, func(context.Context) (bool, error) {
		return len(liveDeployments(t, ns)) > 0, nil
	})
	if err != nil {
		interrupt()
		out, _ := wait()
		t.Fatalf("no Deployment in %s while applying: %v\n%s", ns, err, out)
	}
	return interrupt, wait
}

// waitUnschedulable returns once a pod in the namespace is marked
// unschedulable by the scheduler: its rollout cannot finish.
func waitUnschedulable(t *testing.T, ns string) {
	t.Helper()
	err := k8swait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		pods, err := acctest.Client(t).CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, p := range pods.Items {
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
					return true, nil
				}
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("no unschedulable pod in %s: %v", ns, err)
	}
}

// liveDeployments maps the names of the namespace's Deployments to UIDs.
func liveDeployments(t *testing.T, ns string) map[string]string {
	t.Helper()
	list, err := acctest.Client(t).AppsV1().Deployments(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range list.Items {
		out[d.Name] = string(d.UID)
	}
	return out
}

// stateWorkloads maps the names of the gpu_workload instances in the state
// to the UIDs recorded for them.
func stateWorkloads(tf *acctest.Terraform) map[string]string {
	out := map[string]string{}
	for _, r := range tf.State() {
		if r.Type == "gpu_workload" {
			uid, _ := r.Values["uid"].(string)
			name, _ := r.Values["name"].(string)
			out[name] = uid
		}
	}
	return out
}

// The API server goes away in the middle of an apply that creates six
// workloads one after another. The apply fails saying so; the state holds
// only workloads that really exist, with their real UIDs; once the server
// is back the next apply converges: six Deployments, none twice, and a
// plan with no changes.
func TestAccFaults_apiServerOutageMidApply(t *testing.T) {
	ns := acctest.Namespace(t)
	prefix := "outage-" + rand.String(6)
	acctest.CreateFakeNodes(t, prefix, 1, map[string]int64{"nvidia.com/gpu": 8}, nil)
	proxy, kubeconfig := acctest.NewAPIProxy(t)

	names := []string{"w0", "w1", "w2", "w3", "w4", "w5"}
	config := faultPool(kubeconfig, ns, prefix)
	for i, name := range names {
		after := ""
		if i > 0 {
			after = names[i-1]
		}
		config += faultWorkload(ns, name, after)
	}
	tf := newFaultTerraform(t, config)
	t.Cleanup(proxy.Start) // runs before the destroy newFaultTerraform registered

	// Cut the server off as soon as the third Deployment exists.
	applied := make(chan struct{})
	go func() {
		deployments := acctest.Client(t).AppsV1().Deployments(ns)
		for {
			select {
			case <-applied:
				return
			case <-time.After(50 * time.Millisecond):
			}
			if list, err := deployments.List(context.Background(), metav1.ListOptions{}); err == nil && len(list.Items) >= 3 {
				proxy.Stop()
				return
			}
		}
	}()
	out, err := tf.Apply()
	close(applied)
	if err == nil {
		t.Fatalf("apply succeeded although the API server went away:\n%s", out)
	}
	if !regexp.MustCompile(`(lost contact with|cannot reach) the Kubernetes API server at https://127\.0\.0\.1`).MatchString(out) {
		t.Fatalf("the failed apply does not say the API server was unreachable:\n%s", out)
	}

	live, recorded := liveDeployments(t, ns), stateWorkloads(tf)
	for name, uid := range recorded {
		if live[name] != uid {
			t.Errorf("state records %s with UID %q, the cluster has %q", name, uid, live[name])
		}
	}
	if len(recorded) == 0 || len(recorded) == len(names) || len(live)-len(recorded) > 1 {
		t.Errorf("after the outage: state %v, cluster %v; want some but not all workloads, "+
			"and at most the one in flight missing from the state", recorded, live)
	}

	proxy.Start()
	if out, err := tf.Apply(); err != nil {
		t.Fatalf("apply after the outage: %v\n%s", err, out)
	}
	live, recorded = liveDeployments(t, ns), stateWorkloads(tf)
	if got := slices.Sorted(maps.Keys(live)); strings.Join(got, ",") != strings.Join(names, ",") {
		t.Fatalf("Deployments after converging: %v, want %v", got, names)
	}
	for name, uid := range live {
		if recorded[name] != uid {
			t.Errorf("%s: state UID %q, cluster UID %q", name, recorded[name], uid)
		}
	}
	if changes, out := tf.PlanHasChanges(); changes {
		t.Fatalf("plan after converging has changes, want none:\n%s", out)
	}
}

// Terraform is interrupted (Ctrl-C) while it waits for a rollout that
// cannot finish yet. It stops promptly; once capacity arrives the next
// apply converges to one ready Deployment and an empty plan.
func TestAccFaults_interruptedRolloutWait(t *testing.T) {
	ns := acctest.Namespace(t)
	prefix := "interrupt-" + rand.String(6)
	// The pool's one node is cordoned until after the interrupt.
	node := acctest.CreateFakeNodes(t, prefix, 1, map[string]int64{"nvidia.com/gpu": 8}, nil)[0]
	cordon(t, node, true)
	tf := newFaultTerraform(t, faultPool(acctest.Kubeconfig(t), ns, prefix)+faultWorkload(ns, "trainer", ""))

	interrupt, wait := startApply(t, tf, ns)
	// Interrupt while the apply waits: the scheduler has found no node for
	// the pod (the pool's one node is cordoned).
	waitUnschedulable(t, ns)
	interrupt()
	out, err := wait()
	if err == nil {
		t.Fatalf("interrupted apply succeeded:\n%s", out)
	}
	if !strings.Contains(out, "Interrupt received") {
		t.Fatalf("terraform did not see the interrupt:\n%s", out)
	}

	cordon(t, node, false)
	if out, err := tf.Apply(); err != nil {
		t.Fatalf("apply after the interrupt: %v\n%s", err, out)
	}
	live, recorded := liveDeployments(t, ns), stateWorkloads(tf)
	if len(live) != 1 || live["trainer"] == "" || recorded["trainer"] != live["trainer"] {
		t.Fatalf("after converging: cluster %v, state %v; want the one trainer in both", live, recorded)
	}
	if changes, out := tf.PlanHasChanges(); changes {
		t.Fatalf("plan after converging has changes, want none:\n%s", out)
	}
}

// A create whose response never arrived leaves an object the state does
// not know. The next apply recognises it (this configuration, applied by
// this provider's field manager) and takes it over with a warning instead of
// failing or creating a second one; another configuration's object with
// the same name still needs import or adopt.
func TestAccFaults_createWhoseResponseWasLost(t *testing.T) {
	ns := acctest.Namespace(t)
	prefix := "lost-" + rand.String(6)
	acctest.CreateFakeNodes(t, prefix, 1, map[string]int64{"nvidia.com/gpu": 8}, nil)
	tf := newFaultTerraform(t, faultPool(acctest.Kubeconfig(t), ns, prefix)+faultWorkload(ns, "server", ""))
	if out, err := tf.Apply(); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	uid := liveDeployments(t, ns)["server"]
	if out, err := tf.StateRm("gpu_workload.server"); err != nil {
		t.Fatalf("state rm: %v\n%s", err, out)
	}

	out, err := tf.Apply()
	if err != nil || !strings.Contains(out, "Warning: Taking over a workload from an interrupted apply") {
		t.Fatalf("apply after a lost create response: %v; want success with a take-over warning:\n%s", err, out)
	}
	if live, recorded := liveDeployments(t, ns), stateWorkloads(tf); len(live) != 1 || live["server"] != uid || recorded["server"] != uid {
		t.Fatalf("cluster %v, state %v; want the original server (UID %s) in both", live, recorded, uid)
	}

	// The same name from a different configuration is not taken over.
	if out, err := tf.StateRm("gpu_workload.server"); err != nil {
		t.Fatalf("state rm: %v\n%s", err, out)
	}
	tf.Write(faultPool(acctest.Kubeconfig(t), ns, prefix) + faultWorkload(ns, "server", "", `labels = { team = "other" }`))
	out, err = tf.Apply()
	if err == nil || !strings.Contains(out, "gpu_workload already exists") {
		t.Fatalf("apply of another configuration onto the same name: %v; want \"gpu_workload already exists\":\n%s", err, out)
	}
	if out, err := tf.Import("gpu_workload.server", ns+"/server"); err != nil {
		t.Fatalf("import for cleanup: %v\n%s", err, out)
	}
}

// A create timeout ends the rollout wait within a second or two of its
// value, measured from the moment the Deployment exists to the end of the
// apply, and the error says how long it waited.
func TestAccFaults_timeoutHonoured(t *testing.T) {
	ns := acctest.Namespace(t)
	prefix := "timeout-" + rand.String(6) // a pool with no nodes: never ready
	const timeout = 5 * time.Second
	tf := newFaultTerraform(t, faultPool(acctest.Kubeconfig(t), ns, prefix)+
		faultWorkload(ns, "slow", "", fmt.Sprintf("timeouts {\n create = %q\n }", timeout)))

	_, wait := startApply(t, tf, ns)
	created := time.Now()
	out, err := wait()
	waited := time.Since(created)
	if err == nil {
		t.Fatalf("apply succeeded on a pool without nodes:\n%s", out)
	}
	// The provider's own measure of its wait, rounded to the second: the
	// deadline starts with the create, a moment before the wait does.
	if msg := out; !regexp.MustCompile(`was not ready \(wait_for = "rollout"\) after [45]s`).MatchString(msg) {
		t.Fatalf("the error does not say it waited for the 5s timeout:\n%s", msg)
	}
	// Seen from outside, terraform's own exit included.
	if waited < timeout-time.Second || waited > timeout+3*time.Second {
		t.Fatalf("create timeout %s: the apply ended %s after the Deployment appeared, want within [%s, %s]",
			timeout, waited.Round(100*time.Millisecond), timeout-time.Second, timeout+3*time.Second)
	}
}

func cordon(t *testing.T, node string, unschedulable bool) {
	t.Helper()
	patch := fmt.Sprintf(`{"spec":{"unschedulable":%t}}`, unschedulable)
	_, err := acctest.Client(t).CoreV1().Nodes().Patch(context.Background(), node, k8stypes.MergePatchType,
		[]byte(patch), metav1.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
}
