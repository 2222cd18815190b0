package capacity

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

func findCapacityPool(t *testing.T, pools []spec.PoolCapacity, key string) spec.PoolCapacity {
	t.Helper()
	for _, p := range pools {
		if p.Key == key {
			return p
		}
	}
	keys := make([]string, len(pools))
	for i, p := range pools {
		keys[i] = p.Key
	}
	t.Fatalf("no pool %q in %v", key, keys)
	return spec.PoolCapacity{}
}

func poolResource(p spec.PoolCapacity, name string) spec.ResourceCapacity {
	for _, r := range p.Resources {
		if r.Name == name {
			return r
		}
	}
	return spec.ResourceCapacity{}
}

// Every fixture node, the DRA pools' with the slices the local cluster
// publishes for them: a DRA node is in a pool of its own, never counted
// into the device plugin's pool of its product with zero GPUs.
func TestSummarizeCapacityFixtures(t *testing.T) {
	pools := SummarizeDRA(rendertest.LoadFixtureNodes(t), nil, fixtureDRAInputs(t))
	cases := []struct {
		key, cloud, accelerator string
		nodes                   int
		resource                string
		allocatable             int64
	}{
		{"aks/gpua100", "aks", "a100-80gb", 2, "nvidia.com/gpu", 2},
		{"aks/gpuv100x4", "aks", "v100-16gb", 1, "nvidia.com/gpu", 4},
		{"eks/gpu-g5", "eks", "a10g", 2, "nvidia.com/gpu", 8},
		{"eks/gpu-p4d-spot", "eks", "a100-40gb", 1, "nvidia.com/gpu", 8},
		{"eks-auto/gpu", "eks-auto", "l40s", 2, "nvidia.com/gpu", 8},
		{"karpenter/gpu", "karpenter", "l4", 3, "nvidia.com/gpu", 12},
		{"gke/a100-pool", "gke", "a100-40gb", 2, "nvidia.com/gpu", 16},
		{"gke/a100-mig-pool", "gke", "a100-40gb", 1, "nvidia.com/gpu", 24},
		{"gke/l4-shared-pool", "gke", "l4", 1, "nvidia.com/gpu", 4},
		{"gke-autopilot/nap-g2-standard-24-gpu2-abcd2", "gke-autopilot", "l4", 1, "nvidia.com/gpu", 2},
		{"generic/NVIDIA-H100-80GB-HBM3", "generic", "h100-80gb", 2, "nvidia.com/gpu", 16},
		{"generic/NVIDIA-H200", "generic", "h200", 1, "nvidia.com/gpu", 8},
		{"generic/Tesla-T4/time-slicing-4", "generic", "t4", 1, "nvidia.com/gpu.shared", 4},
		// GFD's "-SHARED" suffix (renameByDefault) is still the A10.
		{"generic/NVIDIA-A10-SHARED/time-slicing-4", "generic", "a10", 1, "nvidia.com/gpu", 8},
		{"generic/NVIDIA-A100-SXM4-40GB/mig-all-balanced", "generic", "a100-40gb", 1, "nvidia.com/mig-1g.5gb", 16},
		// The DRA pools: no extended resource at all.
		{"generic/NVIDIA-H100-80GB-HBM3/dra", "generic", "h100-80gb", 2, "nvidia.com/gpu", 0},
		{"generic/NVIDIA-H200/dra", "generic", "h200", 1, "nvidia.com/gpu", 0},
		{"generic/NVIDIA-A100-SXM4-40GB/mig-all-balanced/dra", "generic", "a100-40gb", 1, "nvidia.com/mig-1g.5gb", 0},
		// The topology pools (fixtures/topology.yaml): topology labels do
		// not split a pool.
		{"gke/h100-tas-pool", "gke", "h100-80gb", 8, "nvidia.com/gpu", 64},
		{"eks/gpu-p5-tas", "eks", "h100-80gb", 8, "nvidia.com/gpu", 64},
		{"generic/NVIDIA-GB200", "generic", "gb200", 8, "nvidia.com/gpu", 32},
		// The GPU network pools (fixtures/gpunetwork.yaml).
		{"gke/a3mega-pool", "gke", "h100-80gb", 4, "nvidia.com/gpu", 32},
		{"gke/a3ultra-pool", "gke", "h200", 2, "nvidia.com/gpu", 16},
		{"aks/ndh100", "aks", "h100-80gb", 4, "nvidia.com/gpu", 32},
	}
	for _, c := range cases {
		p := findCapacityPool(t, pools, c.key)
		if p.Cloud != c.cloud || p.Accelerator != c.accelerator || len(p.Nodes) != c.nodes {
			t.Errorf("%s: cloud %q accelerator %q nodes %d, want %q %q %d", c.key, p.Cloud, p.Accelerator, len(p.Nodes), c.cloud, c.accelerator, c.nodes)
		}
		if r := poolResource(p, c.resource); r.Allocatable != c.allocatable || r.Capacity != c.allocatable {
			t.Errorf("%s: %s %+v, want allocatable %d", c.key, c.resource, r, c.allocatable)
		}
	}
	if len(pools) != 27 {
		t.Errorf("want 27 GPU pools (CPU nodes excluded), got %d", len(pools))
	}
	for _, p := range pools {
		if dra := strings.HasSuffix(p.Key, "/dra"); dra != (p.DRADriver == DRADriver) || dra != (len(p.DRADevices) > 0) {
			t.Errorf("%s: DRA driver %q, devices %v", p.Key, p.DRADriver, p.DRADevices)
		}
	}
	for _, p := range pools {
		if strings.Contains(p.Key, "e2-standard") {
			t.Errorf("CPU node pool %s reported", p.Key)
		}
	}
}

func TestSummarizeCapacityState(t *testing.T) {
	pools := Summarize(rendertest.LoadFixtureNodes(t, "gke", "generic"), nil)
	if p := findCapacityPool(t, pools, "gke/a100-mig-pool"); p.MIGPartition != "2g.10gb" {
		t.Errorf("partition %q", p.MIGPartition)
	}
	if p := findCapacityPool(t, pools, "gke/l4-shared-pool"); p.Sharing != spec.SharingTimeSlicing || p.SharedClients != 4 {
		t.Errorf("gke sharing %q %d", p.Sharing, p.SharedClients)
	}
	p := findCapacityPool(t, pools, "generic/NVIDIA-A100-SXM4-40GB/mig-all-balanced")
	if p.MIGConfig != spec.PartitionAllBalanced || p.MIGStrategy != spec.MIGStrategyMixed || len(p.Resources) != 3 {
		t.Errorf("mig state %q %q %v", p.MIGConfig, p.MIGStrategy, p.Resources)
	}
	want := []corev1.Taint{{Key: "nvidia.com/gpu", Effect: corev1.TaintEffectNoSchedule}}
	if !reflect.DeepEqual(p.Taints, want) {
		t.Errorf("taints %v", p.Taints)
	}
}

func capacityPod(name, node string, phase corev1.PodPhase, limits map[string]int64, edit func(*corev1.PodSpec)) corev1.Pod {
	c := corev1.Container{Name: "main", Resources: corev1.ResourceRequirements{Limits: gpuQuantities(limits)}}
	p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{c}},
		Status: corev1.PodStatus{Phase: phase}}
	if edit != nil {
		edit(&p.Spec)
	}
	return p
}

func gpuQuantities(m map[string]int64) corev1.ResourceList {
	out := corev1.ResourceList{}
	for k, v := range m {
		out[corev1.ResourceName(k)] = *resource.NewQuantity(v, resource.DecimalSI)
	}
	return out
}

func TestSummarizeCapacityRequests(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	pods := []corev1.Pod{
		capacityPod("limits-only", "karpenter-g6-0", corev1.PodRunning, map[string]int64{"nvidia.com/gpu": 2, "cpu": 4}, nil),
		// Effective request max(container 1, init 3) = 3.
		capacityPod("init-peak", "karpenter-g6-1", corev1.PodPending, map[string]int64{"nvidia.com/gpu": 1}, func(s *corev1.PodSpec) {
			s.InitContainers = []corev1.Container{{Name: "warm", Resources: corev1.ResourceRequirements{Limits: gpuQuantities(map[string]int64{"nvidia.com/gpu": 3})}}}
		}),
		// A sidecar adds to the containers: 1 + 1.
		capacityPod("sidecar", "karpenter-g6-2", corev1.PodRunning, map[string]int64{"nvidia.com/gpu": 1}, func(s *corev1.PodSpec) {
			s.InitContainers = []corev1.Container{{Name: "side", RestartPolicy: &always,
				Resources: corev1.ResourceRequirements{Requests: gpuQuantities(map[string]int64{"nvidia.com/gpu": 1}), Limits: gpuQuantities(map[string]int64{"nvidia.com/gpu": 1})}}}
		}),
		capacityPod("finished", "karpenter-g6-0", corev1.PodSucceeded, map[string]int64{"nvidia.com/gpu": 2}, nil),
		capacityPod("failed", "karpenter-g6-0", corev1.PodFailed, map[string]int64{"nvidia.com/gpu": 2}, nil),
		capacityPod("unscheduled", "", corev1.PodPending, map[string]int64{"nvidia.com/gpu": 4}, nil),
		capacityPod("elsewhere", "cpu-pool-0", corev1.PodRunning, map[string]int64{"nvidia.com/gpu": 1}, nil),
	}
	nodes := rendertest.LoadFixtureNodes(t, "karpenter", "cpu")
	pools := Summarize(nodes, pods)
	// Pods added one at a time, as the provider does while paging through
	// a large cluster's pods, give the same pools.
	requested := Requests{}
	for i := range pods {
		requested.Add(&pods[i])
	}
	if got := SummarizeRequests(nodes, requested); !reflect.DeepEqual(got, pools) {
		t.Errorf("SummarizeRequests differs from Summarize:\n got %+v\nwant %+v", got, pools)
	}
	if len(pools) != 1 {
		t.Fatalf("want only the Karpenter pool, got %d", len(pools))
	}
	if r := poolResource(pools[0], "nvidia.com/gpu"); r.Requested != 7 || r.Free() != 5 {
		t.Errorf("requested %d free %d, want 7 and 5", r.Requested, r.Free())
	}
	perNode := map[string]int64{}
	for _, n := range pools[0].Nodes {
		perNode[n.Name] = n.Resources[0].Requested
	}
	if want := map[string]int64{"karpenter-g6-0": 2, "karpenter-g6-1": 3, "karpenter-g6-2": 2}; !reflect.DeepEqual(perNode, want) {
		t.Errorf("per node %v, want %v", perNode, want)
	}
}

func TestSummarizeCapacityIsDeterministic(t *testing.T) {
	nodes := rendertest.LoadFixtureNodes(t)
	first := Summarize(nodes, nil)
	reversed := slices.Clone(nodes)
	slices.Reverse(reversed)
	if !reflect.DeepEqual(first, Summarize(reversed, nil)) {
		t.Fatal("node order changes the summary")
	}
}

func TestSummarizeCapacityKeepsGPUNodesWithoutResources(t *testing.T) {
	n := corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "new", Labels: map[string]string{
		clouds.GKELabelAccelerator: "nvidia-l4", clouds.GKELabelNodePool: "l4"}}}
	pools := Summarize([]corev1.Node{n, {ObjectMeta: metav1.ObjectMeta{Name: "bare"}}}, nil)
	if len(pools) != 1 || pools[0].Key != "gke/l4" || len(pools[0].Resources) != 0 {
		t.Fatalf("got %+v", pools)
	}
	m := MatchingPools(pools, nil, nil, nil, "nvidia.com/gpu")[0]
	if m.Fits || !slices.Contains(m.Reasons, "1/1 nodes: node advertises no nvidia.com/gpu") {
		t.Fatalf("got %+v", m)
	}
}
