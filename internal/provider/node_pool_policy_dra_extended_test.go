package provider

import (
	"context"
	"fmt"
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
	info, err := acctest.Client(t).Discovery().ServerVersion()
	if err != nil {
		t.Fatalf("server version: %v", err)
	}
	var got int
	if _, err := fmt.Sscanf(strings.TrimSuffix(info.Minor, "+"), "%d", &got); err != nil {
		t.Fatalf("server minor %q: %v", info.Minor, err)
	}
	if got < minor {
		t.Skipf("needs Kubernetes 1.%d or later (the cluster runs %s): %s", minor, info.GitVersion, why)
	}
}

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
