package dra

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kueuever"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

func model(t *testing.T, name string) *catalog.Accelerator {
	t.Helper()
	a := catalog.Find(name)
	if a == nil {
		t.Fatalf("no catalog entry %q", name)
	}
	return a
}

func profile(t *testing.T, a *catalog.Accelerator, name string) *catalog.MIGProfile {
	t.Helper()
	p, ok := a.LookupMIGProfile(name)
	if !ok {
		t.Fatalf("%s has no profile %q", a.Name, name)
	}
	return &p
}

// TestBuildClaimDerivesSelectors: count, accelerator, partition and
// min_memory become the class and selectors of one exactly request.
func TestBuildClaimDerivesSelectors(t *testing.T) {
	h100 := model(t, "h100-80gb")
	q := resource.MustParse("40Gi")
	for name, c := range map[string]struct {
		req  Request
		want Exact
	}{
		"any GPU":                 {Request{Count: 2}, Exact{DeviceClass: ClassGPU, Count: 2}},
		"zero count asks for one": {Request{}, Exact{DeviceClass: ClassGPU, Count: 1}},
		"accelerator": {Request{Count: 2, Accelerators: []*catalog.Accelerator{h100}}, Exact{DeviceClass: ClassGPU, Count: 2,
			Selectors: []string{`device.attributes["gpu.nvidia.com"].productName == "NVIDIA H100 80GB HBM3"`}}},
		"partition": {Request{Count: 3, Accelerators: []*catalog.Accelerator{h100}, Partition: profile(t, h100, "3g.40gb")},
			Exact{DeviceClass: ClassMIG, Count: 3, Selectors: []string{
				`device.attributes["gpu.nvidia.com"].productName == "NVIDIA H100 80GB HBM3"`,
				`device.attributes["gpu.nvidia.com"].profile == "3g.40gb"`,
			}}},
		"min memory": {Request{Count: 1, MinMemory: &q}, Exact{DeviceClass: ClassGPU, Count: 1, Selectors: []string{
			`has(device.capacity["gpu.nvidia.com"].memory) && device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("40Gi")) >= 0`,
		}}},
		"model without a driver product name": {Request{Count: 1, Accelerators: []*catalog.Accelerator{model(t, "l4")}},
			Exact{DeviceClass: ClassGPU, Count: 1}},
		"raw selectors replace the derived ones, min memory stays": {
			Request{Count: 1, Accelerators: []*catalog.Accelerator{h100}, Selectors: []string{"true"}, MinMemory: &q},
			Exact{DeviceClass: ClassGPU, Count: 1, Selectors: []string{"true", MinMemorySelector(q)}}},
		"another class is the selection": {Request{Count: 1, DeviceClass: "a100.gpu.gpuform.io", Accelerators: []*catalog.Accelerator{h100}},
			Exact{DeviceClass: "a100.gpu.gpuform.io", Count: 1}},
	} {
		t.Run(name, func(t *testing.T) {
			got := BuildClaim(c.req)
			if got.Exactly == nil || len(got.FirstAvailable) > 0 || got.MatchAttribute != "" {
				t.Fatalf("want one exactly request and no constraint, got %+v", got)
			}
			if !reflect.DeepEqual(*got.Exactly, c.want) {
				t.Errorf("got %+v\nwant %+v", *got.Exactly, c.want)
			}
			if refusal, _ := got.KueueRefusal(kueuever.Oldest); (refusal == "") != (len(c.want.Selectors) == 0) {
				t.Errorf("KueueRefusal = %q with selectors %q", refusal, c.want.Selectors)
			}
		})
	}
}

// TestBuildClaimPreferences: accelerators in order become firstAvailable
// entries named after each model, each with its own product selector,
// and a same constraint covers whichever entry is picked.
func TestBuildClaimPreferences(t *testing.T) {
	h100, h200 := model(t, "h100-80gb"), model(t, "h200")
	got := BuildClaim(Request{Count: 2, Accelerators: []*catalog.Accelerator{h200, h100}, Same: spec.DRASamePCIeRoot})
	if got.Exactly != nil {
		t.Fatalf("a preference list is not an exactly request: %+v", got)
	}
	want := []SubRequest{
		{Name: "h200", Exact: Exact{DeviceClass: ClassGPU, Count: 2, Selectors: []string{ProductSelector([]string{"NVIDIA H200"})}}},
		{Name: "h100-80gb", Exact: Exact{DeviceClass: ClassGPU, Count: 2, Selectors: []string{ProductSelector([]string{"NVIDIA H100 80GB HBM3"})}}},
	}
	if !reflect.DeepEqual(got.FirstAvailable, want) {
		t.Errorf("got %+v\nwant %+v", got.FirstAvailable, want)
	}
	if got.MatchAttribute != AttrPCIeRoot {
		t.Errorf("MatchAttribute = %q, want %q", got.MatchAttribute, AttrPCIeRoot)
	}
	if refusal, _ := got.KueueRefusal(kueuever.Oldest); refusal == "" {
		t.Error("Kueue v0.17 refuses firstAvailable and constraints")
	}
}

// TestBuildClaimPreferencesStopAtTheAPILimit: the API takes at most
// MaxDRAPreferences entries (validation reports a longer list).
func TestBuildClaimPreferencesStopAtTheAPILimit(t *testing.T) {
	var all []*catalog.Accelerator
	for i := range catalog.Table {
		all = append(all, &catalog.Table[i])
	}
	if got := BuildClaim(Request{Count: 1, Accelerators: all}); len(got.FirstAvailable) != spec.MaxDRAPreferences {
		t.Errorf("%d entries, want %d", len(got.FirstAvailable), spec.MaxDRAPreferences)
	}
}

// TestBuildClaimPreferencesNeedDerivedSelectors: raw selectors or a class
// of the user's own make one exactly request (the user selects).
func TestBuildClaimPreferencesNeedDerivedSelectors(t *testing.T) {
	two := []*catalog.Accelerator{model(t, "h200"), model(t, "h100-80gb")}
	for _, r := range []Request{{Accelerators: two, Selectors: []string{"true"}}, {Accelerators: two, DeviceClass: "x.example.com"}} {
		if c := BuildClaim(r); c.Exactly == nil || len(c.FirstAvailable) > 0 {
			t.Errorf("%+v: got %+v, want one exactly request", r, c)
		}
	}
}

func TestProductSelectorListsSeveralProducts(t *testing.T) {
	got := ProductSelector([]string{"NVIDIA H200", `Odd "name"`})
	want := `device.attributes["gpu.nvidia.com"].productName in ["NVIDIA H200", "Odd \"name\""]`
	if got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	if r := compileSelector(got); r.Error != nil {
		t.Errorf("does not compile: %v", r.Error)
	}
}

// TestDerivedSelectorsCompile: every selector the builder writes is one
// the API server accepts, for every model and profile of the catalog.
func TestDerivedSelectorsCompile(t *testing.T) {
	q := resource.MustParse("1500Mi")
	for i := range catalog.Table {
		a := &catalog.Table[i]
		reqs := []Request{{Accelerators: []*catalog.Accelerator{a}, MinMemory: &q, Same: spec.DRASameNUMANode}}
		for j := range a.MIGProfiles {
			reqs = append(reqs, Request{Accelerators: []*catalog.Accelerator{a}, Partition: &a.MIGProfiles[j]})
		}
		for _, r := range reqs {
			for _, s := range BuildClaim(r).Exactly.Selectors {
				if compiled := compileSelector(s); compiled.Error != nil {
					t.Errorf("%s: %s: %v", a.Name, s, compiled.Error)
				}
				if diags := CheckSelectors(nil, []string{s}, TargetOf(r)); len(diags) > 0 {
					t.Errorf("%s: derived %s fails its own checks: %v", a.Name, s, diags)
				}
			}
		}
	}
}

func TestSameAttribute(t *testing.T) {
	for _, same := range spec.DRASameNames() {
		attr, ok := SameAttribute(same)
		if !ok || !strings.HasPrefix(attr, StandardDomain+"/") {
			t.Errorf("%s: %q, %v", same, attr, ok)
		}
	}
	if _, ok := SameAttribute("socket"); ok {
		t.Error("socket is not a same value")
	}
	if !slices.Contains(StandardAttributeNames(TypeGPU), strings.TrimPrefix(AttrNUMANode, StandardDomain+"/")) {
		t.Error("numaNode is a standard attribute of GPUs")
	}
}
