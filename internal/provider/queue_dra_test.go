package provider

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// draQueuePool is the DRA pool the local cluster's Kueue maps: its
// Configuration's deviceClassMappings are read at start, so the pool's
// name is fixed (scripts/localcluster/kueue_setup.sh, KUEUE_DRA_POOLS).
// Its DeviceClass is cluster-wide, so only this test uses the name.
const draQueuePool = "dra-h100-queued"

// (f) of issue #32: a queue on a DRA pool, with a quota of 2 devices,
// admits one 2-GPU Job and queues the second with Kueue's reason, counted
// in the pool's class's devices; the second runs once the first is done,
// on the pool's nodes, through its claim.
func TestAccQueue_draPoolAdmitsOneAndQueuesTheSecond(t *testing.T) {
	ns := acctest.Namespace(t)
	resourceName := draQueuePool + ".gpu.gpuform.io/devices"
	config := acctest.ProviderBlock(t) + fmt.Sprintf(`
resource "gpu_node_pool_policy" "p" {
  name           = %[1]q
  cloud          = "generic"
  accelerator    = "h100-80gb"
  gpus_per_node  = 8
  gpu_allocation = "dra"
}

resource "gpu_queue" "q" {
  name       = %[1]q
  namespaces = [%[2]q]
  flavor {
    node_pool = gpu_node_pool_policy.p.ref
    gpus      = 2
  }
}

output "mappings" { value = gpu_queue.q.kueue_device_class_mappings }
`, draQueuePool, ns) + draQueuedJob("first", ns, `wait_for = "scheduled"
  pod_annotations = { "`+runFor+`" = "20s" }`) + draQueuedJob("second", ns, `depends_on = [gpu_workload.first]
  timeouts {
    create = "5s"
  }`)
	tf := newFaultTerraform(t, config)
	out, err := tf.Apply()
	if err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	for _, want := range []string{
		`is waiting in queue "` + draQueuePool + `"`,
		"insufficient unused quota for " + resourceName + " in flavor " + draQueuePool,
		`name = "` + resourceName + `"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the apply does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "did not become ready") || strings.Contains(out, "no pod reported a problem") {
		t.Errorf("the queued Job was reported as a failure:\n%s", out)
	}
	waitJobComplete(t, ns, "second", 2*time.Minute)
	assertPodsOn(t, ns, "app.kubernetes.io/name=second", `^dra-h100-\d$`)
	if changes, out := tf.PlanHasChanges(); changes {
		t.Errorf("a refresh of the admitted Jobs plans changes:\n%s", out)
	}
}

// draQueuedJob is a 2-GPU Job on the DRA pool, in the queue.
func draQueuedJob(name, ns, extra string) string {
	return fmt.Sprintf(`
resource "gpu_workload" %[1]q {
  name      = %[1]q
  namespace = %[2]q
  kind      = "job"
  node_pool = gpu_node_pool_policy.p.ref
  queue     = gpu_queue.q.ref
  image     = "registry.invalid/cuda:12"
  gpu {
    count = 2
  }
  %[3]s
}
`, name, ns, extra)
}

// Issue #41, defect 2, on the real scheduler and Kueue: a DRA MIG pool
// whose node GPU Feature Discovery labels under its "single" strategy (the
// GPU Operator's default: the MIG product and the MIG device count, not
// the GPUs') in a queue. The queued Job is admitted, and its pod runs on
// the pool's node with one of its 2g.20gb MIG devices allocated. Before
// the fix the flavor selected the whole-GPU product and the GPU count, so
// Kueue admitted the Job and pinned its pod to labels no node carries.
//
// The pool takes draQueuePool's name: Kueue maps that name's DeviceClass
// (read at start), and the tests of this package run one after the other.
func TestAccQueue_draMIGPoolUnderGFDSingleStrategyRuns(t *testing.T) {
	ns := acctest.Namespace(t)
	node := acctest.CreateFakeNodes(t, ns, 1, nil, gfdSingleMIGLabels(t, 8, h100MIG2g20gb, "all-2g.20gb", false), gpuTaint)[0]
	publishMIGSlice(t, node, 8, h100MIG2g20gb)
	config := acctest.ProviderBlock(t) + fmt.Sprintf(`
resource "gpu_node_pool_policy" "p" {
  name           = %[1]q
  cloud          = "generic"
  accelerator    = "h100-80gb"
  gpus_per_node  = 8
  partition      = "2g.20gb"
  gpu_allocation = "dra"
}

resource "gpu_queue" "q" {
  name       = %[1]q
  namespaces = [%[2]q]
  flavor {
    node_pool     = gpu_node_pool_policy.p.ref
    mig_instances = 3
  }
}

resource "gpu_workload" "job" {
  name      = "mig-job"
  namespace = %[2]q
  kind      = "job"
  node_pool = gpu_node_pool_policy.p.ref
  queue     = gpu_queue.q.ref
  image     = "registry.invalid/cuda:12"
  wait_for  = "scheduled"
  pod_annotations = { %[3]q = "20s" }
  gpu {
    count = 1
  }
  timeouts {
    create = "90s"
  }
}
`, draQueuePool, ns, runFor)
	tf := newFaultTerraform(t, config)
	if out, err := tf.Apply(); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	assertPodsOn(t, ns, "app.kubernetes.io/name=mig-job", "^"+node+"$")
	checkMIGDevicesOn(t, ns, "mig-job", node, h100MIG2g20gb.profile, 1)
	waitJobComplete(t, ns, "mig-job", 2*time.Minute)
}
