package clouds_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

func TestCatalogSortedAndUnique(t *testing.T) {
	names := catalog.AcceleratorNames()
	if !slices.IsSorted(names) {
		t.Fatalf("catalog must be sorted by name (lookupAccelerator binary-searches it): %v", names)
	}
	if len(slices.Compact(slices.Clone(names))) != len(names) {
		t.Fatalf("duplicate names: %v", names)
	}
	for _, want := range []string{"t4", "v100-16gb", "v100-32gb", "a10g", "l4", "l40s", "a100-40gb", "a100-80gb", "a30", "h100-80gb", "h200", "b200"} {
		if _, ok := catalog.LookupAccelerator(want); !ok {
			t.Errorf("catalog misses %q", want)
		}
	}
	if _, ok := catalog.LookupAccelerator("A100-40GB"); ok {
		t.Error("lookup must be exact (lower case ids)")
	}
}

func TestCatalogEntriesAreComplete(t *testing.T) {
	for _, a := range catalog.Accelerators() {
		if a.DisplayName == "" || a.MemoryMiB <= 0 || len(a.GFDProducts) == 0 {
			t.Errorf("%s: display name, memory and GFD products are required", a.Name)
		}
		if _, ok := workload.LookupSize(a.DefaultSize); !ok {
			t.Errorf("%s: default size %q is not a preset", a.Name, a.DefaultSize)
		}
		for _, p := range a.MIGProfiles {
			if p.InstancesPerGPU < 1 || p.InstancesPerGPU > 7 {
				t.Errorf("%s %s: instances per GPU %d out of 1..7", a.Name, p.Name, p.InstancesPerGPU)
			}
			if strings.Contains(p.Name, "+") {
				t.Errorf("%s %s: the device plugin does not advertise +me profiles", a.Name, p.Name)
			}
		}
	}
}

// Two models with the same AWS GPU name (or EKS label) must be told apart by
// memory (or instance type), or placement would pick the wrong one.
func TestCatalogAWSAmbiguitiesAreResolvable(t *testing.T) {
	byGPUName := map[string][]catalog.Accelerator{}
	byEKSLabel := map[string][]catalog.Accelerator{}
	for _, a := range catalog.Accelerators() {
		if a.AWSGPUName != "" {
			byGPUName[a.AWSGPUName] = append(byGPUName[a.AWSGPUName], a)
		}
		if a.EKSAccelerator != "" {
			byEKSLabel[a.EKSAccelerator] = append(byEKSLabel[a.EKSAccelerator], a)
		}
	}
	for name, models := range byGPUName {
		if len(models) < 2 {
			continue
		}
		seen := map[int64]bool{}
		for _, a := range models {
			if a.AWSGPUMemoryMiB == 0 || seen[a.AWSGPUMemoryMiB] {
				t.Errorf("instance-gpu-name %q is shared; %s needs a distinct AWSGPUMemoryMiB", name, a.Name)
			}
			seen[a.AWSGPUMemoryMiB] = true
		}
	}
	for label, models := range byEKSLabel {
		if len(models) < 2 {
			continue
		}
		for _, a := range models {
			if len(a.AWSInstanceTypes) == 0 {
				t.Errorf("EKS label %q is shared; %s needs AWSInstanceTypes", label, a.Name)
			}
		}
	}
}

func TestCatalogMIGTables(t *testing.T) {
	a, _ := catalog.LookupAccelerator("a100-40gb")
	p, ok := a.LookupMIGProfile("2g.10gb")
	if !ok || p.InstancesPerGPU != 3 {
		t.Fatalf("a100-40gb 2g.10gb: got %+v %v, want 3 per GPU", p, ok)
	}
	if got := p.MixedResourceName(); got != "nvidia.com/mig-2g.10gb" {
		t.Errorf("mixed resource = %q", got)
	}
	if got := a.GFDMIGProducts(p); !slices.Contains(got, "NVIDIA-A100-SXM4-40GB-MIG-2g.10gb") {
		t.Errorf("GFD MIG products = %v", got)
	}
	if got := (catalog.MIGProfile{Name: "1g.10gb+me"}).MixedResourceName(); got != "nvidia.com/mig-1g.10gb.me" {
		t.Errorf("+ must become . in resource names, got %q", got)
	}
	for _, name := range []string{"t4", "v100-16gb", "v100-32gb", "a10", "a10g", "l4", "l40s"} {
		if a, _ := catalog.LookupAccelerator(name); a.OffersMIG() {
			t.Errorf("%s has no MIG", name)
		}
	}
	want := map[string][]string{
		"a30":  {"1g.6gb", "2g.12gb", "4g.24gb"},
		"h200": {"1g.18gb", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb"},
		// The GPU Operator's default-mig-parted-config layouts for these parts.
		"gb200":        {"1g.23gb", "1g.47gb", "2g.47gb", "3g.93gb", "4g.93gb", "7g.186gb"},
		"h100-nvl":     {"1g.12gb", "1g.24gb", "2g.24gb", "3g.47gb", "4g.47gb", "7g.94gb"},
		"rtx-pro-6000": {"1g.24gb", "2g.48gb", "4g.96gb"},
		"b300":         {"1g.34gb", "1g.67gb", "2g.67gb", "3g.135gb", "4g.135gb", "7g.269gb"},
	}
	for name, profiles := range want {
		a, _ := catalog.LookupAccelerator(name)
		if got := a.MIGProfileNames(); !slices.Equal(got, profiles) {
			t.Errorf("%s profiles = %v, want %v", name, got, profiles)
		}
	}
}

func TestGKEPartitionSizesAreCatalogProfiles(t *testing.T) {
	for name, sizes := range clouds.GKEPartitionSizes {
		a, ok := catalog.LookupAccelerator(name)
		if !ok || len(a.GKEAccelerators) == 0 {
			t.Errorf("%s: GKE partitions listed for a model GKE does not offer", name)
		}
		for _, s := range sizes {
			if _, ok := a.LookupMIGProfile(s); !ok {
				t.Errorf("%s: GKE partition %s is not in the catalog", name, s)
			}
		}
	}
}

func TestAcceleratorsReturnsCopies(t *testing.T) {
	all := catalog.Accelerators()
	i := slices.IndexFunc(all, func(a catalog.Accelerator) bool { return len(a.MIGProfiles) > 0 })
	all[i].GFDProducts[0] = "mutated"
	a, _ := catalog.LookupAccelerator(all[i].Name)
	a.MIGProfiles = nil
	if again := catalog.Accelerators(); again[i].GFDProducts[0] == "mutated" || catalog.Find(all[i].Name).MIGProfiles == nil {
		t.Fatal("callers must not be able to modify the catalog")
	}
}

// A model's whole-GPU MIG profile ("7g.186gb") names the GPU's memory: the
// catalog's MemoryMiB and its MIG table cannot disagree by more than the
// rounding in the profile name.
func TestMIGWholeProfileMatchesMemory(t *testing.T) {
	for _, a := range catalog.Table {
		if !a.OffersMIG() {
			continue
		}
		whole := a.MIGProfiles[len(a.MIGProfiles)-1]
		gb, err := strconv.Atoi(strings.TrimSuffix(strings.SplitN(whole.Name, ".", 2)[1], "gb"))
		if err != nil {
			t.Fatalf("%s: cannot read the memory of %s", a.Name, whole.Name)
		}
		if diff := int64(gb) - a.MemoryMiB/1024; diff < -1 || diff > 1 {
			t.Errorf("%s: whole-GPU profile %s, but MemoryMiB %d is %d GiB", a.Name, whole.Name, a.MemoryMiB, a.MemoryMiB/1024)
		}
		if whole.InstancesPerGPU != 1 || whole.MemorySlices != catalog.GPUMemorySlices(&a) {
			t.Errorf("%s: the last profile %s must be the whole GPU", a.Name, whole.Name)
		}
	}
}
