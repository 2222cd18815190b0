package capacity

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
)

// The local cluster's topology pools report their top level's domains:
// GKE blocks, AWS layer-1 network nodes, generic NVLink cliques, each with
// its nodes and free GPUs; two busy GPUs count against their own block.
func TestSummarizeTopologyDomains(t *testing.T) {
	nodes := rendertest.LoadFixtureNodes(t)
	busy := capacityPod("train-0", "gke-h100-tas-0", corev1.PodRunning, map[string]int64{"nvidia.com/gpu": 8}, nil)
	pools := Summarize(nodes, []corev1.Pod{busy})
	for _, c := range []struct {
		key, level string
		want       string
	}{
		{"gke/h100-tas-pool", "block", "[4 nodes 24 free, 4 nodes 32 free]"},
		{"eks/gpu-p5-tas", "layer-1", "[4 nodes 32 free, 4 nodes 32 free]"},
		{"generic/NVIDIA-GB200", "clique", "[4 nodes 16 free, 4 nodes 16 free]"},
	} {
		p := findCapacityPool(t, pools, c.key)
		var got []string
		for _, d := range p.TopologyDomains {
			if d.Level != c.level || d.Value == "" {
				t.Errorf("%s: domain %+v, want level %s", c.key, d, c.level)
			}
			got = append(got, fmt.Sprintf("%d nodes %d free", d.Nodes, d.FreeGPUs))
		}
		if "["+strings.Join(got, ", ")+"]" != c.want {
			t.Errorf("%s domains %v, want %s", c.key, got, c.want)
		}
	}
	if p := findCapacityPool(t, pools, "gke/a100-pool"); len(p.TopologyDomains) != 0 {
		t.Errorf("a pool without topology labels reports domains %+v", p.TopologyDomains)
	}
}
