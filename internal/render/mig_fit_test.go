package render

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/nvidia"
)

// TestMIGLayoutFit checks layouts against the MIG user guide: the supported
// combinations fit, and layouts that add up in compute slices but not in
// memory slices are refused (issue #12 finding 4).
func TestMIGLayoutFit(t *testing.T) {
	cases := []struct {
		accelerator string
		devices     map[string]int64
		misfit      string // "" = fits
	}{
		// Supported A100 40GB combinations (MIG user guide).
		{"a100-40gb", map[string]int64{"7g.40gb": 1}, ""},
		{"a100-40gb", map[string]int64{"4g.20gb": 1, "3g.20gb": 1}, ""},
		{"a100-40gb", map[string]int64{"3g.20gb": 2}, ""},
		{"a100-40gb", map[string]int64{"3g.20gb": 1, "2g.10gb": 2}, ""},
		{"a100-40gb", map[string]int64{"4g.20gb": 1, "2g.10gb": 1, "1g.5gb": 1}, ""},
		{"a100-40gb", map[string]int64{"2g.10gb": 3, "1g.5gb": 1}, ""},
		{"a100-40gb", map[string]int64{"1g.10gb": 4}, ""},
		{"a100-40gb", map[string]int64{"1g.5gb": 7}, ""},
		{"a100-40gb", map[string]int64{"3g.20gb": 1, "1g.5gb": 4}, ""},
		// Finding 4: 7 compute slices, 11 memory slices of 8.
		{"a100-40gb", map[string]int64{"1g.10gb": 4, "1g.5gb": 3}, "11 memory slices"},
		{"a100-40gb", map[string]int64{"3g.20gb": 2, "1g.5gb": 1}, "9 memory slices"},
		{"a100-40gb", map[string]int64{"4g.20gb": 1, "3g.20gb": 2}, "10 compute slices"},
		{"a100-40gb", map[string]int64{"1g.10gb": 3, "1g.5gb": 2}, ""},
		{"a100-40gb", map[string]int64{"4g.20gb": 1, "3g.20gb": 1, "1g.5gb": 1}, "8 compute slices"},
		{"h100-80gb", map[string]int64{"1g.20gb": 4, "1g.10gb": 3}, "11 memory slices"},
		{"h200", map[string]int64{"3g.71gb": 1, "2g.35gb": 2}, ""},
		// The A30 has 4 compute and 4 memory slices.
		{"a30", map[string]int64{"2g.12gb": 1, "1g.6gb": 2}, ""},
		{"a30", map[string]int64{"2g.12gb": 2, "1g.6gb": 1}, "5 compute slices"},
	}
	for _, c := range cases {
		a := catalog.Find(c.accelerator)
		got := catalog.MIGLayoutMisfit(a, c.devices)
		switch {
		case c.misfit == "" && got != "":
			t.Errorf("%s %v: want it to fit, got %q", c.accelerator, c.devices, got)
		case c.misfit != "" && !strings.Contains(got, c.misfit):
			t.Errorf("%s %v: want a misfit naming %q, got %q", c.accelerator, c.devices, c.misfit, got)
		}
	}
}

// TestMIGLayoutsTheProviderWritesFit: every single-profile layout and every
// all-balanced layout a node pool can select passes the same check users'
// layouts do, so the check and the tables agree.
func TestMIGLayoutsTheProviderWritesFit(t *testing.T) {
	for _, a := range catalog.Table {
		for _, partition := range pool.PartitionNames(&a) {
			_, cut, ok := pool.ResolvePoolPartition(partition, &a)
			if !ok {
				t.Fatalf("%s: %s does not resolve", a.Name, partition)
			}
			devices := map[string]int64{}
			for _, s := range cut {
				devices[s.Profile.Name] = s.PerGPU
			}
			if misfit := catalog.MIGLayoutMisfit(&a, devices); misfit != "" {
				t.Errorf("%s %s: %s", a.Name, partition, misfit)
			}
		}
	}
}

func TestMIGLayoutMisfitIsAPlanError(t *testing.T) {
	_, diags := values.Generate(values.TargetGPUOperator, values.Input{Cloud: "generic", Blocks: map[string]any{nvidia.BlockGPUOperator: &nvidia.GPUOperatorValues{
		MIGStrategy: spec.MIGStrategyMixed,
		MIGLayouts:  []nvidia.MIGLayout{{Name: "too-much-memory", Accelerator: "a100-40gb", Devices: map[string]int64{"1g.10gb": 4, "1g.5gb": 3}}},
	}}})
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "gpu_operator.mig_layout[0].devices", "11 memory slices")
}

// TestMIGSumsImplyPlacement: for every layout of every catalog model whose
// compute and memory slices add up, the instances can also be placed at
// MIG's fixed start positions, so catalog.MIGLayoutMisfit's sums are a complete
// check. A new table where this fails needs a placement check.
func TestMIGSumsImplyPlacement(t *testing.T) {
	for _, a := range catalog.Table {
		forEachLayout(a.MIGProfiles, map[string]int64{}, func(devices map[string]int64) {
			if catalog.MIGLayoutMisfit(&a, devices) == "" && !placeable(&a, devices) {
				t.Errorf("%s %v: the slices add up but MIG cannot place the instances", a.Name, devices)
			}
		})
	}
}

// forEachLayout calls f with every non-empty combination of profile counts.
func forEachLayout(profiles []catalog.MIGProfile, devices map[string]int64, f func(map[string]int64)) {
	if len(profiles) == 0 {
		if len(devices) > 0 {
			f(devices)
		}
		return
	}
	p := profiles[0]
	for count := 0; count <= p.InstancesPerGPU; count++ {
		next := maps.Clone(devices)
		if count > 0 {
			next[p.Name] = int64(count)
		}
		forEachLayout(profiles[1:], next, f)
	}
}

// placeable searches for non-overlapping start positions: a profile of m
// memory slices starts at the first InstancesPerGPU multiples of m.
func placeable(a *catalog.Accelerator, devices map[string]int64) bool {
	var instances []catalog.MIGProfile
	for name, count := range devices {
		p, _ := a.LookupMIGProfile(name)
		for range count {
			instances = append(instances, p)
		}
	}
	return place(instances, make([]bool, catalog.GPUMemorySlices(a)))
}

func place(instances []catalog.MIGProfile, used []bool) bool {
	if len(instances) == 0 {
		return true
	}
	p := instances[0]
	for i, start := 0, 0; i < p.InstancesPerGPU && start+p.MemorySlices <= len(used); i, start = i+1, start+p.MemorySlices {
		if slices.Contains(used[start:start+p.MemorySlices], true) {
			continue
		}
		setRange(used[start:start+p.MemorySlices], true)
		if place(instances[1:], used) {
			return true
		}
		setRange(used[start:start+p.MemorySlices], false)
	}
	return false
}

func setRange(r []bool, v bool) {
	for i := range r {
		r[i] = v
	}
}
