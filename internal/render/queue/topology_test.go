package queue

import (
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// Pools with a topology block, one per cloud family: each renders a Kueue
// Topology of its cloud's levels (ending with kubernetes.io/hostname) and a
// flavor naming it. The golden files hold the Topology and the flavor.
var topologyPools = []struct {
	name string
	pool spec.PoolPolicy
}{
	{"gke", spec.PoolPolicy{Name: "h100-tas-pool", Cloud: "gke", Accelerator: "h100-80gb", GPUsPerNode: 8,
		Topology: &spec.PoolTopology{NodesPerDomain: map[string]int64{"block": 4, "subblock": 2}}}},
	{"eks", spec.PoolPolicy{Name: "gpu-p5-tas", Cloud: "eks", Accelerator: "h100-80gb", GPUsPerNode: 8,
		Topology: &spec.PoolTopology{}}},
	{"karpenter", spec.PoolPolicy{Name: "p5-tas", Cloud: "karpenter", Accelerator: "h100-80gb", GPUsPerNode: 8,
		Topology: &spec.PoolTopology{Levels: []string{"layer-2", "layer-3"}}}},
	{"generic", spec.PoolPolicy{Name: "gb200-nvl72", Cloud: "generic", Accelerator: "gb200", GPUsPerNode: 4,
		Topology: &spec.PoolTopology{Levels: []string{"clique"}, NodesPerDomain: map[string]int64{"clique": 4}}}},
}

func TestRenderTopology_golden(t *testing.T) {
	var cases []rendertest.GoldenCase
	for _, c := range topologyPools {
		cases = append(cases, rendertest.GoldenCase{Name: c.name, Path: "testdata/topology/" + c.name + ".yaml",
			Text: func(t *testing.T) string {
				r := mustRender(t, teamQueue(spec.QueueFlavor{Pool: c.pool, GPUs: 16}))
				if len(r.Topologies) != 1 || r.Objects()[0] != r.Topologies[0] {
					t.Fatalf("want one Topology applied first, got %d", len(r.Topologies))
				}
				rf := r.ResourceFlavors[0]
				if rf.Spec.TopologyName == nil || string(*rf.Spec.TopologyName) != r.Topologies[0].Name {
					t.Errorf("flavor topologyName %v, want %q", rf.Spec.TopologyName, r.Topologies[0].Name)
				}
				if len(r.Ref.Flavors[0].TopologyLevels) == 0 {
					t.Error("the queue id carries no topology levels for the workloads")
				}
				manifest, err := workload.ManifestOf([]workload.Object{r.Topologies[0], rf})
				if err != nil {
					t.Fatal(err)
				}
				return manifest
			}})
	}
	rendertest.GoldenSuite(t, "testdata/topology/*.yaml", cases)
}

// A pool without a topology block renders as before: no Topology, no
// topologyName (a flavor with one has immutable node labels).
func TestRenderTopology_noneWithoutBlock(t *testing.T) {
	r := mustRender(t, teamQueue(spec.QueueFlavor{Pool: a100, GPUs: 8}))
	if len(r.Topologies) != 0 || r.ResourceFlavors[0].Spec.TopologyName != nil {
		t.Fatalf("topology rendered for a pool without one: %v", r.Topologies)
	}
}
