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

// machinesFor returns the machine shapes of a model on a cloud; nil means
// the catalog does not know them (generic clusters, or an unknown model),
// so any count from 1 to MaxGPUsPerPod is accepted.
func machinesFor(c Cloud, a *Accelerator) []machineShape {
	if a == nil {
		return nil
	}
	return rulesFor(c).machines(a)
}

// catalogMachines looks a model up in a table keyed by catalog id.
func catalogMachines(table map[string][]machineShape, a *Accelerator) []machineShape {
	if a == nil {
		return nil
	}
	return table[a.Name]
}

// catalogAcceleratorForMachine finds the model of a machine type in a
// table keyed by catalog id.
func catalogAcceleratorForMachine(table map[string][]machineShape, name string) *Accelerator {
	for id, shapes := range table {
		if shapesInclude(shapes, name) {
			return lookupAccelerator(id)
		}
	}
	return nil
}

func shapesInclude(shapes []machineShape, name string) bool {
	return slices.ContainsFunc(shapes, func(s machineShape) bool { return s.name == name })
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
	for _, c := range cloudOrder {
		if a := c.profile.acceleratorForMachine(instanceType); a != nil {
			return a
		}
	}
	return nil
}
