package kube

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// The local cluster's DRA pools (scripts/localcluster/fixtures/dra.yaml and
// dra.sh): nodes without nvidia.com/gpu whose GPUs are the ResourceSlices
// NVIDIA's DRA driver would publish. These tests hold the fixtures to what
// the real kube-scheduler does with them: it allocates claims against the
// slices and kwok then runs the pod. (kwok plays no kubelet, so nothing
// prepares the devices: see docs/guides/local-cluster.md.)

const (
	draDriver    = "gpu.nvidia.com"
	draPoolLabel = "fixtures.gpuform.io/pool"
	// draGPUTaint is the taint of the local cluster's generic GPU pools,
	// the DRA pools included; a DRA pod tolerates it itself.
	draGPUTaint = "nvidia.com/gpu"
)

// draAllocation is what the scheduler decided for a pod's one claim.
type draAllocation struct {
	pod     *corev1.Pod
	claim   *resourcev1.ResourceClaim
	devices []resourcev1.DeviceRequestAllocationResult
}

// Two H100s by product name, from the gpu.nvidia.com class: the scheduler
// puts the pod on a dra-h100 node (nothing else selects it) and allocates
// two distinct GPUs of that node's pool, and kwok runs the pod.
func TestAccDRAPools_twoH100sOfOneNode(t *testing.T) {
	cs, ns := draPrecheck(t)
	req := draRequest("gpu.nvidia.com", 2, `device.attributes['gpu.nvidia.com'].productName == 'NVIDIA H100 80GB HBM3'`)
	got := draRun(t, cs, ns, "two-h100", req)
	if pool := draNodePool(t, cs, got.pod.Spec.NodeName); pool != "dra-h100" {
		t.Errorf("pod runs on %s of pool %q, want pool dra-h100", got.pod.Spec.NodeName, pool)
	}
	draCheckDevices(t, got, 2, regexp.MustCompile(`^gpu-[0-7]$`))
}

// One MIG device by profile, from the mig.nvidia.com class: the scheduler
// allocates a 3g.20gb device of the dra-a100-mig node.
func TestAccDRAPools_migDeviceByProfile(t *testing.T) {
	cs, ns := draPrecheck(t)
	req := draRequest("mig.nvidia.com", 1, `device.attributes['gpu.nvidia.com'].profile == '3g.20gb'`)
	got := draRun(t, cs, ns, "mig-3g", req)
	if pool := draNodePool(t, cs, got.pod.Spec.NodeName); pool != "dra-a100-mig" {
		t.Errorf("pod runs on %s of pool %q, want pool dra-a100-mig", got.pod.Spec.NodeName, pool)
	}
	// gpu-<minor>-mig-<profile without dots>-<profile id>-<placement start>
	draCheckDevices(t, got, 1, regexp.MustCompile(`^gpu-[0-7]-mig-3g20gb-9-4$`))
}

// A claim is satisfied by one node's devices: nine H100s exist in the
// cluster (two nodes of eight) but on no one node, so the pod stays
// unschedulable and its claim unallocated.
func TestAccDRAPools_claimNeverSpansNodes(t *testing.T) {
	cs, ns := draPrecheck(t)
	req := draRequest("gpu.nvidia.com", 9, `device.attributes['gpu.nvidia.com'].productName == 'NVIDIA H100 80GB HBM3'`)
	pod := draCreate(t, cs, ns, "nine-h100", req)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var reason string
	err := wait.PollUntilContextCancel(ctx, 250*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		p, err := cs.CoreV1().Pods(ns).Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
				reason = c.Message
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("pod %s was not reported unschedulable: %v", pod.Name, err)
	}
	if !strings.Contains(reason, "cannot allocate all claims") {
		t.Errorf("unschedulable for another reason than its claim: %s", reason)
	}
	t.Logf("scheduler: %s", reason)
}

// draPrecheck finds the cluster and its DRA pools: at least one ResourceSlice
// of the driver, and nodes of the DRA pools that advertise no NVIDIA
// extended resource.
func draPrecheck(t *testing.T) (kubernetes.Interface, string) {
	t.Helper()
	cs := acctest.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	slices, err := cs.ResourceV1().ResourceSlices().List(ctx, metav1.ListOptions{FieldSelector: "spec.driver=" + draDriver})
	if err != nil {
		t.Fatalf("listing ResourceSlices: %v", err)
	}
	if len(slices.Items) == 0 {
		t.Fatalf("no ResourceSlices of %s: the cluster lacks the DRA pools (scripts/localcluster/cluster.sh fixtures applies them)", draDriver)
	}
	for _, s := range slices.Items {
		node, err := cs.CoreV1().Nodes().Get(ctx, *s.Spec.NodeName, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("node %s of ResourceSlice %s: %v", *s.Spec.NodeName, s.Name, err)
		}
		for name := range node.Status.Capacity {
			if strings.HasPrefix(string(name), "nvidia.com/") {
				t.Errorf("DRA node %s advertises %s: a node's GPUs are DRA devices or extended resources, not both", node.Name, name)
			}
		}
	}
	return cs, acctest.Namespace(t)
}

// draRequest is one request of count devices of class, narrowed by a CEL
// selector, in resource.k8s.io/v1's shape.
func draRequest(class string, count int64, cel string) resourcev1.DeviceRequest {
	return resourcev1.DeviceRequest{
		Name: "gpus",
		Exactly: &resourcev1.ExactDeviceRequest{
			DeviceClassName: class,
			AllocationMode:  resourcev1.DeviceAllocationModeExactCount,
			Count:           count,
			Selectors:       []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{Expression: cel}}},
		},
	}
}

// draCreate creates a ResourceClaimTemplate with req and a pod whose one
// container uses the claim generated from it.
func draCreate(t *testing.T, cs kubernetes.Interface, ns, name string, req resourcev1.DeviceRequest) *corev1.Pod {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tmpl := &resourcev1.ResourceClaimTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: resourcev1.ResourceClaimTemplateSpec{Spec: resourcev1.ResourceClaimSpec{
			Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{req}},
		}},
	}
	if _, err := cs.ResourceV1().ResourceClaimTemplates(ns).Create(ctx, tmpl, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating ResourceClaimTemplate %s: %v", name, err)
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name: "main", Image: "registry.example/cuda:12",
				Resources: corev1.ResourceRequirements{Claims: []corev1.ResourceClaim{{Name: "gpus"}}},
			}},
			ResourceClaims: []corev1.PodResourceClaim{{Name: "gpus", ResourceClaimTemplateName: &tmpl.Name}},
			Tolerations:    []corev1.Toleration{{Key: draGPUTaint, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
		},
	}
	created, err := cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating pod %s: %v", name, err)
	}
	return created
}

// draRun creates the pod of req, waits until kwok runs it, and reads the
// allocation of its claim.
func draRun(t *testing.T, cs kubernetes.Interface, ns, name string, req resourcev1.DeviceRequest) draAllocation {
	t.Helper()
	pod := draCreate(t, cs, ns, name, req)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := wait.PollUntilContextCancel(ctx, 250*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		p, err := cs.CoreV1().Pods(ns).Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		pod = p
		return p.Status.Phase == corev1.PodRunning && len(p.Status.ResourceClaimStatuses) == 1, nil
	})
	if err != nil {
		t.Fatalf("pod %s is not Running with its claim: %v (phase %s, conditions %s)", pod.Name, err, pod.Status.Phase, draConditions(pod))
	}
	claimName := pod.Status.ResourceClaimStatuses[0].ResourceClaimName
	if claimName == nil {
		t.Fatalf("pod %s runs without a generated claim", pod.Name)
	}
	claim, err := cs.ResourceV1().ResourceClaims(ns).Get(ctx, *claimName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("claim %s: %v", *claimName, err)
	}
	if claim.Status.Allocation == nil {
		t.Fatalf("claim %s of running pod %s is not allocated", claim.Name, pod.Name)
	}
	if len(claim.Status.ReservedFor) != 1 || claim.Status.ReservedFor[0].UID != pod.UID {
		t.Errorf("claim %s is reserved for %+v, want pod %s alone", claim.Name, claim.Status.ReservedFor, pod.Name)
	}
	return draAllocation{pod: pod, claim: claim, devices: claim.Status.Allocation.Devices.Results}
}

// draCheckDevices: count distinct devices of the driver, all from the pool
// of the pod's node (one pool per node, named after it), named as name says.
func draCheckDevices(t *testing.T, got draAllocation, count int, name *regexp.Regexp) {
	t.Helper()
	seen := map[string]bool{}
	for _, d := range got.devices {
		if d.Driver != draDriver || d.Pool != got.pod.Spec.NodeName || d.Request != "gpus" || !name.MatchString(d.Device) {
			t.Errorf("claim %s: device %s/%s/%s for request %s, want a %s device of pool %s matching %s",
				got.claim.Name, d.Driver, d.Pool, d.Device, d.Request, draDriver, got.pod.Spec.NodeName, name)
		}
		seen[d.Device] = true
	}
	if len(got.devices) != count || len(seen) != count {
		t.Errorf("claim %s: %d results (%d distinct devices), want %d", got.claim.Name, len(got.devices), len(seen), count)
	}
	t.Logf("%s on %s: %v", got.pod.Name, got.pod.Spec.NodeName, draDeviceNames(got.devices))
}

func draNodePool(t *testing.T, cs kubernetes.Interface, node string) string {
	t.Helper()
	n, err := cs.CoreV1().Nodes().Get(context.Background(), node, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("node %s: %v", node, err)
	}
	return n.Labels[draPoolLabel]
}

func draDeviceNames(results []resourcev1.DeviceRequestAllocationResult) []string {
	out := make([]string, len(results))
	for i, r := range results {
		out[i] = r.Device
	}
	return out
}

func draConditions(p *corev1.Pod) string {
	var b strings.Builder
	for _, c := range p.Status.Conditions {
		fmt.Fprintf(&b, "%s=%s %s %s; ", c.Type, c.Status, c.Reason, c.Message)
	}
	return b.String()
}
