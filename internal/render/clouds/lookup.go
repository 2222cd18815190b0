package clouds

import (
	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// Cloud is a cloud looked up once by name (Lookup): the rules that follow
// ask its Profile instead of looking the name up again.
type Cloud struct {
	// name is the cloud as configured; "" when unset or unknown.
	name spec.Cloud
	// Profile holds the cloud's rules: the neutral answers (offers nothing,
	// places nothing) when the cloud is unset or unknown.
	Profile
	// known is false for an unset or unknown cloud, whose rules are skipped
	// (lenient validation runs before the cloud is known).
	known bool
}

// Name is the cloud as configured; "" when unset or unknown.
func (c Cloud) Name() spec.Cloud { return c.name }

// Known is false for an unset or unknown cloud, whose rules are skipped.
func (c Cloud) Known() bool { return c.known }

// Lookup finds the registered profile of c. It is the one place a name
// becomes rules: workload, pool and chart values resolve their cloud here
// once and pass the Cloud down.
func Lookup(c spec.Cloud) Cloud {
	for _, e := range Registry {
		if e.name == c {
			return Cloud{name: c, Profile: e.Profile, known: true}
		}
	}
	return Cloud{Profile: unknownCloud{}}
}

// All is every registered cloud, in Registry order, for callers that go
// through every cloud (the accelerators data source, adoption's search).
func All() []Cloud {
	out := make([]Cloud, len(Registry))
	for i, e := range Registry {
		out[i] = Cloud{name: e.name, Profile: e.Profile, known: true}
	}
	return out
}

// Accelerators lists the catalog ids the cloud offers, in catalog order;
// an unknown cloud offers nothing.
func (c Cloud) Accelerators() []string {
	if !c.Known() {
		return nil
	}
	return offeredNames(c.Profile)
}

// Models is Accelerators as catalog entries.
func (c Cloud) Models() []*catalog.Accelerator {
	if !c.Known() {
		return nil
	}
	return offered(c.Profile)
}

// MIGModels lists the catalog ids with MIG that the cloud offers, in
// catalog order; for an unknown cloud, every model with MIG.
func (c Cloud) MIGModels() []string {
	var names []string
	for _, a := range c.Models() {
		if a.OffersMIG() {
			names = append(names, a.Name)
		}
	}
	if !c.Known() {
		return catalog.MIGAcceleratorNames()
	}
	return names
}

// OfferedBy explains which accelerators the cloud offers, for Details.
func (c Cloud) OfferedBy() string { return offeredByMessage(c.Name(), c.Profile) }
