package pool

import (
	"strings"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// ResolvePoolPartition turns the partition attribute into the mig-manager
// layout name and what one GPU is cut into. ok is false when a does not
// support the partition.
func ResolvePoolPartition(raw string, a *catalog.Accelerator) (layout string, cut []clouds.MIGSlice, ok bool) {
	if a == nil {
		return "", nil, false
	}
	if raw == spec.PartitionAllBalanced {
		entries, found := clouds.MIGBalanced[a.Name]
		if !found {
			return "", nil, false
		}
		for _, e := range entries {
			profile, known := a.LookupMIGProfile(e.Name)
			if !known {
				return "", nil, false
			}
			cut = append(cut, clouds.MIGSlice{Profile: profile, PerGPU: e.PerGPU})
		}
		return spec.PartitionAllBalanced, cut, true
	}
	profile, known := a.LookupMIGProfile(strings.TrimPrefix(raw, clouds.MIGLayoutPrefix))
	if !known {
		return "", nil, false
	}
	return clouds.MIGLayoutPrefix + profile.Name, []clouds.MIGSlice{{Profile: profile, PerGPU: int64(profile.InstancesPerGPU)}}, true
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
