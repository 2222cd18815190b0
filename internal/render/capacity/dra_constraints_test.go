package capacity

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	resourcev1 "k8s.io/api/resource/v1"
	dracel "k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/utils/ptr"

	"github.com/gpuform/terraform-provider-gpu/internal/render/dra"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// The local cluster's H100 nodes have one GPU per PCIe root and four per
// NUMA node (scripts/localcluster/dra.sh). pairedRoots gives the nodes
// named two GPUs per PCIe root (rendertest.TwoGPUsPerPCIeRoot).
func pairedRoots(t *testing.T, nodes ...string) []resourcev1.ResourceSlice {
	t.Helper()
	published := fixtureSlices(t)
	for _, s := range published {
		if s.Spec.NodeName != nil && slices.Contains(nodes, *s.Spec.NodeName) {
			rendertest.TwoGPUsPerPCIeRoot(t, s.Spec.Devices)
		}
	}
	return published
}

// constrainedMatches judges the fixture pools, their slices given, for the
// claim gpu_workload derives for count H100s sharing same, the pod
// tolerating the GPU taint and selecting nodeSelector.
func constrainedMatches(t *testing.T, published []resourcev1.ResourceSlice, count int64, same string, nodeSelector map[string]string,
	claims ...resourcev1.ResourceClaim) map[string]PoolMatch {
	t.Helper()
	in := NewDRAInputs()
	for i := range published {
		in.AddSlice(&published[i])
	}
	for i := range claims {
		in.AddClaim(&claims[i])
	}
	requests := derivedRequests(t, dra.Request{Count: count, Same: same}, "h100-80gb")
	pools := SummarizeDRA(rendertest.LoadFixtureNodes(t, "dra", "generic"), nil, in)
	out := map[string]PoolMatch{}
	for _, m := range MatchingDRAPools(pools, nodeSelector, nil, tolerateGPUTaint, requests, fixtureClasses, in) {
		out[m.Pool] = m
	}
	return out
}

// The defect of issue #41: four H100s on one PCIe root, on nodes of eight
// with two per root. Every GPU is free and a node has eight, yet no PCIe
// root holds four: the pool does not fit, and its line says why.
func TestMatchingDRAPoolsNoPCIeRootHoldsTheClaim(t *testing.T) {
	got := constrainedMatches(t, pairedRoots(t, "dra-h100-0", "dra-h100-1"), 4, spec.DRASamePCIeRoot, nil)[h100Pool]
	want := "16 matching devices published (NVIDIA H100 80GB HBM3), 16 free, at most 8 free on one node, " +
		"at most 2 free on one PCIe root: no PCIe root holds 4 matching devices, and the claim asks for 4 of one PCIe root"
	if got.Fits || DescribeDRA(got) != want {
		t.Errorf("fits %v:\n got %s\nwant %s", got.Fits, DescribeDRA(got), want)
	}
	d := got.DRA[0]
	if d.MaxFreeSame != 2 || d.MaxSame != 2 || !reflect.DeepEqual(d.Same, []string{dra.AttrPCIeRoot}) {
		t.Errorf("most on one PCIe root %d (free %d), same %v; want 2 (2) on %s", d.MaxSame, d.MaxFreeSame, d.Same, dra.AttrPCIeRoot)
	}
}

// The same claim for two: a PCIe root gives two, so the pool fits, and
// the line says how many one root gives.
func TestMatchingDRAPoolsPCIeRootHoldsTheClaim(t *testing.T) {
	got := constrainedMatches(t, pairedRoots(t, "dra-h100-0", "dra-h100-1"), 2, spec.DRASamePCIeRoot, nil)[h100Pool]
	want := "16 matching devices published (NVIDIA H100 80GB HBM3), 16 free, at most 8 free on one node, at most 2 free on one PCIe root"
	if !got.Fits || DescribeDRA(got) != want {
		t.Errorf("fits %v:\n got %s\nwant %s", got.Fits, DescribeDRA(got), want)
	}
}

// Two per root, one of each pair held by other claims: eight GPUs are
// free, four on each node, but no root has two free. The roots could give
// two once the others finish, so the line says free, not "holds".
func TestMatchingDRAPoolsPCIeRootsHalfTaken(t *testing.T) {
	claims := []resourcev1.ResourceClaim{
		allocatedClaim("a", "dra-h100-0", "gpu-0", "gpu-2", "gpu-4", "gpu-6"),
		allocatedClaim("b", "dra-h100-1", "gpu-1", "gpu-3", "gpu-5", "gpu-7"),
	}
	got := constrainedMatches(t, pairedRoots(t, "dra-h100-0", "dra-h100-1"), 2, spec.DRASamePCIeRoot, nil, claims...)[h100Pool]
	want := "16 matching devices published (NVIDIA H100 80GB HBM3), 8 free, at most 4 free on one node, " +
		"at most 1 free on one PCIe root and the claim asks for 2 of one PCIe root"
	if got.Fits || DescribeDRA(got) != want {
		t.Errorf("fits %v:\n got %s\nwant %s", got.Fits, DescribeDRA(got), want)
	}
	// Four would not fit even with every GPU free: both are said.
	got = constrainedMatches(t, pairedRoots(t, "dra-h100-0", "dra-h100-1"), 4, spec.DRASamePCIeRoot, nil, claims...)[h100Pool]
	want = "at most 1 free on one PCIe root: no PCIe root holds 4 matching devices (at most 2 on one, free or not), " +
		"and the claim asks for 4 of one PCIe root"
	if got.Fits || !strings.HasSuffix(DescribeDRA(got), want) {
		t.Errorf("four: fits %v: %s", got.Fits, DescribeDRA(got))
	}
}

// On the local cluster's own layout (one GPU per root, four per NUMA
// node): one root never gives two; one NUMA node gives four, not five.
func TestMatchingDRAPoolsFixtureLayout(t *testing.T) {
	cases := []struct {
		count int64
		same  string
		fits  bool
		tail  string
	}{
		{2, spec.DRASamePCIeRoot, false, "at most 1 free on one PCIe root: no PCIe root holds 2 matching devices, and the claim asks for 2 of one PCIe root"},
		{1, spec.DRASamePCIeRoot, true, "at most 8 free on one node, at most 1 free on one PCIe root"},
		{4, spec.DRASameNUMANode, true, "at most 8 free on one node, at most 4 free on one NUMA node"},
		{5, spec.DRASameNUMANode, false, "no NUMA node holds 5 matching devices, and the claim asks for 5 of one NUMA node"},
	}
	for _, c := range cases {
		got := constrainedMatches(t, fixtureSlices(t), c.count, c.same, nil)[h100Pool]
		if got.Fits != c.fits || !strings.HasSuffix(DescribeDRA(got), c.tail) {
			t.Errorf("%d sharing %s: fits %v, want %v: %s", c.count, c.same, got.Fits, c.fits, DescribeDRA(got))
		}
	}
}

// Only the nodes the pod may use count: with two per root on dra-h100-0
// alone and the pod held to dra-h100-1, one root gives one.
func TestMatchingDRAPoolsSharedCountsAdmittedNodesOnly(t *testing.T) {
	published := pairedRoots(t, "dra-h100-0")
	onOne := map[string]string{"kubernetes.io/hostname": "dra-h100-1"}
	if d := constrainedMatches(t, published, 2, spec.DRASamePCIeRoot, onOne)[h100Pool].DRA[0]; d.MaxFreeSame != 1 {
		t.Errorf("held to dra-h100-1: %d free on one root, want 1", d.MaxFreeSame)
	}
	if d := constrainedMatches(t, published, 2, spec.DRASamePCIeRoot, nil)[h100Pool].DRA[0]; d.MaxFreeSame != 2 {
		t.Errorf("both nodes: %d free on one root, want 2", d.MaxFreeSame)
	}
}

// A driver that does not publish the attribute (numaNode up to v0.4.x)
// can never satisfy the constraint: the line says the attribute is
// missing, not that a NUMA node holds too few.
func TestMatchingDRAPoolsAttributeNotPublished(t *testing.T) {
	published := fixtureSlices(t)
	for _, s := range published {
		for _, d := range s.Spec.Devices {
			delete(d.Attributes, dra.AttrNUMANode)
		}
	}
	got := constrainedMatches(t, published, 1, spec.DRASameNUMANode, nil)[h100Pool]
	want := ", but no matching device on those nodes publishes resource.kubernetes.io/numaNode, which the claim's " +
		"matchAttribute constraint needs (a device without it is never allocated to the claim)"
	if got.Fits || !strings.HasSuffix(DescribeDRA(got), want) {
		t.Errorf("fits %v: %s", got.Fits, DescribeDRA(got))
	}
}

// A claim without constraints is judged per node, as before.
func TestMatchingDRAPoolsWithoutConstraint(t *testing.T) {
	got := constrainedMatches(t, pairedRoots(t, "dra-h100-0", "dra-h100-1"), 4, "", nil)[h100Pool]
	want := "16 matching devices published (NVIDIA H100 80GB HBM3), 16 free, at most 8 free on one node"
	if !got.Fits || DescribeDRA(got) != want || got.DRA[0].Same != nil {
		t.Errorf("fits %v same %v: %s", got.Fits, got.DRA[0].Same, DescribeDRA(got))
	}
}

// The constraints bind the requests DeviceConstraint.Requests names: none
// named binds all, the request binds every firstAvailable entry, and
// "<request>/<entry>" that entry alone.
func TestDRARequestsBindConstraints(t *testing.T) {
	root := resourcev1.FullyQualifiedName(dra.AttrPCIeRoot)
	numa := resourcev1.FullyQualifiedName(dra.AttrNUMANode)
	claim := func(constraints ...resourcev1.DeviceConstraint) resourcev1.ResourceClaimSpec {
		return resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{
			Requests: []resourcev1.DeviceRequest{{Name: "gpu", FirstAvailable: []resourcev1.DeviceSubRequest{
				{Name: "h200", DeviceClassName: dra.ClassGPU, Count: 4}, {Name: "h100", DeviceClassName: dra.ClassGPU, Count: 4}}}},
			Constraints: constraints,
		}}
	}
	cases := map[string]struct {
		spec       resourcev1.ResourceClaimSpec
		h200, h100 []string
	}{
		"no constraint":       {claim(), nil, nil},
		"every request":       {claim(resourcev1.DeviceConstraint{MatchAttribute: &root}), []string{dra.AttrPCIeRoot}, []string{dra.AttrPCIeRoot}},
		"the request":         {claim(resourcev1.DeviceConstraint{Requests: []string{"gpu"}, MatchAttribute: &root}), []string{dra.AttrPCIeRoot}, []string{dra.AttrPCIeRoot}},
		"one entry":           {claim(resourcev1.DeviceConstraint{Requests: []string{"gpu/h100"}, MatchAttribute: &root}), nil, []string{dra.AttrPCIeRoot}},
		"another request":     {claim(resourcev1.DeviceConstraint{Requests: []string{"nic"}, MatchAttribute: &root}), nil, nil},
		"two attributes":      {claim(resourcev1.DeviceConstraint{MatchAttribute: &root}, resourcev1.DeviceConstraint{MatchAttribute: &numa}), []string{dra.AttrPCIeRoot, dra.AttrNUMANode}, []string{dra.AttrPCIeRoot, dra.AttrNUMANode}},
		"the same one, twice": {claim(resourcev1.DeviceConstraint{MatchAttribute: &root}, resourcev1.DeviceConstraint{Requests: []string{"gpu"}, MatchAttribute: &root}), []string{dra.AttrPCIeRoot}, []string{dra.AttrPCIeRoot}},
	}
	for name, c := range cases {
		got := DRARequestsV1(c.spec)
		if len(got) != 2 || !reflect.DeepEqual(got[0].MatchAttributes, c.h200) || !reflect.DeepEqual(got[1].MatchAttributes, c.h100) {
			t.Errorf("%s: %+v", name, got)
		}
	}
}

// The claim's description names the constraint, and says what is not
// counted.
func TestDescribeDRARequest(t *testing.T) {
	cases := []struct {
		request DRARequest
		want    string
	}{
		{DRARequest{Class: dra.ClassGPU, Count: 4}, "4 device(s) of class gpu.nvidia.com, all of one node"},
		{DRARequest{Class: dra.ClassGPU, Count: 4, MatchAttributes: []string{dra.AttrPCIeRoot}},
			"4 device(s) of class gpu.nvidia.com, all of one node and of one PCIe root (matchAttribute resource.kubernetes.io/pcieRoot)"},
		{DRARequest{Class: dra.ClassGPU, Count: 2, MatchAttributes: []string{"example.com/rack"}},
			"2 device(s) of class gpu.nvidia.com, all of one node and of one value of example.com/rack (matchAttribute example.com/rack)"},
		{DRARequest{Class: dra.ClassGPU, Count: 2, DistinctAttributes: []string{dra.AttrPCIeRoot}},
			"2 device(s) of class gpu.nvidia.com, all of one node; its distinctAttribute constraint on resource.kubernetes.io/pcieRoot " +
				"is not counted below, so the free devices counted are an upper bound"},
	}
	for _, c := range cases {
		if got := DescribeDRARequest(c.request); got != c.want {
			t.Errorf("%+v:\n got %s\nwant %s", c.request, got, c.want)
		}
	}
	claim := dra.BuildClaim(dra.Request{Count: 4, Same: spec.DRASamePCIeRoot})
	if got := DescribeDRARequest(DRARequestsV1beta1(claim.V1beta1())[0]); !strings.Contains(got, "of one PCIe root") {
		t.Errorf("the v1beta1 claim's description lost the constraint: %s", got)
	}
}

// Values are compared by type and value, as the allocator does; an
// attribute of the driver's domain is found by its bare name; a list can
// share any of its elements.
func TestAttributeValues(t *testing.T) {
	device := DRADevice{Device: draDevice(map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{
		"productName":          {StringValue: ptr.To(h100)},
		"example.com/index":    {IntValue: ptr.To[int64](1)},
		"example.com/label":    {StringValue: ptr.To("1")},
		"example.com/numaList": {IntValues: []int64{0, 1, 1}},
	})}
	cases := map[string][]string{
		"gpu.nvidia.com/productName":  {"s:" + h100},
		"example.com/productName":     nil, // another domain: not the driver's bare name
		"example.com/index":           {"i:1"},
		"example.com/label":           {"s:1"},
		"example.com/numaList":        {"i:0", "i:1"},
		"resource.kubernetes.io/none": nil,
	}
	for name, want := range cases {
		if got := attributeValues(device, name); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
	if keys := sharedKeys(device, []string{"example.com/index", "example.com/numaList"}); len(keys) != 2 {
		t.Errorf("an int and a list of two: %d groups, want 2", len(keys))
	}
	if keys := sharedKeys(device, []string{"example.com/index", "example.com/none"}); len(keys) != 0 {
		t.Errorf("a missing attribute: %d groups, want none", len(keys))
	}
}

// The tally counts a device in every group it could share, free or not.
func TestSharedTally(t *testing.T) {
	tally := newSharedTally([]string{dra.AttrPCIeRoot})
	for i, root := range []string{"pci0000:15", "pci0000:15", "pci0000:15", "pci0000:27", ""} {
		attrs := map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{}
		if root != "" {
			attrs[dra.AttrPCIeRoot] = resourcev1.DeviceAttribute{StringValue: ptr.To(root)}
		}
		tally.add(DRADevice{Allocated: i == 0, Device: draDevice(attrs)})
	}
	if all, free := tally.most(); all != 3 || free != 2 || tally.unattributed != 1 {
		t.Errorf("most %d, free %d, unattributed %d; want 3, 2, 1", all, free, tally.unattributed)
	}
}

// draDevice is a device of the driver with these attributes.
func draDevice(attributes map[resourcev1.QualifiedName]resourcev1.DeviceAttribute) dracel.Device {
	return dracel.Device{Driver: DRADriver, Attributes: attributes}
}
