package dra

import (
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kueuever"
	"github.com/gpuform/terraform-provider-gpu/internal/render/names"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
)

// TestPoolDeviceClassesAreValid: for every model and profile, and the
// longest pool name, the class name is a valid DeviceClass name and every
// selector compiles, names only what the driver publishes and lets the
// pool's own devices through.
func TestPoolDeviceClassesAreValid(t *testing.T) {
	longest := "p123456789012345678901234567890123456789012345678901234567890ab"
	for i := range catalog.Table {
		a := &catalog.Table[i]
		pools := []Pool{{Name: longest, Accelerator: a}}
		for j := range a.MIGProfiles {
			pools = append(pools, Pool{Name: "mig", Accelerator: a, Partition: &a.MIGProfiles[j]})
		}
		for _, p := range pools {
			class, diags := PoolDeviceClass(p)
			rendertest.RequireNoErrors(t, diags)
			if msgs := names.DNS1123Subdomain(class.Name); len(msgs) > 0 {
				t.Errorf("%s: %q: %v", a.Name, class.Name, msgs)
			}
			typed := ClassGPU
			if p.Partition != nil {
				typed = ClassMIG
			}
			target := Target{Class: typed, Accelerators: []*catalog.Accelerator{a}, Partition: p.Partition}
			for _, s := range class.Spec.Selectors {
				if diags := CheckSelectors(nil, []string{s.CEL.Expression}, target); len(diags) > 0 {
					t.Errorf("%s: %s: %v", a.Name, s.CEL.Expression, diags)
				}
			}
			if (len(diags) > 0) != (len(a.DriverProducts) == 0) {
				t.Errorf("%s: warnings %v; want one exactly when no driver product is recorded", a.Name, diags)
			}
		}
	}
}

func TestPoolDeviceClassWithoutAcceleratorIsAnError(t *testing.T) {
	class, diags := PoolDeviceClass(Pool{Name: "x"})
	if class != nil || !diags.HasError() {
		t.Errorf("got %v, %v", class, diags)
	}
}

// TestPoolClaimIsWhatKueueCounts: a claim naming a pool's class has no
// selector, constraint or preference list.
func TestPoolClaimIsWhatKueueCounts(t *testing.T) {
	c := PoolClaim("h100", 0)
	if refusal, _ := c.KueueRefusal(kueuever.Oldest); refusal != "" || c.Exactly == nil || c.Exactly.Count != 1 || c.Exactly.DeviceClass != "h100.gpu.gpuform.io" {
		t.Errorf("%+v: %q", c, refusal)
	}
}

// TestNilAcceleratorsDoNotPanic: a list with an unresolved entry builds
// and checks without it.
func TestNilAcceleratorsDoNotPanic(t *testing.T) {
	r := Request{Count: 1, Accelerators: []*catalog.Accelerator{nil, catalog.Find("h200")}}
	BuildClaim(r)
	CheckSelectors(nil, []string{"true"}, TargetOf(r))
}
