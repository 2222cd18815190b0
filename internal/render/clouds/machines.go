package clouds

import (
	"slices"
	"strconv"
	"strings"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
)

// MachineShape is one machine type and how many GPUs of one model it has.
type MachineShape struct {
	Name string
	GPUs int64
}

// MachinesOf returns the machine shapes of a model on the cloud; nil means
// the catalog does not know them (generic clusters, an unknown cloud or
// model), so any count from 1 to MaxGPUsPerPod is accepted.
func (c Cloud) MachinesOf(a *catalog.Accelerator) []MachineShape {
	if a == nil {
		return nil
	}
	return c.Machines(a)
}

// catalogMachines looks a model up in a table keyed by catalog id.
func catalogMachines(table map[string][]MachineShape, a *catalog.Accelerator) []MachineShape {
	if a == nil {
		return nil
	}
	return table[a.Name]
}

// catalogAcceleratorForMachine finds the model of a machine type in a
// table keyed by catalog id.
func catalogAcceleratorForMachine(table map[string][]MachineShape, name string) *catalog.Accelerator {
	for id, shapes := range table {
		if shapesInclude(shapes, name) {
			return catalog.Find(id)
		}
	}
	return nil
}

func shapesInclude(shapes []MachineShape, name string) bool {
	return slices.ContainsFunc(shapes, func(s MachineShape) bool { return s.Name == name })
}

// GPUCounts lists the distinct GPU counts of shapes, ascending.
func GPUCounts(shapes []MachineShape) []int64 {
	var counts []int64
	for _, s := range shapes {
		if !slices.Contains(counts, s.GPUs) {
			counts = append(counts, s.GPUs)
		}
	}
	slices.Sort(counts)
	return counts
}

// MachinesWithGPUs lists the named shapes with exactly gpus GPUs, in table
// order (smallest first).
func MachinesWithGPUs(shapes []MachineShape, gpus int64) []string {
	var names []string
	for _, s := range shapes {
		if s.GPUs == gpus && s.Name != "" {
			names = append(names, s.Name)
		}
	}
	return names
}

// FormatCounts prints counts for a Detail: "1, 2, 4, 8".
func FormatCounts(counts []int64) string {
	parts := make([]string, len(counts))
	for i, c := range counts {
		parts[i] = strconv.FormatInt(c, 10)
	}
	return strings.Join(parts, ", ")
}

// AcceleratorForInstanceType recognises a catalog model from a machine type
// on any cloud; capacity/capacity.go uses it when no GPU label names the model.
func AcceleratorForInstanceType(instanceType string) *catalog.Accelerator {
	if instanceType == "" {
		return nil
	}
	for _, c := range Registry {
		if a := c.Profile.acceleratorForMachine(instanceType); a != nil {
			return a
		}
	}
	return nil
}
