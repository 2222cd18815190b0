package clouds

import (
	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// The roles a consumer asks for. A Cloud (Lookup) plays every one; a
// function takes the smallest role it reads, so its signature says which
// of a cloud's rules it depends on and a test can see what it needs:
//
//   - Named: which cloud, and whether its rules apply at all (messages,
//     and the checks an unset or unknown cloud skips).
//   - Placer: where a GPU intent lands (WorkloadRules).
//   - Offering: the models the cloud offers.
//   - MachineCatalog: the machine shapes per model (MachineRules).
//   - Topology: the network topology levels its nodes carry.
//   - ModelPlacer: where each offered model lands, for targets that
//     derive node labels per model (chart values).
//   - GPURules: what resolving one GPU request reads (Placer, Offering,
//     MachineCatalog together).
//
// The profile roles (WorkloadRules, MachineRules, PoolRules, NodeRules,
// StackRules) are the same rules without the name: what a Profile
// implements, and what a consumer takes when no message names the cloud.

// Named is a cloud's identity.
type Named interface {
	// Name is the cloud as configured; "" when unset or unknown.
	Name() spec.Cloud
	// Known is false for an unset or unknown cloud, whose rules are skipped.
	Known() bool
}

// Placer places GPU intents on a named cloud.
type Placer interface {
	Named
	WorkloadRules
}

// Offering is the models a named cloud offers.
type Offering interface {
	Named
	// Offers reports whether nodes with this accelerator exist on the cloud.
	Offers(a *catalog.Accelerator) bool
	// Models are the offered catalog entries, in catalog order.
	Models() []*catalog.Accelerator
	// OfferedBy explains which accelerators the cloud offers, for Details.
	OfferedBy() string
}

// MachineCatalog is the machine shapes of a named cloud.
type MachineCatalog interface {
	Named
	MachineRules
	// MachinesOf is Machines that also answers nil for a nil model.
	MachinesOf(a *catalog.Accelerator) []MachineShape
}

// Topology is the network topology levels a named cloud's nodes carry.
type Topology interface {
	Named
	// TopologyLevels: the levels known by name, outermost first, then the
	// node level.
	TopologyLevels() []TopologyLevel
	// TopologyLevelNames are TopologyLevels' names.
	TopologyLevelNames() []string
	defaultTopologyLevels() []string
}

// ModelPlacer is the placement of each model a named cloud offers.
type ModelPlacer interface {
	Placer
	Offering
}

// GPURules is what resolving one GPU request reads: the models offered,
// where the intent lands, and whether a machine holds its count.
type GPURules interface {
	Placer
	Offering
	MachineCatalog
}
