package workload

import (
	"slices"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
)

// SizePreset is CPU and memory per GPU. The container gets preset × gpu.count
// (at least one), unless cpu/memory override it.
//
// Presets sit deliberately below the VM shape they are named after: the
// kubelet's system/kube reservations, eviction threshold and per-node
// DaemonSets (device plugin, DCGM exporter, CNI, logging) take roughly 1 vCPU
// and several GiB, so a request equal to the VM size would never schedule.
type SizePreset struct {
	Name         string
	CPUPerGPU    resource.Quantity
	MemoryPerGPU resource.Quantity
	// Shapes names the machines the preset is designed to fit, per GPU.
	Shapes string
}

var sizePresets = []SizePreset{
	{
		Name: catalog.SizeSmall, CPUPerGPU: resource.MustParse("3"), MemoryPerGPU: resource.MustParse("12Gi"),
		Shapes: "4 vCPU / 16 GiB per GPU: AWS g4dn.xlarge (T4), g5.xlarge (A10G), g6.xlarge (L4), " +
			"g6e.xlarge (L40S, 32 GiB); GKE g2-standard-4 (L4); Azure NC4as_T4_v3; 6 vCPU per V100 on Azure NCv3",
	},
	{
		Name: catalog.SizeMedium, CPUPerGPU: resource.MustParse("6"), MemoryPerGPU: resource.MustParse("24Gi"),
		Shapes: "8 vCPU / 32 GiB per GPU: AWS g5.2xlarge, g6.2xlarge, p3.2xlarge (V100, 61 GiB); GKE g2-standard-8",
	},
	{
		Name: catalog.SizeLarge, CPUPerGPU: resource.MustParse("10"), MemoryPerGPU: resource.MustParse("64Gi"),
		Shapes: "12 vCPU / 85+ GB per GPU: GKE a2-highgpu-1g (A100 40GB, 85 GB) and a2-ultragpu; AWS p4d/p4de " +
			"(12 vCPU / 144 GiB per GPU), p5 (24 / 256); Azure ND96asr_v4 and ND H100 v5 (12 vCPU per GPU)",
	},
}

// SizeNames lists the sizing presets, smallest first.
func SizeNames() []string {
	names := make([]string, len(sizePresets))
	for i, p := range sizePresets {
		names[i] = p.Name
	}
	return names
}

// LookupSize finds a preset by name.
func LookupSize(name string) (SizePreset, bool) {
	for _, p := range sizePresets {
		if p.Name == name {
			return p, true
		}
	}
	return SizePreset{}, false
}

// defaultSizeName picks the preset when the user gives none: the catalog's
// DefaultSize, and for a preference list the smallest of them, because the
// pod must fit on whichever model it gets. A MIG instance or shared slot gets
// a fraction of a GPU's host, hence small.
func defaultSizeName(in clouds.GPUIntent) string {
	if !in.WholeGPUs() || len(in.Accelerators) == 0 {
		return catalog.SizeSmall
	}
	smallest := len(sizePresets) - 1
	for _, a := range in.Accelerators {
		if i := sizeRank(a.DefaultSize); i >= 0 && i < smallest {
			smallest = i
		}
	}
	return sizePresets[smallest].Name
}

// Floors for a default-sized MIG instance or shared slot.
const (
	minSlotCPUMilli = 500
	minSlotMemory   = 2 << 30
)

// slotsPerGPU is how many pods share one GPU's host: MIG instances per GPU,
// or the sharing clients (2 when unknown). Default sizing divides the small
// preset by it, or four time-shared L4 clients would ask for a g2-standard-8
// and a half and the fourth would never schedule.
func slotsPerGPU(in clouds.GPUIntent) int64 {
	switch {
	case in.Partition != nil && in.Partition.InstancesPerGPU > 0:
		return int64(in.Partition.InstancesPerGPU)
	case in.Sharing != "" && in.MaxSharedClients > 1:
		return in.MaxSharedClients
	case in.Sharing != "":
		return 2
	default:
		return 1
	}
}

// roundGi rounds bytes down to whole GiB, so manifests show "3Gi", not a
// byte count.
func roundGi(bytes int64) int64 { return bytes / (1 << 30) * (1 << 30) }

// sizeRank is the preset's position, smallest first; -1 when unknown.
func sizeRank(name string) int {
	return slices.IndexFunc(sizePresets, func(p SizePreset) bool { return p.Name == name })
}

// DefaultSizing is what a container with GPU intent in and no size, cpu or
// memory of its own requests. A queue's CPU and memory quota per GPU unit
// is the same, so the quota of N units admits N such workloads.
func DefaultSizing(in clouds.GPUIntent) (cpu, memory resource.Quantity) {
	cpu, memory, _ = containerSizing(Container{}, in)
	return cpu, memory
}

// containerSizing returns the CPU request and the memory request (= limit).
// Explicit cpu/memory are totals and win over the preset. ok is false when
// a value needed for the arithmetic is unknown or invalid.
func containerSizing(w Container, in clouds.GPUIntent) (cpu, memory resource.Quantity, ok bool) {
	preset, found := LookupSize(w.Size)
	if !found {
		preset, _ = LookupSize(defaultSizeName(in))
	}
	multiplier := max(in.Count, 1)
	slots := int64(1)
	if !found {
		slots = slotsPerGPU(in)
	}
	cpu = *resource.NewMilliQuantity(max(preset.CPUPerGPU.MilliValue()*multiplier/slots, minSlotCPUMilli), resource.DecimalSI)
	memory = *resource.NewQuantity(max(roundGi(preset.MemoryPerGPU.Value()*multiplier/slots), minSlotMemory), resource.BinarySI)
	if w.CPU != "" {
		q, err := resource.ParseQuantity(w.CPU)
		if err != nil {
			return cpu, memory, false
		}
		cpu = q
	}
	if w.Memory != "" {
		q, err := resource.ParseQuantity(w.Memory)
		if err != nil {
			return cpu, memory, false
		}
		memory = q
	}
	return cpu, memory, true
}
