package provider

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"maps"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/ptr"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
)

// h100NodeTwoPerRoot is a DRA node of 8 H100s as the local cluster's
// dra-h100 nodes are (GFD's labels, the driver's device attributes), but
// with two GPUs per PCIe root: gpu-1 under gpu-0's root, gpu-3 under
// gpu-2's, and so on. It carries the test's label and taint, so only
// workloads of the test's pool land there.
func h100NodeTwoPerRoot(t *testing.T, prefix string) {
	t.Helper()
	var labels map[string]string
	for _, n := range rendertest.LoadFixtureNodes(t, "dra") {
		if n.Name == "dra-h100-0" {
			labels = maps.Clone(n.Labels)
		}
	}
	if labels == nil {
		t.Fatal("no fixture node dra-h100-0")
	}
	// Not the fixture's pool, and not a node the fixtures publish slices for.
	for _, k := range []string{"kubernetes.io/hostname", "fixtures.gpuform.io/pool", "fixtures.gpuform.io/cloud", "fixtures.gpuform.io/dra-driver"} {
		delete(labels, k)
	}
	taint := corev1.Taint{Key: acctest.FakeNodeLabel, Value: prefix, Effect: corev1.TaintEffectNoSchedule}
	acctest.CreateFakeDRANode(t, prefix, labels, pairedRootDevices(t, prefix+"-0"), taint)
}

// pairedRootDevices are dra-h100-0's devices, two per PCIe root, with
// UUIDs of their own node.
func pairedRootDevices(t *testing.T, node string) []resourcev1.Device {
	t.Helper()
	for _, s := range rendertest.LoadFixtureSlices(t) {
		if s.Spec.NodeName == nil || *s.Spec.NodeName != "dra-h100-0" {
			continue
		}
		rendertest.TwoGPUsPerPCIeRoot(t, s.Spec.Devices)
		for i, d := range s.Spec.Devices {
			d.Attributes["uuid"] = resourcev1.DeviceAttribute{StringValue: ptr.To(gpuUUID(node, i))}
		}
		return s.Spec.Devices
	}
	t.Fatal("no fixture slice of dra-h100-0")
	return nil
}

// gpuUUID is a stable UUID in NVML's form, as dra.sh makes them.
func gpuUUID(node string, minor int) string {
	sum := md5.Sum([]byte(fmt.Sprintf("%s/%d", node, minor)))
	h := hex.EncodeToString(sum[:])
	return "GPU-" + h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// Defect 3 of issue #41: a claim of 4 H100s on one PCIe root, on a DRA pool
// whose node has 8 H100s, two per PCIe root. The scheduler refuses it, so
// the apply fails at the first refusal (unschedulable_timeout = "0s"), and
// the explanation is built from the claim the scheduler allocates: the
// claim's description names the constraint, and the pool's line counts the
// most devices one PCIe root gives (2) and says no root holds 4, instead of
// "matches; ... at most 8 free on one node". The H100 pool also holds the
// local cluster's dra-h100 nodes; the pod may use only the test's node, so
// only its devices count toward the most on one node and one root.
func TestAccWorkload_draSamePCIeRootNoRootHoldsTheClaim(t *testing.T) {
	ns := acctest.Namespace(t)
	prefix := "pcie-" + rand.String(6)
	h100NodeTwoPerRoot(t, prefix)
	config := acctest.ProviderBlock(t) + fmt.Sprintf(`
resource "gpu_node_pool_policy" "p" {
  name           = %[1]q
  cloud          = "generic"
  accelerator    = "h100-80gb"
  gpus_per_node  = 8
  gpu_allocation = "dra"
  labels         = { %[2]q = %[1]q }
  taints         = [{ key = %[2]q, value = %[1]q, effect = "NoSchedule" }]
}

resource "gpu_workload" "w" {
  name                  = "four"
  namespace             = %[3]q
  node_pool             = gpu_node_pool_policy.p.ref
  image                 = "registry.invalid/cuda:12"
  unschedulable_timeout = "0s"
  gpu {
    count = 4
    dra {
      same = "pcie-root"
    }
  }
  timeouts {
    create = "2m"
  }
}
`, prefix, acctest.FakeNodeLabel, ns)
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		CheckDestroy:             checkDeviceClassGone(acctest.Client(t), prefix+".gpu.gpuform.io"),
		Steps: []resource.TestStep{{
			Config: config,
			ExpectError: wrappedRegexp(`did not become ready`, `Unschedulable`, `cannot allocate all claims`,
				`GPU pools in the cluster \(DRA devices matching the claim\):`,
				`generic/NVIDIA-H100-80GB-HBM3/dra: \d+ matching devices published \(NVIDIA H100 80GB HBM3\), \d+ free, `+
					`at most 8 free on one node, at most 2 free on one PCIe root: no PCIe root holds 4 matching devices, `+
					`and the claim asks for 4 of one PCIe root`,
				`This workload asked for:`,
				`DRA claim: 4 device\(s\) of class `+prefix+`\.gpu\.gpuform\.io, all of one node and of one PCIe root `+
					`\(matchAttribute resource\.kubernetes\.io/pcieRoot\)`,
				`raise unschedulable_timeout`),
		}},
	})
}
