package capacity

import (
	"maps"
	"slices"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// topologyDomains groups a pool's nodes by the domain of its top topology
// level: the outermost level of the pool's cloud (clouds' topologyLevels,
// defaults first, then the others such as generic's NVLink clique) that its
// nodes carry. A multi-node job that must stay in one domain fits where one
// domain has the free GPUs, which the pool's total does not say. nil when
// no node carries a level.
func topologyDomains(pool *spec.PoolCapacity) []spec.TopologyDomain {
	level, ok := topLevel(clouds.Lookup(spec.Cloud(pool.Cloud)), pool.Nodes)
	if !ok {
		return nil
	}
	byValue := map[string]*spec.TopologyDomain{}
	for _, n := range pool.Nodes {
		value, ok := n.Labels[level.NodeLabel]
		if !ok {
			continue
		}
		d := byValue[value]
		if d == nil {
			d = &spec.TopologyDomain{Level: level.Name, NodeLabel: level.NodeLabel, Value: value}
			byValue[value] = d
		}
		d.Nodes++
		if !n.Unschedulable {
			d.FreeGPUs = clouds.AddSat(d.FreeGPUs, freeUnits(n))
		}
	}
	out := make([]spec.TopologyDomain, 0, len(byValue))
	for _, v := range slices.Sorted(maps.Keys(byValue)) {
		out = append(out, *byValue[v])
	}
	return out
}

// topLevel is the outermost level of the cloud that some node carries; the
// node level is not one (every node is its own domain, which the nodes
// already say).
func topLevel(cloud clouds.Topology, nodes []spec.NodeCapacity) (clouds.TopologyLevel, bool) {
	if !cloud.Known() {
		return clouds.TopologyLevel{}, false
	}
	for _, l := range cloud.TopologyLevels() {
		if l.Name == clouds.TopologyLevelNode {
			break
		}
		if slices.ContainsFunc(nodes, func(n spec.NodeCapacity) bool { _, ok := n.Labels[l.NodeLabel]; return ok }) {
			return l, true
		}
	}
	return clouds.TopologyLevel{}, false
}

// freeUnits is what the node has left of its GPU resources (whole GPUs,
// or MIG instances or shared slots on such pools), and of its DRA devices.
func freeUnits(n spec.NodeCapacity) int64 {
	var free int64
	for _, r := range n.Resources {
		free = clouds.AddSat(free, r.Free())
	}
	for _, d := range n.DRADevices {
		free = clouds.AddSat(free, d.Free())
	}
	return free
}
