package capacity

import (
	"reflect"
	"strings"
	"testing"

	resourcev1 "k8s.io/api/resource/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/dra"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// Device taints (DRADeviceTaints, in ResourceSlices from Kubernetes 1.36)
// and devices that share counters (DRAPartitionableDevices, the driver's
// dynamic MIG): neither is free for a claim of the provider's, and "why
// pending" names them (docs/design/dra-versions.md#4-device-taints-and-partitionable-devices).

// editedDRAInputs are the fixture slices with edit applied to each device
// of the named pool (a node's pool is named after the node).
func editedDRAInputs(t *testing.T, pool string, edit func(*resourcev1.Device), claims ...resourcev1.ResourceClaim) *DRAInputs {
	t.Helper()
	in := NewDRAInputs()
	for _, s := range fixtureSlices(t) {
		if s.Spec.Pool.Name == pool {
			s.Spec.Devices = append([]resourcev1.Device(nil), s.Spec.Devices...)
			for i := range s.Spec.Devices {
				edit(&s.Spec.Devices[i])
			}
		}
		in.AddSlice(&s)
	}
	for i := range claims {
		in.AddClaim(&claims[i])
	}
	return in
}

// taintDevices taints the named devices with effect.
func taintDevices(effect resourcev1.DeviceTaintEffect, names ...string) func(*resourcev1.Device) {
	return func(d *resourcev1.Device) {
		for _, n := range names {
			if d.Name == n {
				d.Taints = append(d.Taints, resourcev1.DeviceTaint{Key: "gpu.nvidia.com/xid", Value: "79", Effect: effect})
			}
		}
	}
}

func TestTaintedDevicesAreNotFree(t *testing.T) {
	// gpu-0 allocated and tainted counts as allocated; gpu-1 and gpu-2
	// tainted NoExecute/NoSchedule are not free; gpu-3's None taint is
	// only information.
	edit := func(d *resourcev1.Device) {
		taintDevices(resourcev1.DeviceTaintEffectNoExecute, "gpu-0", "gpu-1")(d)
		taintDevices(resourcev1.DeviceTaintEffectNoSchedule, "gpu-2")(d)
		taintDevices(resourcev1.DeviceTaintEffectNone, "gpu-3")(d)
	}
	in := editedDRAInputs(t, "dra-h100-0", edit, allocatedClaim("a", "dra-h100-0", "gpu-0"))
	pools := SummarizeDRA(rendertest.LoadFixtureNodes(t, "dra"), nil, in)
	h := findCapacityPool(t, pools, h100Pool)
	want := []spec.DRADeviceCount{{Product: h100, Type: "gpu", Published: 16, Allocated: 1, Tainted: 2}}
	if !reflect.DeepEqual(h.DRADevices, want) {
		t.Fatalf("H100 pool %+v, want %+v", h.DRADevices, want)
	}
	if free := h.DRADevices[0].Free(); free != 13 {
		t.Errorf("free %d, want 13 (16 - 1 allocated - 2 tainted)", free)
	}
	if n := h.Nodes[0]; n.Name != "dra-h100-0" || n.DRADevices[0].Free() != 5 {
		t.Errorf("node %s: %+v, want 5 free", n.Name, n.DRADevices)
	}

	// Why pending: a claim for 6 of one node finds 5 on dra-h100-0 and 8 on
	// the other; for 9, none fits, and the tainted devices are named.
	requests := derivedRequests(t, dra.Request{Count: 9}, "h100-80gb")
	var m PoolMatch
	for _, pm := range MatchingDRAPools(pools, nil, nil, tolerateGPUTaint, requests, fixtureClasses, in) {
		if pm.Pool == h100Pool {
			m = pm
		}
	}
	got := DescribeDRA(m)
	for _, want := range []string{"13 free", "2 more tainted (NoSchedule or NoExecute; the claim has no toleration)",
		"gpu-1 of dra-h100-0 (gpu.nvidia.com/xid=79:NoExecute)", "gpu-2 of dra-h100-0 (gpu.nvidia.com/xid=79:NoSchedule)",
		"at most 8 free on one node"} {
		if !strings.Contains(got, want) {
			t.Errorf("why pending lacks %q:\n%s", want, got)
		}
	}
	if m.Fits || m.DRA[0].Tainted != 2 || m.DRA[0].Free != 13 {
		t.Errorf("match %+v", m.DRA[0])
	}
}

// A taint on every device of both nodes leaves nothing free, and the
// message names three and counts the rest.
func TestAllDevicesTainted(t *testing.T) {
	all := func(d *resourcev1.Device) { taintDevices(resourcev1.DeviceTaintEffectNoSchedule, d.Name)(d) }
	in := NewDRAInputs()
	for _, s := range fixtureSlices(t) {
		if strings.HasPrefix(s.Spec.Pool.Name, "dra-h100-") {
			s.Spec.Devices = append([]resourcev1.Device(nil), s.Spec.Devices...)
			for i := range s.Spec.Devices {
				all(&s.Spec.Devices[i])
			}
		}
		in.AddSlice(&s)
	}
	pools := SummarizeDRA(rendertest.LoadFixtureNodes(t, "dra"), nil, in)
	requests := derivedRequests(t, dra.Request{Count: 1}, "h100-80gb")
	for _, m := range MatchingDRAPools(pools, nil, nil, tolerateGPUTaint, requests, fixtureClasses, in) {
		if m.Pool != h100Pool {
			continue
		}
		got := DescribeDRA(m)
		if m.Fits || !strings.Contains(got, "0 free (16 more tainted") || !strings.Contains(got, "and 13 more") {
			t.Errorf("fits %v: %s", m.Fits, got)
		}
	}
}

// Devices that consume shared counters (dynamic MIG) are published but not
// free, and the message says why.
func TestPartitionableDevicesAreNotCountedFree(t *testing.T) {
	counters := func(d *resourcev1.Device) {
		d.ConsumesCounters = []resourcev1.DeviceCounterConsumption{{CounterSet: "gpu-0-counter-set"}}
	}
	in := editedDRAInputs(t, "dra-h100-1", counters)
	pools := SummarizeDRA(rendertest.LoadFixtureNodes(t, "dra"), nil, in)
	h := findCapacityPool(t, pools, h100Pool)
	if c := h.DRADevices[0]; c.Partitionable != 8 || c.Free() != 8 {
		t.Errorf("H100 pool %+v: want 8 partitionable, 8 free", c)
	}
	requests := derivedRequests(t, dra.Request{Count: 1}, "h100-80gb")
	for _, m := range MatchingDRAPools(pools, nil, nil, tolerateGPUTaint, requests, fixtureClasses, in) {
		if m.Pool == h100Pool && !strings.Contains(DescribeDRA(m), "8 more that share counters (partitionable devices") {
			t.Errorf("why pending: %s", DescribeDRA(m))
		}
	}
}

// DeviceTaintRules (resource.k8s.io/v1 from Kubernetes 1.37) taint the
// devices their selector names as a taint in the slice would: by pool and
// device, by pool alone, or every device for an empty selector; a rule of
// another driver or without a selector taints none.
func TestDeviceTaintRulesTaintTheDevicesTheySelect(t *testing.T) {
	rule := func(sel *resourcev1.DeviceTaintSelector, effect resourcev1.DeviceTaintEffect) *resourcev1.DeviceTaintRule {
		return &resourcev1.DeviceTaintRule{Spec: resourcev1.DeviceTaintRuleSpec{DeviceSelector: sel,
			Taint: resourcev1.DeviceTaint{Key: "example.com/maintenance", Effect: effect}}}
	}
	str := func(s string) *string { return &s }
	cases := []struct {
		name    string
		rules   []*resourcev1.DeviceTaintRule
		tainted int64
	}{
		{"one device", []*resourcev1.DeviceTaintRule{rule(&resourcev1.DeviceTaintSelector{Driver: str(DRADriver),
			Pool: str("dra-h100-0"), Device: str("gpu-3")}, resourcev1.DeviceTaintEffectNoSchedule)}, 1},
		{"a whole pool", []*resourcev1.DeviceTaintRule{rule(&resourcev1.DeviceTaintSelector{Pool: str("dra-h100-1")},
			resourcev1.DeviceTaintEffectNoExecute)}, 8},
		{"every device", []*resourcev1.DeviceTaintRule{rule(&resourcev1.DeviceTaintSelector{}, resourcev1.DeviceTaintEffectNoSchedule)}, 16},
		{"informational", []*resourcev1.DeviceTaintRule{rule(&resourcev1.DeviceTaintSelector{}, resourcev1.DeviceTaintEffectNone)}, 0},
		{"another driver", []*resourcev1.DeviceTaintRule{rule(&resourcev1.DeviceTaintSelector{Driver: str("example.com/other")},
			resourcev1.DeviceTaintEffectNoSchedule)}, 0},
		{"no selector", []*resourcev1.DeviceTaintRule{rule(nil, resourcev1.DeviceTaintEffectNoSchedule)}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := fixtureDRAInputs(t)
			for _, r := range c.rules {
				in.AddTaintRule(r)
			}
			pools := SummarizeDRA(rendertest.LoadFixtureNodes(t, "dra"), nil, in)
			h := findCapacityPool(t, pools, h100Pool)
			if got := h.DRADevices[0].Tainted; got != c.tainted {
				t.Errorf("tainted %d, want %d (%+v)", got, c.tainted, h.DRADevices[0])
			}
		})
	}
	// The slice's own taints stay beside the rule's.
	in := editedDRAInputs(t, "dra-h100-0", taintDevices(resourcev1.DeviceTaintEffectNoSchedule, "gpu-0"))
	in.AddTaintRule(rule(&resourcev1.DeviceTaintSelector{Pool: str("dra-h100-0"), Device: str("gpu-1")}, resourcev1.DeviceTaintEffectNoSchedule))
	h := findCapacityPool(t, SummarizeDRA(rendertest.LoadFixtureNodes(t, "dra"), nil, in), h100Pool)
	if got := h.DRADevices[0].Tainted; got != 2 {
		t.Errorf("slice taint and rule taint: tainted %d, want 2", got)
	}
}
