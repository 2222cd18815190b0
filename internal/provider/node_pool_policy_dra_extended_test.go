package provider

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// requireServerMinor skips a test on a cluster older than the minor, saying
// which feature it needs: a version-dependent behaviour is tested on the
// versions that have it, and the plan-time tests cover the refusal before.
func requireServerMinor(t *testing.T, minor int, why string) {
	t.Helper()
	if got, version := serverMinor(t); got < minor {
		t.Skipf("needs Kubernetes 1.%d or later (the cluster runs %s): %s", minor, version, why)
	}
}

// serverMinor is the local cluster's Kubernetes minor version, and its
// full version for messages.
func serverMinor(t *testing.T) (int, string) {
	t.Helper()
	info, err := acctest.Client(t).Discovery().ServerVersion()
	if err != nil {
		t.Fatalf("server version: %v", err)
	}
	var got int
	if _, err := fmt.Sscanf(strings.TrimSuffix(info.Minor, "+"), "%d", &got); err != nil {
		t.Fatalf("server minor %q: %v", info.Minor, err)
	}
	return got, info.GitVersion
}

// poollessGPUPools are the fixture pools where a pod that names no pool and
// asks for nvidia.com/gpu may land: the device-plugin pools given and, from
// Kubernetes 1.36, the DRA pool of the same model, whose DeviceClass
// gpu.nvidia.com serves nvidia.com/gpu through extendedResourceName as
// NVIDIA's chart renders it (scripts/localcluster/dra/deviceclasses.yaml).
// The pod asked for the model and gets it there. A pod that names a
// device-plugin pool stays on it (TestAccNodePoolPolicy_devicePluginPoolStaysOffDRANodes).
func poollessGPUPools(t *testing.T, pools ...string) []string {
	t.Helper()
	if minor, _ := serverMinor(t); minor < 36 {
		return pools
	}
	out := slices.Clone(pools)
	for _, p := range pools {
		if dra, ok := fixtureDRAPoolOfModel[p]; ok && !slices.Contains(out, dra) {
			out = append(out, dra)
		}
	}
	return out
}

// fixtureDRAPoolOfModel maps a generic device-plugin fixture pool to the DRA
// fixture pool of the same model (scripts/localcluster/fixtures/dra.yaml).
var fixtureDRAPoolOfModel = map[string]string{"generic-h100": "dra-h100"}

// (#43 a) On Kubernetes 1.36+ a DRA pool's DeviceClass carries
// extendedResourceName nvidia.com/gpu, so a pod written by hand that asks
// for nvidia.com/gpu: 1 the device-plugin way lands on the pool's DRA
// nodes and the scheduler allocates it a device of the pool's class
// through the ResourceClaim it generates. Serial on purpose: Kubernetes
// serves an extended resource name from the newest class that carries it,
// and a parallel test's pool class would be newer.
func TestAccNodePoolPolicy_draPoolServesHandWrittenGPUPods(t *testing.T) {
	requireServerMinor(t, 36, "DeviceClass extendedResourceName (DRAExtendedResource is alpha and off before 1.36)")
	ns := acctest.Namespace(t)
	cs := acctest.Client(t)
	class := ns + ".gpu.gpuform.io"
	tf := newFaultTerraform(t, acctest.ProviderBlock(t)+fmt.Sprintf(`
resource "gpu_node_pool_policy" "p" {
  name           = %q
  cloud          = "generic"
  accelerator    = "h100-80gb"
  gpus_per_node  = 8
  gpu_allocation = "dra"
}
`, ns))
	if out, err := tf.Apply(); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	live, err := cs.ResourceV1().DeviceClasses().Get(context.Background(), class, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the pool's DeviceClass: %v", err)
	}
	if got := live.Spec.ExtendedResourceName; got == nil || *got != "nvidia.com/gpu" {
		t.Fatalf("the pool's DeviceClass serves extended resource %v, want nvidia.com/gpu", got)
	}

	gpu := resource.MustParse("1")
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "by-hand", Namespace: ns},
		Spec: corev1.PodSpec{
			NodeSelector: map[string]string{"fixtures.gpuform.io/pool": "dra-h100"},
			Tolerations:  []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
			Containers: []corev1.Container{{Name: "cuda", Image: "registry.invalid/cuda:12",
				Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{"nvidia.com/gpu": gpu}}}},
		},
	}
	if _, err := cs.CoreV1().Pods(ns).Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var claimName string
	err = wait.PollUntilContextTimeout(context.Background(), 250*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		live, err := cs.CoreV1().Pods(ns).Get(ctx, "by-hand", metav1.GetOptions{})
		if err != nil || live.Spec.NodeName == "" || live.Status.ExtendedResourceClaimStatus == nil {
			return false, err
		}
		claimName = live.Status.ExtendedResourceClaimStatus.ResourceClaimName
		return true, nil
	})
	if err != nil {
		t.Fatalf("the pod asking nvidia.com/gpu was not scheduled with a generated claim: %v", err)
	}
	claim, err := cs.ResourceV1().ResourceClaims(ns).Get(context.Background(), claimName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the generated claim %s: %v", claimName, err)
	}
	if n := len(claim.Spec.Devices.Requests); n != 1 || claim.Spec.Devices.Requests[0].Exactly == nil ||
		claim.Spec.Devices.Requests[0].Exactly.DeviceClassName != class {
		t.Errorf("the generated claim asks %+v, want one request of class %s", claim.Spec.Devices.Requests, class)
	}
	if claim.Status.Allocation == nil || len(claim.Status.Allocation.Devices.Results) != 1 ||
		claim.Status.Allocation.Devices.Results[0].Driver != "gpu.nvidia.com" {
		t.Errorf("the generated claim's allocation is %+v, want one device of gpu.nvidia.com", claim.Status.Allocation)
	}
}

// A workload on a generic device-plugin pool stays on that pool's nodes on
// every version. Generic pools are told apart by GPU Feature Discovery's
// labels, which the DRA H100 nodes carry too, and from 1.36 those nodes
// serve nvidia.com/gpu through the DRA class's extendedResourceName: six
// one-GPU replicas, spread by the scheduler's scoring over the two
// generic-h100 and two dra-h100 nodes, land on generic-h100 only because
// the placement excludes nodes whose device plugin is switched off.
func TestAccNodePoolPolicy_devicePluginPoolStaysOffDRANodes(t *testing.T) {
	ns := acctest.Namespace(t)
	tf := newFaultTerraform(t, acctest.ProviderBlock(t)+fmt.Sprintf(`
resource "gpu_node_pool_policy" "h100" {
  name          = "generic-h100"
  cloud         = "generic"
  accelerator   = "h100-80gb"
  gpus_per_node = 8
}

resource "gpu_workload" "w" {
  name      = "spread"
  namespace = %q
  node_pool = gpu_node_pool_policy.h100.ref
  image     = "registry.invalid/cuda:12"
  replicas  = 6
  gpu {
    count = 1
  }
}
`, ns))
	if out, err := tf.Apply(); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	placed, err := podPools(context.Background(), t, ns, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(placed) != 6 || !onlyPools(placed, []string{"generic-h100"}) {
		t.Fatalf("the pool's pods landed on %v, want six on generic-h100", placed)
	}
}
