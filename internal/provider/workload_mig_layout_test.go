package provider

import (
	"fmt"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// Issue #41, defect 4, on the real scheduler: a MIG pool's workload never
// lands on a node of another MIG layout of the same model and profile.
// Two nodes of 8 H100s, both cut into 3g.40gb and labelled by GFD alike,
// differ only in nvidia.com/mig.config: the pool's all-3g.40gb, and
// another team's custom layout. Four one-instance replicas (which the
// scheduler spreads over nodes that fit alike) all run on the pool's node.
// Before the fix the workload selected the model and profile only, so
// some replicas ran on the other team's node.
func TestAccWorkload_migPoolStaysOnItsLayout(t *testing.T) {
	for _, c := range []struct {
		name, allocation string
		devicePlugin     bool
	}{
		{"device plugin", "device-plugin", true},
		{"dra", "dra", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			ns := acctest.Namespace(t)
			m := h100MIG3g40gb
			resources := map[string]int64{}
			if c.devicePlugin {
				resources["nvidia.com/gpu"] = int64(8 * m.perGPU) // "single": MIG devices as nvidia.com/gpu
			}
			own := acctest.CreateFakeNodes(t, ns+"-own", 1, resources, gfdSingleMIGLabels(t, 8, m, "all-3g.40gb", c.devicePlugin), gpuTaint)[0]
			other := acctest.CreateFakeNodes(t, ns+"-other", 1, resources, gfdSingleMIGLabels(t, 8, m, "team-b-3g", c.devicePlugin), gpuTaint)[0]
			if !c.devicePlugin {
				publishMIGSlice(t, own, 8, m)
				publishMIGSlice(t, other, 8, m)
			}
			config := acctest.ProviderBlock(t) + fmt.Sprintf(`
resource "gpu_node_pool_policy" "p" {
  name           = %[1]q
  cloud          = "generic"
  accelerator    = "h100-80gb"
  gpus_per_node  = 8
  partition      = "3g.40gb"
  gpu_allocation = %[2]q
}

resource "gpu_workload" "w" {
  name      = "mig-spread"
  namespace = %[1]q
  kind      = "deployment"
  replicas  = 4
  node_pool = gpu_node_pool_policy.p.ref
  image     = "registry.invalid/cuda:12"
  gpu {
    count = 1
  }
  timeouts {
    create = "90s"
  }
}
`, ns, c.allocation)
			tf := newFaultTerraform(t, config)
			if out, err := tf.Apply(); err != nil {
				t.Fatalf("apply: %v\n%s", err, out)
			}
			assertPodsOn(t, ns, "app.kubernetes.io/name=mig-spread", "^"+own+"$")
			if !c.devicePlugin {
				checkMIGDevicesOn(t, ns, "mig-spread", own, m.profile, 4)
			}
			t.Logf("all 4 replicas on %s, none on %s", own, other)
		})
	}
}
