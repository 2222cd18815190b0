package render

import (
	"strings"
)

// migSlice is one profile of a MIG layout and how many instances of it one
// GPU carries.
type migSlice struct {
	profile MIGProfile
	perGPU  int64
}

// migBalanced is the GPU Operator's "all-balanced" layout per model
// (NVIDIA/gpu-operator assets/state-mig-manager/0400_configmap.yaml,
// default-mig-parted-config, key all-balanced, one device-filter per model).
// The local fixture generic-a100-mig-mixed (8 x A100 40GB: 16 x 1g.5gb,
// 8 x 2g.10gb, 8 x 3g.20gb) is this layout.
var migBalanced = map[string][]struct {
	name   string
	perGPU int64
}{
	"a100-40gb": {{"1g.5gb", 2}, {"2g.10gb", 1}, {"3g.20gb", 1}},
	"a100-80gb": {{"1g.10gb", 2}, {"2g.20gb", 1}, {"3g.40gb", 1}},
	"h100-80gb": {{"1g.10gb", 2}, {"2g.20gb", 1}, {"3g.40gb", 1}},
	"h200":      {{"1g.18gb", 2}, {"2g.35gb", 1}, {"3g.71gb", 1}},
	"b200":      {{"1g.23gb", 2}, {"2g.45gb", 1}, {"3g.90gb", 1}},
	"a30":       {{"1g.6gb", 2}, {"2g.12gb", 1}},
	// "GB200 HGX", "H100 NVL, H800 NVL" and "RTX-PRO-6000-96GB" filters.
	"gb200":        {{"1g.23gb", 2}, {"2g.47gb", 1}, {"3g.93gb", 1}},
	"h100-nvl":     {{"1g.12gb", 2}, {"2g.24gb", 1}, {"3g.47gb", 1}},
	"rtx-pro-6000": {{"1g.24gb", 2}, {"2g.48gb", 1}},
	// HGX B300: the GPU Operator 25.10.0 all-balanced entry.
	"b300": {{"1g.34gb", 2}, {"2g.67gb", 1}, {"3g.135gb", 1}},
}

// migLayoutPrefix is how mig-manager names single-profile layouts:
// "all-<profile>" (the same default config as above; every profile in the
// catalog has one).
const migLayoutPrefix = "all-"

// resolvePoolPartition turns the partition attribute into the mig-manager
// layout name and what one GPU is cut into. ok is false when a does not
// support the partition.
func resolvePoolPartition(raw string, a *Accelerator) (layout string, cut []migSlice, ok bool) {
	if a == nil {
		return "", nil, false
	}
	if raw == PartitionAllBalanced {
		entries, found := migBalanced[a.Name]
		if !found {
			return "", nil, false
		}
		for _, e := range entries {
			profile, known := a.LookupMIGProfile(e.name)
			if !known {
				return "", nil, false
			}
			cut = append(cut, migSlice{profile: profile, perGPU: e.perGPU})
		}
		return PartitionAllBalanced, cut, true
	}
	profile, known := a.LookupMIGProfile(strings.TrimPrefix(raw, migLayoutPrefix))
	if !known {
		return "", nil, false
	}
	return migLayoutPrefix + profile.Name, []migSlice{{profile: profile, perGPU: int64(profile.InstancesPerGPU)}}, true
}

// poolPartitionNames lists every partition value a model accepts, for
// Details: its profiles, then the layouts.
func poolPartitionNames(a *Accelerator) []string {
	names := a.MIGProfileNames()
	for _, p := range a.MIGProfiles {
		names = append(names, migLayoutPrefix+p.Name)
	}
	if _, ok := migBalanced[a.Name]; ok {
		names = append(names, PartitionAllBalanced)
	}
	return names
}

// sliceProfileNames lists the profile names of a layout.
func sliceProfileNames(cut []migSlice) []string {
	names := make([]string, len(cut))
	for i, s := range cut {
		names[i] = s.profile.Name
	}
	return names
}

// findSlice returns the layout's entry for a profile name.
func findSlice(cut []migSlice, profile string) (migSlice, bool) {
	for _, s := range cut {
		if s.profile.Name == profile {
			return s, true
		}
	}
	return migSlice{}, false
}
