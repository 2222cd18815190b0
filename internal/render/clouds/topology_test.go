package clouds

import (
	"strings"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// Each pool cloud's default levels, outermost first, ending with the node.
func TestPoolTopology_defaultsPerCloud(t *testing.T) {
	want := map[spec.Cloud]string{
		spec.CloudGKE:       "cloud.google.com/gce-topology-block cloud.google.com/gce-topology-subblock cloud.google.com/gce-topology-host kubernetes.io/hostname",
		spec.CloudEKS:       "topology.k8s.aws/network-node-layer-1 topology.k8s.aws/network-node-layer-2 topology.k8s.aws/network-node-layer-3 kubernetes.io/hostname",
		spec.CloudKarpenter: "topology.k8s.aws/network-node-layer-1 topology.k8s.aws/network-node-layer-2 topology.k8s.aws/network-node-layer-3 kubernetes.io/hostname",
		spec.CloudEKSAuto:   "topology.k8s.aws/network-node-layer-1 topology.k8s.aws/network-node-layer-2 topology.k8s.aws/network-node-layer-3 kubernetes.io/hostname",
	}
	for cloud, labels := range want {
		levels, diags := PoolTopology(Lookup(cloud), &spec.PoolTopology{}, true)
		if diags.HasError() {
			t.Fatalf("%s: %v", cloud, diags)
		}
		var got []string
		for _, l := range levels {
			got = append(got, l.NodeLabel)
		}
		if strings.Join(got, " ") != labels {
			t.Errorf("%s levels %v, want %s", cloud, got, labels)
		}
	}
	// Generic and AKS have no standard labels: the levels must be listed.
	for _, cloud := range []spec.Cloud{spec.CloudGeneric, spec.CloudAKS} {
		if _, diags := PoolTopology(Lookup(cloud), &spec.PoolTopology{}, true); !diags.HasError() || diags[0].PathString() != "topology.levels" {
			t.Errorf("%s without levels: %v", cloud, diags)
		}
	}
	levels, _ := PoolTopology(Lookup(spec.CloudGeneric), &spec.PoolTopology{Levels: []string{"clique"}, NodesPerDomain: map[string]int64{"clique": 18}}, true)
	if len(levels) != 2 || levels[0].NodeLabel != "nvidia.com/gpu.clique" || levels[0].Nodes != 18 || levels[1].Nodes != 1 {
		t.Errorf("generic clique levels %+v", levels)
	}
}

func TestPoolTopology_badInput(t *testing.T) {
	gke := Lookup(spec.CloudGKE)
	for _, c := range []struct {
		topology spec.PoolTopology
		path     string
		detail   string
	}{
		{spec.PoolTopology{Levels: []string{"rack"}}, "topology.levels[0]", `Allowed: "block", "subblock", "host", "node"`},
		{spec.PoolTopology{Levels: []string{"block", "cloud.google.com/gce-topology-block"}}, "topology.levels[1]", "listed twice"},
		{spec.PoolTopology{Levels: []string{"node", "block"}}, "topology.levels[0]", "only as the innermost"},
		{spec.PoolTopology{NodesPerDomain: map[string]int64{"rack": 2}}, `topology.nodes_per_domain["rack"]`, "not one of the pool's topology levels"},
		{spec.PoolTopology{NodesPerDomain: map[string]int64{"node": 2}}, `topology.nodes_per_domain["node"]`, "one node by definition"},
		{spec.PoolTopology{NodesPerDomain: map[string]int64{"block": 2, "subblock": 4}}, `topology.nodes_per_domain["subblock"]`, "Allowed: at most 2"},
	} {
		_, diags := PoolTopology(gke, &c.topology, true)
		found := false
		for _, d := range diags {
			found = found || (d.PathString() == c.path && strings.Contains(d.Detail, c.detail))
		}
		if !found {
			t.Errorf("%+v: want %s containing %q, got %v", c.topology, c.path, c.detail, diags)
		}
	}
}
