package render

import (
	"slices"
	"strconv"
	"strings"
)

// machineShape is one machine type and how many GPUs of one model it has.
type machineShape struct {
	name string
	gpus int64
}

// gkeMachines lists, per cloud.google.com/gke-accelerator value, the
// machine types GKE node pools can use and their GPU count (Google Cloud
// "GPU machine types" page: A2 Standard/Ultra, A3 High/Mega/Ultra, A4, G2
// and the N1 attachable GPUs). A2, A3, A4 and G2 machines come with their
// GPUs, so guest_accelerator.count must equal the machine's count. N1 GPUs
// (T4, V100) attach to any N1 machine type in the counts listed; name is ""
// there because the machine type is the user's choice.
var gkeMachines = map[string][]machineShape{
	"nvidia-tesla-t4":       {{"", 1}, {"", 2}, {"", 4}},
	"nvidia-tesla-v100":     {{"", 1}, {"", 2}, {"", 4}, {"", 8}},
	"nvidia-l4":             {{"g2-standard-4", 1}, {"g2-standard-8", 1}, {"g2-standard-12", 1}, {"g2-standard-16", 1}, {"g2-standard-32", 1}, {"g2-standard-24", 2}, {"g2-standard-48", 4}, {"g2-standard-96", 8}},
	"nvidia-tesla-a100":     {{"a2-highgpu-1g", 1}, {"a2-highgpu-2g", 2}, {"a2-highgpu-4g", 4}, {"a2-highgpu-8g", 8}, {"a2-megagpu-16g", 16}},
	"nvidia-a100-80gb":      {{"a2-ultragpu-1g", 1}, {"a2-ultragpu-2g", 2}, {"a2-ultragpu-4g", 4}, {"a2-ultragpu-8g", 8}},
	"nvidia-h100-80gb":      {{"a3-highgpu-1g", 1}, {"a3-highgpu-2g", 2}, {"a3-highgpu-4g", 4}, {"a3-highgpu-8g", 8}},
	"nvidia-h100-mega-80gb": {{"a3-megagpu-8g", 8}},
	"nvidia-h200-141gb":     {{"a3-ultragpu-8g", 8}},
	"nvidia-b200":           {{"a4-highgpu-8g", 8}},
}

// awsMachines lists, per catalog id, the EC2 instance types and their GPU
// count (AWS "Amazon EC2 accelerated computing instances" specifications:
// G4dn, G5, G6, G6e, P3, P3dn, P4d, P4de, P5, P5e, P5en, P6-B200). Smallest
// first, so the first entry with a count is the cheapest suggestion.
var awsMachines = map[string][]machineShape{
	"t4":        {{"g4dn.xlarge", 1}, {"g4dn.2xlarge", 1}, {"g4dn.4xlarge", 1}, {"g4dn.8xlarge", 1}, {"g4dn.16xlarge", 1}, {"g4dn.12xlarge", 4}, {"g4dn.metal", 8}},
	"a10g":      {{"g5.xlarge", 1}, {"g5.2xlarge", 1}, {"g5.4xlarge", 1}, {"g5.8xlarge", 1}, {"g5.16xlarge", 1}, {"g5.12xlarge", 4}, {"g5.24xlarge", 4}, {"g5.48xlarge", 8}},
	"l4":        {{"g6.xlarge", 1}, {"g6.2xlarge", 1}, {"g6.4xlarge", 1}, {"g6.8xlarge", 1}, {"g6.16xlarge", 1}, {"g6.12xlarge", 4}, {"g6.24xlarge", 4}, {"g6.48xlarge", 8}},
	"l40s":      {{"g6e.xlarge", 1}, {"g6e.2xlarge", 1}, {"g6e.4xlarge", 1}, {"g6e.8xlarge", 1}, {"g6e.16xlarge", 1}, {"g6e.12xlarge", 4}, {"g6e.24xlarge", 4}, {"g6e.48xlarge", 8}},
	"v100-16gb": {{"p3.2xlarge", 1}, {"p3.8xlarge", 4}, {"p3.16xlarge", 8}},
	"v100-32gb": {{"p3dn.24xlarge", 8}},
	"a100-40gb": {{"p4d.24xlarge", 8}},
	"a100-80gb": {{"p4de.24xlarge", 8}},
	// p5.4xlarge is the single-H100 size added in 2025.
	"h100-80gb": {{"p5.4xlarge", 1}, {"p5.48xlarge", 8}},
	"h200":      {{"p5e.48xlarge", 8}, {"p5en.48xlarge", 8}},
	"b200":      {{"p6-b200.48xlarge", 8}},
}

// aksMachines lists, per catalog id, the Azure VM sizes and their GPU count
// (Azure "GPU optimized virtual machine sizes": NCasT4_v3, NCv3, NDv2,
// NDasrA100_v4, NC_A100_v4, NDm_A100_v4, ND_H100_v5, ND_H200_v5). The sizes
// are exactly the catalog's AKSVMSizes (a test keeps them in step).
var aksMachines = map[string][]machineShape{
	"t4":        {{"Standard_NC4as_T4_v3", 1}, {"Standard_NC8as_T4_v3", 1}, {"Standard_NC16as_T4_v3", 1}, {"Standard_NC64as_T4_v3", 4}},
	"v100-16gb": {{"Standard_NC6s_v3", 1}, {"Standard_NC12s_v3", 2}, {"Standard_NC24s_v3", 4}, {"Standard_NC24rs_v3", 4}},
	"v100-32gb": {{"Standard_ND40rs_v2", 8}},
	"a100-40gb": {{"Standard_ND96asr_v4", 8}},
	"a100-80gb": {{"Standard_NC24ads_A100_v4", 1}, {"Standard_NC48ads_A100_v4", 2}, {"Standard_NC96ads_A100_v4", 4}, {"Standard_ND96amsr_A100_v4", 8}},
	"h100-80gb": {{"Standard_ND96isr_H100_v5", 8}},
	"h200":      {{"Standard_ND96isr_H200_v5", 8}},
}

// machinesFor returns the machine shapes of a model on a cloud; nil means
// the catalog does not know them (generic clusters, or an unknown model),
// so any count from 1 to MaxGPUsPerPod is accepted.
func machinesFor(c Cloud, a *Accelerator) []machineShape {
	if a == nil {
		return nil
	}
	switch c {
	case CloudGKE, CloudGKEAutopilot:
		return gkeMachines[gkePoolAccelerator(a)]
	case CloudAKS:
		return aksMachines[a.Name]
	case CloudEKS, CloudEKSAuto, CloudKarpenter:
		return awsMachines[a.Name]
	}
	return nil
}

// gpuCounts lists the distinct GPU counts of shapes, ascending.
func gpuCounts(shapes []machineShape) []int64 {
	var counts []int64
	for _, s := range shapes {
		if !slices.Contains(counts, s.gpus) {
			counts = append(counts, s.gpus)
		}
	}
	slices.Sort(counts)
	return counts
}

// machinesWithGPUs lists the named shapes with exactly gpus GPUs, in table
// order (smallest first).
func machinesWithGPUs(shapes []machineShape, gpus int64) []string {
	var names []string
	for _, s := range shapes {
		if s.gpus == gpus && s.name != "" {
			names = append(names, s.name)
		}
	}
	return names
}

// gkePoolAccelerator is the gke-accelerator value a node pool is created
// with: the model's first one. (H100 80GB's second value, the A3 Mega
// variant, only exists as 8-GPU machines; workloads accept both.)
func gkePoolAccelerator(a *Accelerator) string {
	if a == nil || len(a.GKEAccelerators) == 0 {
		return ""
	}
	return a.GKEAccelerators[0]
}

// formatCounts prints counts for a Detail: "1, 2, 4, 8".
func formatCounts(counts []int64) string {
	parts := make([]string, len(counts))
	for i, c := range counts {
		parts[i] = strconv.FormatInt(c, 10)
	}
	return strings.Join(parts, ", ")
}

// acceleratorForInstanceType recognises a catalog model from a machine type
// on any cloud; capacity.go uses it when no GPU label names the model.
func acceleratorForInstanceType(instanceType string) *Accelerator {
	if instanceType == "" {
		return nil
	}
	for _, table := range []map[string][]machineShape{awsMachines, aksMachines} {
		for name, shapes := range table {
			if slices.ContainsFunc(shapes, func(s machineShape) bool { return s.name == instanceType }) {
				return lookupAccelerator(name)
			}
		}
	}
	for gkeAccel, shapes := range gkeMachines {
		if slices.ContainsFunc(shapes, func(s machineShape) bool { return s.name == instanceType }) {
			return acceleratorForGKE(gkeAccel)
		}
	}
	return nil
}

// acceleratorForGKE maps a cloud.google.com/gke-accelerator value back to
// the catalog.
func acceleratorForGKE(value string) *Accelerator {
	for i := range catalog {
		if slices.Contains(catalog[i].GKEAccelerators, value) {
			return &catalog[i]
		}
	}
	return nil
}
