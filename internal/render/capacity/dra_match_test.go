package capacity

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/dra"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// The local cluster's DeviceClasses (scripts/localcluster/dra/deviceclasses.yaml).
var fixtureClasses = map[string][]string{
	dra.ClassGPU: {`device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'`},
	dra.ClassMIG: {`device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'`},
}

// tolerateGPUTaint admits every DRA fixture node.
var tolerateGPUTaint = []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists}}

// derivedRequests are the requests of the claim gpu_workload derives.
func derivedRequests(t *testing.T, r dra.Request, accelerators ...string) []DRARequest {
	t.Helper()
	for _, name := range accelerators {
		a := catalog.Find(name)
		if a == nil {
			t.Fatalf("no accelerator %q", name)
		}
		r.Accelerators = append(r.Accelerators, a)
	}
	return DRARequestsV1(dra.BuildClaim(r).V1())
}

// draMatches judges the DRA fixture pools and returns them by key.
func draMatches(t *testing.T, requests []DRARequest, classes map[string][]string, claims ...resourcev1.ResourceClaim) map[string]PoolMatch {
	t.Helper()
	pools := SummarizeDRA(rendertest.LoadFixtureNodes(t, "dra", "generic"), nil, fixtureDRAInputs(t, claims...))
	out := map[string]PoolMatch{}
	for _, m := range MatchingDRAPools(pools, nil, nil, tolerateGPUTaint, requests, classes, fixtureDRAInputs(t, claims...)) {
		out[m.Pool] = m
	}
	return out
}

const (
	h100Pool = "generic/NVIDIA-H100-80GB-HBM3/dra"
	h200Pool = "generic/NVIDIA-H200/dra"
	migPool  = "generic/NVIDIA-A100-SXM4-40GB/mig-all-balanced/dra"
)

// Nine H100s: sixteen are published, but a claim's devices come from one
// node, and with three taken on one node and two on the other, at most
// six are free together.
func TestMatchingDRAPoolsMoreThanOneNodeHas(t *testing.T) {
	requests := derivedRequests(t, dra.Request{Count: 9}, "h100-80gb")
	got := draMatches(t, requests, fixtureClasses,
		allocatedClaim("a", "dra-h100-0", "gpu-0", "gpu-1", "gpu-2"), allocatedClaim("b", "dra-h100-1", "gpu-0", "gpu-1"))
	h := got[h100Pool]
	want := "16 matching devices published (NVIDIA H100 80GB HBM3), 11 free, at most 6 free on one node and the claim asks for 9 of one node"
	if h.Fits || DescribeDRA(h) != want {
		t.Errorf("H100 pool fits %v:\n got %s\nwant %s", h.Fits, DescribeDRA(h), want)
	}
	if d := DescribeDRA(got[h200Pool]); d != "none of its 8 published devices matches the claim" {
		t.Errorf("H200 pool: %s", d)
	}
	if m := got["generic/NVIDIA-H100-80GB-HBM3"]; m.Fits || m.DRA != nil {
		t.Errorf("the device plugin's H100 pool cannot serve a claim: %+v", m)
	}
}

func TestMatchingDRAPoolsFits(t *testing.T) {
	got := draMatches(t, derivedRequests(t, dra.Request{Count: 2}, "h100-80gb"), fixtureClasses)
	h := got[h100Pool]
	if want := "16 matching devices published (NVIDIA H100 80GB HBM3), 16 free, at most 8 free on one node"; !h.Fits || DescribeDRA(h) != want {
		t.Errorf("fits %v: %s", h.Fits, DescribeDRA(h))
	}
}

// A MIG profile through the profile selector; without the cluster's
// DeviceClasses the driver's chart's classes are assumed.
func TestMatchingDRAPoolsMIGProfile(t *testing.T) {
	a := catalog.Find("a100-40gb")
	profile, ok := a.LookupMIGProfile("1g.5gb")
	if !ok {
		t.Fatal("no 1g.5gb profile")
	}
	requests := derivedRequests(t, dra.Request{Count: 3, Partition: &profile}, "a100-40gb")
	for _, classes := range []map[string][]string{fixtureClasses, nil} {
		m := draMatches(t, requests, classes, allocatedClaim("one", "dra-a100-mig-0", "gpu-0-mig-1g5gb-19-2"))[migPool]
		if want := "15 free, at most 15 free on one node"; !m.Fits || m.DRA[0].Matching != 16 || !strings.HasSuffix(DescribeDRA(m), want) {
			t.Errorf("classes %v: fits %v %s", classes != nil, m.Fits, DescribeDRA(m))
		}
	}
}

// A preference list is judged per entry, in order.
func TestMatchingDRAPoolsPreferenceList(t *testing.T) {
	got := draMatches(t, derivedRequests(t, dra.Request{Count: 8}, "h200", "h100-80gb"), fixtureClasses,
		allocatedClaim("all", "dra-h200-0", "gpu-0"))
	want := "request h200: 8 matching devices published (NVIDIA H200), 7 free, at most 7 free on one node and the claim asks " +
		"for 8 of one node; request h100-80gb: none of its 8 published devices matches the claim"
	if h := got[h200Pool]; h.Fits || DescribeDRA(h) != want {
		t.Errorf("H200 pool fits %v:\n got %s\nwant %s", h.Fits, DescribeDRA(h), want)
	}
	if h := got[h100Pool]; !h.Fits {
		t.Errorf("the H100 pool can take the second entry: %s", DescribeDRA(h))
	}
}

// What the scheduler would refuse is said, not counted as no match.
func TestMatchingDRAPoolsUnknownClassAndBadSelector(t *testing.T) {
	cases := []struct {
		request DRARequest
		classes map[string][]string
		want    string
	}{
		{DRARequest{Class: "pool-a", Count: 1}, fixtureClasses, `cannot tell which devices match: the cluster has no DeviceClass "pool-a"`},
		{DRARequest{Class: "pool-a", Count: 1}, nil, `cannot tell which devices match: the DeviceClass "pool-a" could not be read`},
		{DRARequest{Class: dra.ClassGPU, Count: 1, Selectors: []string{`device.attributes["gpu.nvidia.com"].nope == "x"`}}, fixtureClasses,
			`cannot tell which devices match: selector "device.attributes[\"gpu.nvidia.com\"].nope == \"x\"" fails on device gpu-0 of dra-h100-0: `},
		{DRARequest{Class: dra.ClassGPU, Count: 1, Selectors: []string{`device.`}}, fixtureClasses, `does not compile`},
	}
	for _, c := range cases {
		m := draMatches(t, []DRARequest{c.request}, c.classes)[h100Pool]
		if m.Fits || !strings.Contains(DescribeDRA(m), c.want) {
			t.Errorf("%+v: fits %v %s", c.request, m.Fits, DescribeDRA(m))
		}
	}
}

// Placement first: a pool whose nodes the pod may not use has no "at most
// on one node", and its reasons are the placement's.
func TestMatchingDRAPoolsPlacement(t *testing.T) {
	pools := SummarizeDRA(rendertest.LoadFixtureNodes(t, "dra"), nil, fixtureDRAInputs(t))
	requests := derivedRequests(t, dra.Request{Count: 1}, "h100-80gb")
	for _, m := range MatchingDRAPools(pools, nil, nil, nil, requests, fixtureClasses, fixtureDRAInputs(t)) {
		if m.Pool != h100Pool {
			continue
		}
		if m.Fits || len(m.Reasons) == 0 || DescribeDRA(m) != "16 matching devices published (NVIDIA H100 80GB HBM3), 16 free" {
			t.Errorf("untolerated taint: fits %v reasons %v %s", m.Fits, m.Reasons, DescribeDRA(m))
		}
	}
}

// A pod asking for nvidia.com/gpu is told why a DRA pool cannot take it.
func TestMatchingPoolsExtendedResourceOnDRANodes(t *testing.T) {
	pools := SummarizeDRA(rendertest.LoadFixtureNodes(t, "dra"), nil, fixtureDRAInputs(t))
	for _, m := range MatchingPools(pools, nil, nil, tolerateGPUTaint, "nvidia.com/gpu") {
		if m.Pool == h100Pool && (m.Fits || len(m.Reasons) != 1 ||
			m.Reasons[0] != "2/2 nodes: node advertises no nvidia.com/gpu: its GPUs are DRA devices, which only a claim gets") {
			t.Errorf("fits %v reasons %v", m.Fits, m.Reasons)
		}
	}
}

// A 1.32–1.33 server gets the claim in v1beta1; reading it back must give
// the requests the v1 claim gives, or a pending workload's explanation
// would describe another claim than the one it made.
func TestDRARequestsSameInBothAPIVersions(t *testing.T) {
	h100, h200 := catalog.Find("h100-80gb"), catalog.Find("h200")
	if h100 == nil || h200 == nil {
		t.Fatal("catalog lacks h100-80gb or h200")
	}
	cases := map[string]dra.Request{
		"any GPU":         {Count: 1},
		"one model":       {Count: 2, Accelerators: []*catalog.Accelerator{h100}},
		"preference list": {Count: 8, Accelerators: []*catalog.Accelerator{h100, h200}},
		"user selectors":  {Count: 1, Selectors: []string{`device.attributes['gpu.nvidia.com'].productName == 'X'`}},
		"same PCIe root":  {Count: 4, Accelerators: []*catalog.Accelerator{h100}, Same: spec.DRASamePCIeRoot},
	}
	for name, r := range cases {
		t.Run(name, func(t *testing.T) {
			claim := dra.BuildClaim(r)
			v1, v1beta1 := DRARequestsV1(claim.V1()), DRARequestsV1beta1(claim.V1beta1())
			if len(v1) == 0 {
				t.Fatal("the v1 claim has no requests")
			}
			if !reflect.DeepEqual(v1, v1beta1) {
				t.Errorf("v1beta1 requests %+v, v1 requests %+v", v1beta1, v1)
			}
		})
	}
}
