package clouds

import (
	"slices"
	"strconv"
	"strings"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
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

// tableMachineGPUs is a machine type's GPU count in a table of shapes
// (0 for a machine it does not list).
func tableMachineGPUs(table map[string][]MachineShape, machine string) int64 {
	for _, shapes := range table {
		for _, s := range shapes {
			if s.Name == machine {
				return s.GPUs
			}
		}
	}
	return 0
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

// poolMachineLister is implemented by clouds whose pools may use machines
// of several accelerator values of one model (GKE: nvidia-h100-80gb and
// nvidia-h100-mega-80gb are both the catalog's H100 80GB).
type poolMachineLister interface {
	poolMachines(a *catalog.Accelerator) []MachineShape
}

// poolMachineShapes are the shapes a pool of model a can be created with.
func poolMachineShapes(c Cloud, a *catalog.Accelerator) []MachineShape {
	if a == nil {
		return nil
	}
	if l, ok := c.Profile.(poolMachineLister); ok {
		return l.poolMachines(a)
	}
	return c.MachinesOf(a)
}

// PoolMachineTypes lists the machine types of the cloud carrying gpus GPUs
// of a, smallest first: what machine_type may name.
func PoolMachineTypes(c Cloud, a *catalog.Accelerator, gpus int64) []string {
	return MachinesWithGPUs(poolMachineShapes(c, a), gpus)
}

// ResolveMachine is the pool's machine type: the one machine_type names,
// else the first the cloud lists with the pool's GPU count ("" where the
// catalog knows no machine, as on generic clusters).
func ResolveMachine(c Cloud, a *catalog.Accelerator, gpus int64, explicit string) string {
	if explicit != "" {
		return explicit
	}
	return firstValue(PoolMachineTypes(c, a, gpus))
}

// multiMachinePools is implemented by clouds whose node-pool shape lists
// every machine type with the pool's GPU count (an EKS node group's
// instance_types), so the pool may launch any of them.
type multiMachinePools interface{ launchesEveryMachine() }

// LaunchedMachines are the machine types the pool's nodes may be: the
// chosen one, or on clouds whose shape lists several, each of them.
func (pi PoolIntent) LaunchedMachines() []string {
	if _, many := pi.Cloud.Profile.(multiMachinePools); many && !pi.MachineSet {
		return PoolMachineTypes(pi.Cloud, pi.Accel, pi.GPUs)
	}
	if pi.Machine == "" {
		return nil
	}
	return []string{pi.Machine}
}

// AllPoolMachineTypes lists every machine type a pool cloud names, sorted:
// the values machine_type's schema validator accepts (the pool's own
// model and GPU count narrow them at plan time).
func AllPoolMachineTypes() []string {
	var out []string
	for _, name := range PoolNames() {
		c := Lookup(spec.Cloud(name))
		for _, a := range c.Models() {
			for _, s := range poolMachineShapes(c, a) {
				if s.Name != "" && !slices.Contains(out, s.Name) {
					out = append(out, s.Name)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}
