package catalog

import (
	"strconv"
	"strings"
)

// A MIG layout fits one GPU when both its compute slices (the "3" of
// 3g.20gb) and its memory slices (the "Fraction of Memory" column of the
// NVIDIA MIG user guide's "Supported MIG Profiles" tables) add up to at most
// the GPU's: 7 and 8 on the 7-slice parts, 4 and 4 on the A30. 4 x 1g.10gb +
// 3 x 1g.5gb uses 7 compute but 11 memory slices and does not fit.
//
// MIG also places each instance at fixed memory slices (a profile of m
// slices starts at the first InstancesPerGPU multiples of m; NVML's
// nvmlDeviceGetGpuInstancePossiblePlacements). An exhaustive search over
// every layout of every catalog model found no layout that passes both sums
// and cannot be placed, so the sums are the whole check for today's tables;
// TestMIGSumsImplyPlacement keeps that true when a table is added.

// MIGLayoutMisfit returns why devices (profile name to instances per GPU)
// cannot be cut from one GPU of a, or "" when they can. Every profile must
// already be known to a.
func MIGLayoutMisfit(a *Accelerator, devices map[string]int64) string {
	computeUsed, memoryUsed := 0, 0
	for name, count := range devices {
		p, _ := a.LookupMIGProfile(name)
		computeUsed += computeSlices(name) * int(count)
		memoryUsed += p.MemorySlices * int(count)
	}
	computeTotal, memoryTotal := gpuComputeSlices(a), GPUMemorySlices(a)
	switch {
	case computeUsed > computeTotal:
		return "The profiles use " + strconv.Itoa(computeUsed) + " compute slices; " + a.DisplayName + " has " +
			strconv.Itoa(computeTotal) + " (the leading number of a profile, the \"3\" of 3g.20gb, times its count)."
	case memoryUsed > memoryTotal:
		return "The profiles use " + strconv.Itoa(memoryUsed) + " memory slices; " + a.DisplayName + " has " +
			strconv.Itoa(memoryTotal) + " (" + memorySliceList(a) + ")."
	}
	return ""
}

// computeSlices is the leading number of a profile name ("3g.20gb" → 3).
func computeSlices(profile string) int {
	n, err := strconv.Atoi(strings.SplitN(profile, "g", 2)[0])
	if err != nil {
		return 0
	}
	return n
}

// gpuComputeSlices is the model's compute slices: its largest profile's.
func gpuComputeSlices(a *Accelerator) int {
	most := 0
	for _, p := range a.MIGProfiles {
		most = max(most, computeSlices(p.Name))
	}
	return most
}

// GPUMemorySlices is the model's memory slices: its largest profile's.
func GPUMemorySlices(a *Accelerator) int {
	most := 0
	for _, p := range a.MIGProfiles {
		most = max(most, p.MemorySlices)
	}
	return most
}

// memorySliceList names each profile's memory slices, for messages.
func memorySliceList(a *Accelerator) string {
	parts := make([]string, len(a.MIGProfiles))
	for i, p := range a.MIGProfiles {
		parts[i] = p.Name + " " + strconv.Itoa(p.MemorySlices)
	}
	return strings.Join(parts, ", ")
}
