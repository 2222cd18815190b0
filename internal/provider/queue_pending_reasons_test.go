package provider

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/rand"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// Issue #41's first finding, on the real Kueue: a whole-GPU A100 flavor and
// a MIG flavor of the same GKE model in one queue; a first Job holds 4 of
// the whole flavor's 8 GPUs, a second asks for 8. Kueue's message names
// the MIG flavor ("doesn't match node affinity": it is the other pool's)
// and the whole flavor's missing quota. The second Job is queued, not one
// that can never run: the apply says so with Kueue's reason, and Kueue
// admits it on the whole pool once the first Job is done.
func TestAccQueue_otherPoolsFlavorDoesNotMakeWorkUnadmittable(t *testing.T) {
	acctest.RequireKueue(t)
	ns := acctest.Namespace(t)
	id := rand.String(5)
	whole := cloneFixturePool(t, "gke-a100", "cloud.google.com/gke-nodepool", "kr-"+id+"-a100")
	mig := cloneFixturePool(t, "gke-a100-mig", "cloud.google.com/gke-nodepool", "kr-"+id+"-mig")
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
  name       = "kr-%[5]s"
  namespaces = [%[6]q]
  flavor {
    node_pool = gpu_node_pool_policy.whole.ref
    gpus      = 8
  }
  flavor {
    node_pool     = gpu_node_pool_policy.mig.ref
    mig_instances = 24
  }
}
`, whole.name, whole.taintHCL(), mig.name, mig.taintHCL(), id, ns) +
		wholeA100Job("first", ns, 4, `wait_for = "scheduled"
  pod_annotations = { "`+runFor+`" = "25s" }`) +
		wholeA100Job("second", ns, 8, `depends_on = [gpu_workload.first]
  timeouts {
    create = "5s"
  }`)
	tf := newFaultTerraform(t, config)
	out, err := tf.Apply()
	if err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	for _, want := range []string{
		`is waiting in queue "kr-` + id + `"`,
		"insufficient unused quota for nvidia.com/gpu in flavor " + whole.name,
		"runs on flavor " + whole.name + " once its quota frees up",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the apply does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Kueue cannot admit") || strings.Contains(out, "more quota will not fix") {
		t.Errorf("the second Job, which runs once the first is done, is reported as never admittable:\n%s", out)
	}
	waitJobComplete(t, ns, "second", 3*time.Minute)
	assertPodsOn(t, ns, "app.kubernetes.io/name=second", "^"+whole.prefix+`-\d+$`)
}

// wholeA100Job is a Job of gpus whole A100s on the test's whole pool, in
// its queue.
func wholeA100Job(name, ns string, gpus int, extra string) string {
	return fmt.Sprintf(`
resource "gpu_workload" %[1]q {
  name      = %[1]q
  namespace = %[2]q
  kind      = "job"
  node_pool = gpu_node_pool_policy.whole.ref
  queue     = gpu_queue.q.ref
  image     = "registry.invalid/cuda:12"
  gpu {
    count = %[3]d
  }
  %[4]s
}
`, name, ns, gpus, extra)
}
