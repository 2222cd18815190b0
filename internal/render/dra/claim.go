package dra

import (
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	utilversion "k8s.io/apimachinery/pkg/util/version"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kueuever"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// RequestName names the claim's one request. Containers name the claim,
// not the request; a constraint names the request, and so covers whichever
// firstAvailable entry the scheduler picks.
const RequestName = "gpu"

// Request is a GPU intent as a claim sees it, resolved against the
// catalog. It does not need a gpu.dra block: a workload on a DRA pool
// asks for the same claim from count, accelerator and partition alone.
type Request struct {
	// Count is how many devices: whole GPUs, or MIG devices with Partition.
	Count int64
	// DeviceClass is the class named; "" derives it: ClassMIG with a
	// Partition, else ClassGPU.
	DeviceClass string
	// Accelerators in order of preference; empty means any NVIDIA GPU.
	Accelerators []*catalog.Accelerator
	// Partition is a MIG profile of Accelerators[0]; nil for whole GPUs.
	Partition *catalog.MIGProfile
	// MinMemory, when set, is the least memory capacity of each device.
	MinMemory *resource.Quantity
	// Same is a spec.DRASameNames() value, or "".
	Same string
	// Selectors are the user's CEL expressions. They replace the product
	// and profile selectors the claim would derive (the user selects the
	// devices); MinMemory is still added.
	Selectors []string
}

// Class is the device class the claim names.
func (r Request) Class() string {
	switch {
	case r.DeviceClass != "":
		return r.DeviceClass
	case r.Partition != nil:
		return ClassMIG
	default:
		return ClassGPU
	}
}

// DerivesSelectors reports whether the claim selects the accelerators
// and partition itself: no raw selectors, and a class of the driver's own
// that selects every device of its type. Another class is the user's (or
// a pool's) selection already.
func (r Request) DerivesSelectors() bool {
	class := r.Class()
	return len(r.Selectors) == 0 && (class == ClassGPU || class == ClassMIG)
}

// UsesPreferences reports whether the claim lists the accelerators as
// firstAvailable entries, one per model in order: more than one model, and
// selectors derived.
func (r Request) UsesPreferences() bool {
	return len(r.Accelerators) > 1 && r.DerivesSelectors()
}

// Claim is a ResourceClaim's spec without its API version: one request
// named RequestName, either exactly (Exactly) or the first available of
// several (FirstAvailable), and the attribute all its devices share.
type Claim struct {
	Exactly        *Exact
	FirstAvailable []SubRequest
	// MatchAttribute is a fully qualified attribute every allocated device
	// has the same value of; "" for none.
	MatchAttribute string
}

// Exact asks for Count devices of DeviceClass passing every Selector.
type Exact struct {
	DeviceClass string
	Selectors   []string
	Count       int64
}

// SubRequest is one firstAvailable entry, named after its accelerator.
type SubRequest struct {
	Name string
	Exact
}

// BuildClaim is the claim for a request. It is the one claim builder: a
// gpu_workload's template, a chart's values and a pool's workloads all get
// their claims here. It never fails: validation (CheckRequest,
// CheckSelectors) reports what the claim cannot express.
func BuildClaim(r Request) Claim {
	c := Claim{MatchAttribute: sameAttributes[r.Same]}
	if r.UsesPreferences() {
		for _, a := range r.Accelerators[:min(len(r.Accelerators), spec.MaxDRAPreferences)] {
			if a == nil {
				continue // not resolved; validation reported it
			}
			c.FirstAvailable = append(c.FirstAvailable, SubRequest{Name: a.Name, Exact: r.exact(a)})
		}
		return c
	}
	var a *catalog.Accelerator
	if len(r.Accelerators) == 1 {
		a = r.Accelerators[0]
	}
	e := r.exact(a)
	c.Exactly = &e
	return c
}

// exact is the request for one accelerator (nil: any).
func (r Request) exact(a *catalog.Accelerator) Exact {
	e := Exact{DeviceClass: r.Class(), Count: max(r.Count, 1)}
	switch {
	case len(r.Selectors) > 0:
		e.Selectors = append(e.Selectors, r.Selectors...)
	case r.DerivesSelectors():
		if a != nil && len(a.DriverProducts) > 0 {
			e.Selectors = append(e.Selectors, ProductSelector(a.DriverProductNames()))
		}
		if r.Partition != nil {
			e.Selectors = append(e.Selectors, ProfileSelector(r.Partition.Name))
		}
	}
	if r.MinMemory != nil {
		e.Selectors = append(e.Selectors, MinMemorySelector(*r.MinMemory))
	}
	return e
}

// attributeRef and capacityRef spell a driver attribute or capacity the
// way the driver's own documentation does in CEL.
func attributeRef(name string) string { return `device.attributes["` + Driver + `"].` + name }
func capacityRef(name string) string  { return `device.capacity["` + Driver + `"].` + name }

// celString is a CEL string literal. Go's quoting is valid CEL for the
// escapes it produces (\", \\, \n, \u....).
func celString(s string) string { return strconv.Quote(s) }

// ProductSelector selects devices of any of the products (NVML names, as
// the driver's productName attribute carries them).
func ProductSelector(products []string) string {
	if len(products) == 1 {
		return attributeRef("productName") + " == " + celString(products[0])
	}
	quoted := make([]string, len(products))
	for i, p := range products {
		quoted[i] = celString(p)
	}
	return attributeRef("productName") + " in [" + strings.Join(quoted, ", ") + "]"
}

// ProfileSelector selects MIG devices of the profile ("3g.40gb").
func ProfileSelector(profile string) string {
	return attributeRef("profile") + " == " + celString(profile)
}

// MinMemorySelector selects devices with at least q of memory. The driver
// leaves the capacity out when NVML cannot report it, and a missing key is
// a CEL runtime error that fails the whole allocation, so has() guards it:
// such a device just does not match.
func MinMemorySelector(q resource.Quantity) string {
	return "has(" + capacityRef("memory") + ") && " +
		capacityRef("memory") + `.compareTo(quantity("` + q.String() + `")) >= 0`
}

// KueueRefusal is what Kueue release ver refuses in the claim template,
// in Kueue's words, and the rule that says so ("" and no rule when it
// admits it). Kueue counts a template's devices per class and marks a
// workload whose template it cannot count inadmissible; which shapes it
// counts depends on the release (kueuever, docs/design/kueue-versions.md).
func (c Claim) KueueRefusal(ver *utilversion.Version) (string, kueuever.Rule) {
	switch {
	case c.MatchAttribute != "" && !kueuever.DeviceConstraints.In(ver):
		return "device constraints (MatchAttribute) are not supported", kueuever.DeviceConstraints
	case len(c.FirstAvailable) > 0 && !kueuever.FirstAvailable.In(ver):
		return "FirstAvailable device selection is not supported", kueuever.FirstAvailable
	case c.Exactly != nil && len(c.Exactly.Selectors) > 0 && !kueuever.CELSelectors.In(ver):
		return "CEL selectors are not supported", kueuever.CELSelectors
	}
	return "", kueuever.Rule{}
}
