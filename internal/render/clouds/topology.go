package clouds

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/names"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// A pool's network topology, for topology-aware placement (Kueue's
// Topology Aware Scheduling, docs/design/topology.md). Each cloud says in
// its own file which node labels record where a node sits (topologyLevels);
// this file turns a pool's topology block into the ordered levels a Kueue
// Topology lists and a workload's topology request names.

// TopologyLevel is one level a cloud's nodes may carry: its name in the
// user's words, the node label holding a node's domain at that level, and
// whether a pool on the cloud has it unless told otherwise.
type TopologyLevel struct {
	Name      string
	NodeLabel string
	Default   bool
}

// TopologyLevelNode is the innermost level every pool has: one node,
// kubernetes.io/hostname. Kueue places pods on nodes through it, and
// accepts the hostname label only as the last level.
const TopologyLevelNode = "node"

// LabelHostname is the node label of TopologyLevelNode.
const LabelHostname = "kubernetes.io/hostname"

// maxTopologyLevels is Kueue's limit on a Topology's levels.
const maxTopologyLevels = 16

// nodeLevel is TopologyLevelNode as a level.
var nodeLevel = TopologyLevel{Name: TopologyLevelNode, NodeLabel: LabelHostname, Default: true}

// TopologyLevels are the levels the cloud knows by name, outermost first,
// then the node level: the allowed names of a pool's topology.levels and of
// a workload's topology.level. Any node label key is accepted besides.
func (c Cloud) TopologyLevels() []TopologyLevel {
	return append(slices.Clone(c.topologyLevels()), nodeLevel)
}

// TopologyLevelNames are TopologyLevels' names.
func (c Cloud) TopologyLevelNames() []string {
	var out []string
	for _, l := range c.TopologyLevels() {
		out = append(out, l.Name)
	}
	return out
}

// defaultTopologyLevels are the names a pool's topology has when its block
// lists none; empty where the cloud has no standard topology labels.
func (c Cloud) defaultTopologyLevels() []string {
	var out []string
	for _, l := range c.topologyLevels() {
		if l.Default {
			out = append(out, l.Name)
		}
	}
	return out
}

// ResolvedLevel is one level of a pool's topology (spec.TopologyLevel).
type ResolvedLevel = spec.TopologyLevel

// PoolTopology resolves a pool's topology block on its cloud: the levels,
// outermost first and ending with the node level, and their shape. nil
// without a block. Findings are at topology.levels and
// topology.nodes_per_domain; an unknown cloud resolves nothing. Levels may
// be unknown until strict, so a cloud without defaults refuses an empty
// list only then.
func PoolTopology(c Topology, t *spec.PoolTopology, strict bool) ([]ResolvedLevel, gpudiag.Diagnostics) {
	var diags gpudiag.Diagnostics
	if t == nil || !c.Known() {
		return nil, diags
	}
	requested := t.Levels
	if requested == nil {
		requested = c.defaultTopologyLevels()
		if len(requested) == 0 && !strict {
			return nil, diags
		}
		if len(requested) == 0 {
			diags.AddError(gpudiag.At("topology", "levels"), "No topology levels on "+string(c.Name()),
				"Nodes on "+strconv.Quote(string(c.Name()))+" carry no standard network topology labels, so the pool's levels "+
					"must be listed. Allowed: levels named "+gpudiag.QuoteList(c.TopologyLevelNames())+
					", or node label keys (outermost first), e.g. levels = [\"clique\"] on an NVL72 pool.")
			return nil, diags
		}
	}
	levels := resolveLevelNames(c, requested, &diags)
	if diags.HasError() {
		return nil, diags
	}
	applyShape(levels, t.NodesPerDomain, &diags)
	if diags.HasError() {
		return nil, diags
	}
	return levels, diags
}

// resolveLevelNames maps each name to its label, refuses duplicates and a
// node level that is not last, and appends the node level.
func resolveLevelNames(c Topology, requested []string, diags *gpudiag.Diagnostics) []ResolvedLevel {
	known := c.TopologyLevels()
	var out []ResolvedLevel
	seen := map[string]bool{}
	for i, name := range requested {
		path := gpudiag.At("topology", "levels", i)
		level, ok := lookupLevel(known, name)
		if !ok {
			diags.AddError(path, "Unknown topology level", strconv.Quote(name)+" is not a topology level of "+
				strconv.Quote(string(c.Name()))+" nor a node label key. Allowed: "+gpudiag.QuoteList(c.TopologyLevelNames())+
				", or a node label key such as \"example.com/rack\".")
			continue
		}
		if seen[level.NodeLabel] {
			diags.AddError(path, "Duplicate topology level", strconv.Quote(name)+" (node label "+level.NodeLabel+
				") is listed twice. Allowed: each level once, outermost first.")
			continue
		}
		if level.NodeLabel == LabelHostname && i != len(requested)-1 {
			diags.AddError(path, "The node level must be last", "Kueue accepts "+LabelHostname+" only as the innermost "+
				"level of a Topology. Allowed: "+strconv.Quote(TopologyLevelNode)+" last, or left out (it is added).")
			continue
		}
		seen[level.NodeLabel] = true
		out = append(out, ResolvedLevel{Name: level.Name, NodeLabel: level.NodeLabel})
	}
	if !seen[LabelHostname] {
		out = append(out, ResolvedLevel{Name: TopologyLevelNode, NodeLabel: LabelHostname})
	}
	out[len(out)-1].Nodes = 1
	if len(out) > maxTopologyLevels {
		diags.AddError(gpudiag.At("topology", "levels"), "Too many topology levels", strconv.Itoa(len(out))+
			" levels (with the node level), and a Kueue Topology holds at most "+strconv.Itoa(maxTopologyLevels)+".")
	}
	return out
}

// lookupLevel finds a level by name or node label; any other valid label
// key is a level of its own, named by the key.
func lookupLevel(known []TopologyLevel, name string) (TopologyLevel, bool) {
	for _, l := range known {
		if l.Name == name || l.NodeLabel == name {
			return l, true
		}
	}
	if l, ok := LabelKeyLevel(name); ok {
		return TopologyLevel{Name: l.Name, NodeLabel: l.NodeLabel}, true
	}
	return TopologyLevel{}, false
}

// LabelKeyLevel is a level given as a node label key (it has a '/' prefix,
// so it cannot be mistaken for a level name), named by the key.
func LabelKeyLevel(name string) (spec.TopologyLevel, bool) {
	if strings.Contains(name, "/") && len(names.LabelKey(name)) == 0 {
		return spec.TopologyLevel{Name: name, NodeLabel: name}, true
	}
	return spec.TopologyLevel{}, false
}

// applyShape sets the nodes per domain the pool declares. A domain holds
// every domain of the levels below it, so an inner level may not have more
// nodes than an outer one.
func applyShape(levels []ResolvedLevel, shape map[string]int64, diags *gpudiag.Diagnostics) {
	for _, key := range slices.Sorted(maps.Keys(shape)) {
		path := gpudiag.At("topology", "nodes_per_domain", gpudiag.MapKey(key))
		i := slices.IndexFunc(levels, func(l ResolvedLevel) bool { return l.Name == key || l.NodeLabel == key })
		switch {
		case i < 0:
			diags.AddError(path, "Not a level of the pool", strconv.Quote(key)+" is not one of the pool's topology levels. "+
				"Allowed: "+gpudiag.QuoteList(levelNames(levels[:len(levels)-1]))+".")
		case i == len(levels)-1:
			diags.AddError(path, "The node level holds one node", "A domain of "+strconv.Quote(TopologyLevelNode)+
				" is one node by definition. Allowed: "+gpudiag.QuoteList(levelNames(levels[:len(levels)-1]))+".")
		case shape[key] < 1:
			diags.AddError(path, "Invalid domain size", "nodes_per_domain must be at least 1.")
		default:
			levels[i].Nodes = shape[key]
		}
	}
	checkNesting(levels, diags)
}

// checkNesting: nodes per domain never grows towards the inner levels.
func checkNesting(levels []ResolvedLevel, diags *gpudiag.Diagnostics) {
	outer := -1
	for i, l := range levels {
		if l.Nodes == 0 {
			continue
		}
		if outer >= 0 && l.Nodes > levels[outer].Nodes {
			diags.AddError(gpudiag.At("topology", "nodes_per_domain", gpudiag.MapKey(l.Name)), "A level larger than the one above it",
				"A domain of "+strconv.Quote(l.Name)+" has "+strconv.FormatInt(l.Nodes, 10)+" nodes, more than one of "+
					strconv.Quote(levels[outer].Name)+" ("+strconv.FormatInt(levels[outer].Nodes, 10)+"), which contains it. "+
					"Allowed: at most "+strconv.FormatInt(levels[outer].Nodes, 10)+".")
		}
		outer = i
	}
}

func levelNames(levels []ResolvedLevel) []string {
	out := make([]string, len(levels))
	for i, l := range levels {
		out[i] = l.Name
	}
	return out
}

// FindLevel finds a level of resolved levels by name or node label.
func FindLevel(levels []ResolvedLevel, name string) (int, bool) {
	i := slices.IndexFunc(levels, func(l ResolvedLevel) bool { return l.Name == name || l.NodeLabel == name })
	return i, i >= 0
}

// LevelNames are the names of resolved levels, for Details.
func LevelNames(levels []ResolvedLevel) []string { return levelNames(levels) }
