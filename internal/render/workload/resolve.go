package workload

import (
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds/kindkit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// Resolved is a workload resolved once: its cloud looked up, its GPU
// request parsed against the catalog and the cloud, its node pool attached
// and every rule run. The provider resolves each workload once per call
// (validate, plan, apply, read) and renders from the value, so nothing is
// looked up or validated twice.
type Resolved struct {
	Workload spec.Workload
	// Kind is the registered kind of Workload.Kind (the zero Kind when it
	// is unset or unknown), or for ResolvePod the facts of the object the
	// pod belongs to.
	Kind kindkit.Kind
	// Cloud places the intent (Render asks it once more, for the pod).
	Cloud  clouds.Placer
	Intent clouds.GPUIntent
	// Pool is the node pool policy the workload was placed with (after
	// pool.Apply): its own labels and taints are added to the placement.
	Pool *spec.PoolPolicy
	// Topology is the topology block resolved on the pool; nil without one.
	Topology *TopologyRequest
	// Network is the pool's GPU network as the pods get it (network.go);
	// nil when they get none.
	Network *clouds.NetworkPod
	// Findings are every rule's diagnostics.
	Findings gpudiag.Diagnostics
	// Strict is true when every value was final: zero values meant "unset"
	// and required ones were reported (gpudiag.Diagnostic.Final). Only a
	// strict resolution renders.
	Strict bool
}

// podRules is what the rules of a workload's pods read of the object
// around them: the kind's facts (how many pods run together, a default
// /dev/shm), and whether the pods form one job, so a pool whose GPU
// network they cannot get deserves a warning.
type podRules struct {
	kind      kindkit.Kind
	multiNode bool
	// registered: the workload's kind attribute names the kind, which is
	// checked with the kind's blocks; false for ResolvePod.
	registered bool
}

// Resolve runs every rule on w. strict means values are final (apply time,
// or a plan with no unknown value); otherwise zero values are treated as
// unknown, so rules needing them are skipped and missing required values
// are not reported.
func Resolve(w spec.Workload, pool *spec.PoolPolicy, strict bool) Resolved {
	kind, _ := kinds.Lookup(w.Kind)
	return resolve(w, pool, podRules{kind: kind, multiNode: w.Job != nil || w.Distributed != nil, registered: true}, strict)
}

// resolve runs every rule of the workload and its pod.
func resolve(w spec.Workload, pool *spec.PoolPolicy, rules podRules, strict bool) Resolved {
	var diags gpudiag.Diagnostics
	var cloud clouds.Cloud
	if rules.registered {
		cloud = clouds.Lookup(ValidateIdentity(w, strict, &diags))
	} else {
		cloud = clouds.Lookup(validatePodIdentity(w, strict, &diags))
	}
	in, containerDiags := ResolveContainer(ContainerOf(w), cloud, strict)
	diags.Append(containerDiags)
	if rules.registered {
		validateKindFields(w, strict, &diags)
	}
	validateMetadata(w, &diags)
	validatePodSettings(w, &diags)
	validateModelCache(w, strict, &diags)
	validateProbes(w, strict, &diags)
	validateQueue(w, &diags)
	checkKueueRules(w, in, &diags)
	checkTopologyValues(w, &diags)
	topology := resolveTopology(w, rules.kind, cloud, pool, strict, &diags)
	if checkNVLinkDomain(w, rules.kind, in, pool, topology, strict, &diags) {
		topology.ComputeDomain = true
	}
	network := resolveNetwork(w, rules, in, pool, strict, &diags)
	if w.Patch != "" {
		readWorkloadPatch(w.Patch, &diags) // its effect is checked by Render, on the rendered objects
	}
	return Resolved{Workload: w, Kind: rules.kind, Cloud: cloud, Intent: in, Pool: pool, Topology: topology, Network: network,
		Findings: diags, Strict: strict}
}
