package pool

import (
	"slices"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// TestMachineTablesMatchCatalog keeps clouds/machines.go in step with
// catalog/catalog.go: every offered model has machine shapes, AKS sizes are exactly
// the catalog's, and instance types placement pins exist in the AWS table.
func TestMachineTablesMatchCatalog(t *testing.T) {
	for _, cloud := range []spec.Cloud{spec.CloudGKE, spec.CloudAKS, spec.CloudEKS, spec.CloudEKSAuto, spec.CloudKarpenter} {
		for _, name := range clouds.Lookup(cloud).Accelerators() {
			a := catalog.Find(name)
			shapes := clouds.Lookup(cloud).MachinesOf(a)
			if len(shapes) == 0 {
				t.Errorf("%s offers %s but no machine shapes are listed", cloud, name)
			}
			for _, s := range shapes {
				if s.GPUs < 1 || s.GPUs > spec.MaxGPUsPerPod {
					t.Errorf("%s %s: %s has %d GPUs", cloud, name, s.Name, s.GPUs)
				}
			}
		}
	}
	for name, shapes := range clouds.AKSMachines {
		a := catalog.Find(name)
		var sizes []string
		for _, s := range shapes {
			sizes = append(sizes, s.Name)
		}
		if a == nil || !slices.Equal(sizes, a.AKSVMSizes) {
			t.Errorf("aks %s: table %v, catalog %v", name, sizes, a)
		}
	}
	for name, shapes := range clouds.AWSMachines {
		a := catalog.Find(name)
		if a == nil || (a.AWSGPUName == "" && a.EKSAccelerator == "") {
			t.Fatalf("aws table has %s, which the catalog does not offer on AWS", name)
		}
		for _, pinned := range a.AWSInstanceTypes {
			if !slices.ContainsFunc(shapes, func(s clouds.MachineShape) bool { return s.Name == pinned }) {
				t.Errorf("%s: placement pins %s, which the table lacks", name, pinned)
			}
		}
	}
	for value := range clouds.GKEMachines {
		if clouds.AcceleratorForGKE(value) == nil {
			t.Errorf("gke table has %s, which no catalog model uses", value)
		}
	}
}

func TestAcceleratorForInstanceType(t *testing.T) {
	for instanceType, want := range map[string]string{
		"g5.12xlarge": "a10g", "p4de.24xlarge": "a100-80gb", "Standard_NC6s_v3": "v100-16gb", "a2-highgpu-8g": "a100-40gb",
		"a3-megagpu-8g": "h100-80gb",
	} {
		if a := clouds.AcceleratorForInstanceType(instanceType); a == nil || a.Name != want {
			t.Errorf("%s: got %v, want %s", instanceType, a, want)
		}
	}
	if clouds.AcceleratorForInstanceType("e2-standard-8") != nil || clouds.AcceleratorForInstanceType("") != nil {
		t.Error("CPU machines must not resolve")
	}
}

// TestMIGLayoutsResolve: every catalog profile has an all-<profile> layout
// and every balanced layout only uses the model's own profiles.
func TestMIGLayoutsResolve(t *testing.T) {
	for _, a := range catalog.Accelerators() {
		for _, p := range a.MIGProfiles {
			for _, raw := range []string{p.Name, clouds.MIGLayoutPrefix + p.Name} {
				layout, cut, ok := ResolvePoolPartition(raw, &a)
				if !ok || layout != clouds.MIGLayoutPrefix+p.Name || len(cut) != 1 || cut[0].PerGPU != int64(p.InstancesPerGPU) {
					t.Errorf("%s %s: %q %v %v", a.Name, raw, layout, cut, ok)
				}
			}
		}
		if _, listed := clouds.MIGBalanced[a.Name]; listed {
			if _, cut, ok := ResolvePoolPartition(spec.PartitionAllBalanced, &a); !ok || len(cut) < 2 {
				t.Errorf("%s all-balanced does not resolve", a.Name)
			}
		} else if a.OffersMIG() {
			t.Errorf("%s has MIG but no all-balanced entry", a.Name)
		}
	}
	for name := range clouds.MIGBalanced {
		if a := catalog.Find(name); a == nil || !a.OffersMIG() {
			t.Errorf("all-balanced listed for %s, which has no MIG", name)
		}
	}
}
