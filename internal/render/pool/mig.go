package pool

import (
	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// ResolvePoolPartition turns the partition attribute into the mig-manager
// layout name and what one GPU is cut into (clouds.ResolveMIGPartition).
// ok is false when a does not support the partition.
func ResolvePoolPartition(raw string, a *catalog.Accelerator) (layout string, cut []clouds.MIGSlice, ok bool) {
	return clouds.ResolveMIGPartition(raw, a)
}

// PartitionNames lists every partition value a model accepts, for
// Details: its profiles, then the layouts.
func PartitionNames(a *catalog.Accelerator) []string {
	names := a.MIGProfileNames()
	for _, p := range a.MIGProfiles {
		names = append(names, clouds.MIGLayoutPrefix+p.Name)
	}
	if _, ok := clouds.MIGBalanced[a.Name]; ok {
		names = append(names, spec.PartitionAllBalanced)
	}
	return names
}

// SliceProfileNames lists the profile names of a layout.
func SliceProfileNames(cut []clouds.MIGSlice) []string {
	names := make([]string, len(cut))
	for i, s := range cut {
		names[i] = s.Profile.Name
	}
	return names
}

// findSlice returns the layout's entry for a profile name.
func findSlice(cut []clouds.MIGSlice, profile string) (clouds.MIGSlice, bool) {
	for _, s := range cut {
		if s.Profile.Name == profile {
			return s, true
		}
	}
	return clouds.MIGSlice{}, false
}
