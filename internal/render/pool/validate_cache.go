package pool

import (
	"maps"
	"slices"
	"sync"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kubever"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// strictPools remembers validatePool(p, true) for Apply. A plan places
// every workload of a pool on the same policy, and validating it again for
// each workload was a sixth of placing one. The answer depends on the
// policy alone. Entries keep their own copy of the policy, so a caller
// changing its policy afterwards cannot make an entry lie; the intent and
// findings are shared between callers, which is safe because Apply only
// reads them (it passes the intent by value and never writes its slices or
// maps).
var strictPools poolCache

// maxCachedPools bounds strictPools: a configuration has a handful of
// pools; when more come, the oldest entry goes.
const maxCachedPools = 16

type poolCache struct {
	mu      sync.Mutex
	entries []validatedPool
}

type validatedPool struct {
	policy spec.PoolPolicy
	intent clouds.PoolIntent
	diags  gpudiag.Diagnostics
}

// validateStrict is validatePool(p, true), answered from the cache when p
// was validated before.
func (c *poolCache) validateStrict(p spec.PoolPolicy) (clouds.PoolIntent, gpudiag.Diagnostics) {
	c.mu.Lock()
	for _, e := range c.entries {
		if samePolicy(e.policy, p) {
			c.mu.Unlock()
			return e.intent, e.diags
		}
	}
	c.mu.Unlock()
	pi, diags := validatePool(p, true)
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= maxCachedPools {
		c.entries = slices.Delete(c.entries, 0, 1)
	}
	c.entries = append(c.entries, validatedPool{policy: copyPolicy(p), intent: pi, diags: diags})
	return pi, diags
}

// samePolicy is exact equality of two policies, nil and empty
// collections told apart, so a cached answer is the one validatePool
// would give.
func samePolicy(a, b spec.PoolPolicy) bool {
	return a.Name == b.Name && a.Cloud == b.Cloud && a.Accelerator == b.Accelerator && a.GPUsPerNode == b.GPUsPerNode &&
		a.Partition == b.Partition && a.MIGStrategy == b.MIGStrategy && a.Sharing == b.Sharing && a.Replicas == b.Replicas &&
		a.Spot == b.Spot && sameBool(a.Dedicated, b.Dedicated) && a.GPUAllocation == b.GPUAllocation &&
		(a.Labels == nil) == (b.Labels == nil) && maps.Equal(a.Labels, b.Labels) &&
		(a.Taints == nil) == (b.Taints == nil) && slices.Equal(a.Taints, b.Taints) && sameTopology(a.Topology, b.Topology) &&
		a.MachineType == b.MachineType && sameNetwork(a.GPUNetwork, b.GPUNetwork) && sameKubernetes(a.Kubernetes, b.Kubernetes)
}

// sameKubernetes compares the versions pools are judged by, and where
// each came from (messages say which).
func sameKubernetes(a, b kubever.Version) bool {
	return a.Source == b.Source && (a.V == nil) == (b.V == nil) && (a.V == nil || a.V.EqualTo(b.V))
}

// sameNetwork compares gpu_network blocks, nil and empty told apart.
func sameNetwork(a, b *spec.PoolGPUNetwork) bool {
	if a == nil || b == nil {
		return a == b
	}
	return sameBool(a.Enabled, b.Enabled) && a.RDMAResource == b.RDMAResource && a.RDMADevices == b.RDMADevices
}

// sameTopology compares topology blocks, nil and empty told apart.
func sameTopology(a, b *spec.PoolTopology) bool {
	if a == nil || b == nil {
		return a == b
	}
	return (a.Levels == nil) == (b.Levels == nil) && slices.Equal(a.Levels, b.Levels) &&
		(a.NodesPerDomain == nil) == (b.NodesPerDomain == nil) && maps.Equal(a.NodesPerDomain, b.NodesPerDomain)
}

func sameBool(a, b *bool) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// copyPolicy is p with its own labels, taints and dedicated.
func copyPolicy(p spec.PoolPolicy) spec.PoolPolicy {
	p.Labels = maps.Clone(p.Labels)
	p.Taints = slices.Clone(p.Taints)
	if p.Dedicated != nil {
		dedicated := *p.Dedicated
		p.Dedicated = &dedicated
	}
	if p.Topology != nil {
		p.Topology = &spec.PoolTopology{Levels: slices.Clone(p.Topology.Levels), NodesPerDomain: maps.Clone(p.Topology.NodesPerDomain)}
	}
	if p.GPUNetwork != nil {
		n := *p.GPUNetwork
		if n.Enabled != nil {
			enabled := *n.Enabled
			n.Enabled = &enabled
		}
		p.GPUNetwork = &n
	}
	return p
}
