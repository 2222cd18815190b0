package capacity

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// fixtureSlices are the local cluster's DRA slices (testdata/dra-slices.yaml).
func fixtureSlices(t *testing.T) []resourcev1.ResourceSlice {
	t.Helper()
	return rendertest.LoadFixtureSlices(t)
}

func fixtureDRAInputs(t *testing.T, claims ...resourcev1.ResourceClaim) *DRAInputs {
	in := NewDRAInputs()
	for _, s := range fixtureSlices(t) {
		in.AddSlice(&s)
	}
	for i := range claims {
		in.AddClaim(&claims[i])
	}
	return in
}

// allocatedClaim is a claim the scheduler allocated the devices of a pool
// (the node's name) to.
func allocatedClaim(name, pool string, devices ...string) resourcev1.ResourceClaim {
	c := resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ml"}}
	c.Status.Allocation = &resourcev1.AllocationResult{}
	for _, d := range devices {
		c.Status.Allocation.Devices.Results = append(c.Status.Allocation.Devices.Results,
			resourcev1.DeviceRequestAllocationResult{Request: "gpu", Driver: DRADriver, Pool: pool, Device: d})
	}
	return c
}

const h100 = "NVIDIA H100 80GB HBM3"

func TestSummarizeDRACountsPublishedAllocatedFree(t *testing.T) {
	claims := []resourcev1.ResourceClaim{
		allocatedClaim("two", "dra-h100-0", "gpu-0", "gpu-1"),
		allocatedClaim("one", "dra-h100-1", "gpu-5"),
		allocatedClaim("mig", "dra-a100-mig-0", "gpu-0-mig-1g5gb-19-2", "gpu-3-mig-3g20gb-9-4"),
		// Another driver's device and a device no slice publishes (its
		// node was replaced) change nothing.
		{Status: resourcev1.ResourceClaimStatus{Allocation: &resourcev1.AllocationResult{Devices: resourcev1.DeviceAllocationResult{
			Results: []resourcev1.DeviceRequestAllocationResult{{Driver: "gpu.example.com", Pool: "dra-h100-0", Device: "gpu-2"}}}}}},
		allocatedClaim("gone", "dra-h100-0", "gpu-9"),
		// Not allocated yet.
		{ObjectMeta: metav1.ObjectMeta{Name: "pending"}},
	}
	pools := SummarizeDRA(rendertest.LoadFixtureNodes(t, "dra"), nil, fixtureDRAInputs(t, claims...))
	h := findCapacityPool(t, pools, "generic/NVIDIA-H100-80GB-HBM3/dra")
	if want := []spec.DRADeviceCount{{Product: h100, Type: "gpu", Published: 16, Allocated: 3}}; !reflect.DeepEqual(h.DRADevices, want) {
		t.Errorf("H100 pool %+v, want %+v", h.DRADevices, want)
	}
	if got := h.Nodes[0].DRADevices[0]; got.Allocated != 2 || got.Free() != 6 {
		t.Errorf("dra-h100-0: %+v, want 2 allocated and 6 free", got)
	}
	m := findCapacityPool(t, pools, "generic/NVIDIA-A100-SXM4-40GB/mig-all-balanced/dra")
	want := []spec.DRADeviceCount{
		{Product: "NVIDIA A100-SXM4-40GB", Type: "mig", Profile: "1g.5gb", Published: 16, Allocated: 1},
		{Product: "NVIDIA A100-SXM4-40GB", Type: "mig", Profile: "2g.10gb", Published: 8},
		{Product: "NVIDIA A100-SXM4-40GB", Type: "mig", Profile: "3g.20gb", Published: 8, Allocated: 1},
	}
	if !reflect.DeepEqual(m.DRADevices, want) {
		t.Errorf("MIG pool %+v, want %+v", m.DRADevices, want)
	}
	if m.DRADriver != DRADriver || m.MIGConfig != spec.PartitionAllBalanced {
		t.Errorf("MIG pool driver %q mig config %q", m.DRADriver, m.MIGConfig)
	}
}

// slice is a node's slice of generation gen with devices named names.
func slice(node string, gen int64, names ...string) *resourcev1.ResourceSlice {
	s := &resourcev1.ResourceSlice{Spec: resourcev1.ResourceSliceSpec{
		Driver: DRADriver, NodeName: ptr.To(node),
		Pool: resourcev1.ResourcePool{Name: node, Generation: gen, ResourceSliceCount: 1},
	}}
	for _, n := range names {
		s.Spec.Devices = append(s.Spec.Devices, resourcev1.Device{Name: n, Attributes: map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{
			"type": {StringValue: ptr.To("gpu")}, "productName": {StringValue: ptr.To(h100)}}})
	}
	return s
}

func TestDRAInputsKeepTheHighestGenerationOfAPool(t *testing.T) {
	in := NewDRAInputs()
	in.AddSlice(slice("n", 2, "gpu-0", "gpu-1"))
	in.AddSlice(slice("n", 1, "gpu-0", "gpu-1", "gpu-2", "gpu-3")) // being replaced
	in.AddSlice(slice("n", 2, "gpu-2"))                            // the pool's second slice
	in.AddSlice(slice("m", 1, "gpu-0"))
	in.AddSlice(slice("m", 3, "gpu-0", "gpu-1", "gpu-2"))
	other := slice("n", 5, "gpu-7")
	other.Spec.Driver = "gpu.example.com"
	in.AddSlice(other)
	network := slice("n", 9, "gpu-8")
	network.Spec.NodeName, network.Spec.AllNodes = nil, ptr.To(true)
	in.AddSlice(network)
	got := map[string]int{}
	for node, devices := range in.byNode() {
		got[node] = len(devices)
	}
	if want := map[string]int{"n": 3, "m": 3}; !reflect.DeepEqual(got, want) {
		t.Errorf("devices per node %v, want %v", got, want)
	}
}

// A node publishing an empty slice (the driver runs, its GPUs are not
// ready) is a DRA node with no devices; a node without GPU labels or
// resources that publishes devices is one too.
func TestSummarizeDRANodesWithoutDevicesOrLabels(t *testing.T) {
	in := NewDRAInputs()
	in.AddSlice(slice("empty", 1))
	in.AddSlice(slice("bare", 1, "gpu-0"))
	labelled := rendertest.LoadFixtureNodes(t, "dra")[0]
	labelled.Name = "empty"
	pools := SummarizeDRA([]corev1.Node{labelled, {ObjectMeta: metav1.ObjectMeta{Name: "bare"}}}, nil, in)
	keys := map[string]int{}
	for _, p := range pools {
		keys[p.Key] = len(p.DRADevices)
	}
	if want := map[string]int{"generic/NVIDIA-H100-80GB-HBM3/dra": 0, "node/bare/dra": 1}; !reflect.DeepEqual(keys, want) {
		t.Fatalf("pools and their device kinds %v, want %v", keys, want)
	}
}
