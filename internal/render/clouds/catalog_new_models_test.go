package clouds_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// newModelFacts are the 2026 additions (issue #12, finding 8) as the
// upstream pages state them, written independently of the catalog and the
// cloud tables: per cloud, machine → GPUs; clouds left out have no such
// machine or an unconfirmed fact (docs/design/catalog.md#models-per-cloud).
var newModelFacts = map[string]struct {
	memoryGiB int64 // what the GPU shows: its whole-GPU MIG profile
	gke       map[string]int64
	aws       map[string]int64
	aks       map[string]int64
}{
	// Compute Engine A4X; EC2 P6e-GB200; Azure ND GB200 v6.
	"gb200": {memoryGiB: 186,
		gke: map[string]int64{"a4x-highgpu-4g": 4},
		aws: map[string]int64{"p6e-gb200.36xlarge": 4},
		aks: map[string]int64{"Standard_ND128isr_NDR_GB200_v6": 4}},
	// EC2 P6-B300 only.
	"b300": {memoryGiB: 269,
		aws: map[string]int64{"p6-b300.48xlarge": 8}},
	// Compute Engine G4; EC2 G7e.
	"rtx-pro-6000": {memoryGiB: 96,
		gke: map[string]int64{"g4-standard-48": 1, "g4-standard-96": 2, "g4-standard-192": 4, "g4-standard-384": 8},
		aws: map[string]int64{"g7e.2xlarge": 1, "g7e.4xlarge": 1, "g7e.8xlarge": 1, "g7e.12xlarge": 2, "g7e.24xlarge": 4, "g7e.48xlarge": 8}},
	// Azure NC H100 v5.
	"h100-nvl": {memoryGiB: 94,
		aks: map[string]int64{"Standard_NC40ads_H100_v5": 1, "Standard_NC80adis_H100_v5": 2}},
	// Azure NVadsA10 v5, whole-GPU sizes.
	"a10": {memoryGiB: 24,
		aks: map[string]int64{"Standard_NV36ads_A10_v5": 1, "Standard_NV72ads_A10_v5": 2}},
}

func shapeMap(shapes []clouds.MachineShape) map[string]int64 {
	m := map[string]int64{}
	for _, s := range shapes {
		m[s.Name] = s.GPUs
	}
	return m
}

// The catalog offers each new model exactly on the clouds and machines the
// facts list, with the facts' GPU counts and memory.
func TestNewModelsMatchTheirSources(t *testing.T) {
	for name, f := range newModelFacts {
		a := catalog.Find(name)
		if a == nil {
			t.Errorf("%s is not in the catalog", name)
			continue
		}
		if got := a.MemoryMiB / 1024; got != f.memoryGiB {
			t.Errorf("%s: %d GiB, the sources say %d", name, got, f.memoryGiB)
		}
		for _, c := range []struct {
			cloud spec.Cloud
			want  map[string]int64
		}{{spec.CloudGKE, f.gke}, {spec.CloudEKS, f.aws}, {spec.CloudAKS, f.aks}} {
			got := shapeMap(clouds.Lookup(c.cloud).MachinesOf(a))
			if len(c.want) == 0 {
				if slices.Contains(clouds.Lookup(c.cloud).Accelerators(), name) {
					t.Errorf("%s is offered on %s, which the sources do not confirm", name, c.cloud)
				}
				continue
			}
			if !maps.Equal(got, c.want) {
				t.Errorf("%s on %s: machines %v, the sources say %v", name, c.cloud, got, c.want)
			}
		}
	}
}
