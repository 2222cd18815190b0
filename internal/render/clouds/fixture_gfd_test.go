package clouds_test

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// The local cluster's generic H100 and H200 nodes
// (scripts/localcluster/fixtures/generic.yaml) against the labels GPU
// Feature Discovery v0.20.0 wrote on a real H100 80GB HBM3 and a real H200
// (catalog/testdata/gfd, whose README says how they were read).

// fixtureGFDPool is a fixture pool whose GFD labels are a real reading.
type fixtureGFDPool struct {
	pool  string // fixtures.gpuform.io/pool
	dir   string // the reading under catalog/testdata/gfd
	accel string // the catalog id a workload asks for
	nodes int
}

var fixtureGFDPools = []fixtureGFDPool{
	{pool: "generic-h100", dir: "h100-80gb-hbm3", accel: "h100-80gb", nodes: 2},
	{pool: "generic-h200", dir: "h200", accel: "h200", nodes: 1},
}

const fixturePoolLabel = "fixtures.gpuform.io/pool"

// readGFDReading parses GFD's output file (one label=value per line) of a
// reading for a MIG strategy ("none", "single", "mixed").
func readGFDReading(t *testing.T, dir, strategy string) map[string]string {
	t.Helper()
	path := filepath.Join("..", "catalog", "testdata", "gfd", dir, "gfd-"+strategy+".txt")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	labels := map[string]string{}
	for line := range strings.Lines(string(raw)) {
		k, v, ok := strings.Cut(strings.TrimSuffix(line, "\n"), "=")
		if !ok {
			t.Fatalf("%s: %q is not label=value", path, line)
		}
		labels[k] = v
	}
	if len(labels) == 0 {
		t.Fatalf("%s: no labels", path)
	}
	return labels
}

// gfdLabelsOf are the node's labels in GFD's namespace: every nvidia.com/
// label except those the GPU Operator sets (gpu.present and the
// gpu.deploy.* switches of its operands).
func gfdLabelsOf(n *corev1.Node) map[string]string {
	out := map[string]string{}
	for k, v := range n.Labels {
		if !strings.HasPrefix(k, "nvidia.com/") || k == clouds.LabelGPUPresent || strings.HasPrefix(k, "nvidia.com/gpu.deploy.") {
			continue
		}
		out[k] = v
	}
	return out
}

func fixturePoolNodes(nodes []corev1.Node, pool string) []*corev1.Node {
	var out []*corev1.Node
	for i := range nodes {
		if nodes[i].Labels[fixturePoolLabel] == pool {
			out = append(out, &nodes[i])
		}
	}
	return out
}

// realGFDLabels are the labels GFD wrote on the reading's GPU with the MIG
// strategy, as they would be on node n: nvidia.com/gpu.count is the node's
// GPU count (the reading was taken on a one-GPU machine) and
// nvidia.com/gpu.machine its instance type (the reading's "unknown" comes
// from a missing DMI product name).
func realGFDLabels(t *testing.T, p fixtureGFDPool, strategy string, n *corev1.Node) map[string]string {
	t.Helper()
	labels := readGFDReading(t, p.dir, strategy)
	allocatable := n.Status.Allocatable[clouds.ResourceNvidiaGPU]
	labels["nvidia.com/gpu.count"] = strconv.FormatInt(allocatable.Value(), 10)
	labels["nvidia.com/gpu.machine"] = n.Labels[clouds.LabelInstanceType]
	return labels
}

// TestFixtureGFDLabelsAreReal: each node of the generic H100 and H200 pools
// carries exactly the labels GFD wrote on the real GPU with
// --mig-strategy=none, but for the two that follow from the machine
// (realGFDLabels), and its nvidia.com/gpu capacity and allocatable are the
// node's 8 GPUs.
func TestFixtureGFDLabelsAreReal(t *testing.T) {
	nodes := rendertest.LoadFixtureNodes(t, "generic")
	for _, p := range fixtureGFDPools {
		t.Run(p.pool, func(t *testing.T) {
			pool := fixturePoolNodes(nodes, p.pool)
			if len(pool) != p.nodes {
				t.Fatalf("%d nodes in pool %s, want %d", len(pool), p.pool, p.nodes)
			}
			for _, n := range pool {
				capacity, allocatable := n.Status.Capacity[clouds.ResourceNvidiaGPU], n.Status.Allocatable[clouds.ResourceNvidiaGPU]
				if allocatable.Value() != 8 || capacity.Cmp(allocatable) != 0 {
					t.Errorf("%s: nvidia.com/gpu capacity %s, allocatable %s, want 8 and 8", n.Name, capacity.String(), allocatable.String())
				}
				want, got := realGFDLabels(t, p, "none", n), gfdLabelsOf(n)
				keys := maps.Clone(got)
				maps.Copy(keys, want)
				for _, k := range slices.Sorted(maps.Keys(keys)) {
					if got[k] != want[k] {
						t.Errorf("%s: %s=%q, GFD on the real GPU: %q", n.Name, k, got[k], want[k])
					}
				}
			}
		})
	}
}

// TestFixtureGFDNodesTakeTheirModel: a generic whole-GPU workload of
// h100-80gb or h200, for one GPU and for a whole node's eight, rendered by
// workload.Render, fits (the scheduler's own node-affinity, taint and
// resource predicates, podFits) every node of its model's fixture pool and
// no other generic fixture GPU node; so the acceptance tests that land such
// workloads on the local cluster land there. It also fits those nodes with
// the labels GFD wrote under the "single" and "mixed" MIG strategies on the
// unpartitioned GPU (the GPU Operator's default strategy is single), which
// add nvidia.com/mig.strategy.
func TestFixtureGFDNodesTakeTheirModel(t *testing.T) {
	nodes := rendertest.LoadFixtureNodes(t, "generic")
	for _, p := range fixtureGFDPools {
		for _, count := range []int64{1, 8} {
			w := spec.Workload{Name: "fixture", Kind: spec.KindDeployment, Cloud: string(spec.CloudGeneric), Image: "registry.example/fixture:1",
				GPU: spec.GPU{Count: count, Accelerator: p.accel}}
			r, diags := workload.ResolveAndRender(w, workload.Options{SkipManifest: true})
			rendertest.RequireNoErrors(t, diags)
			pod := &corev1.Pod{Spec: r.PodTemplate().Spec}
			for i := range nodes {
				n := &nodes[i]
				if n.Labels[clouds.LabelGFDProduct] == "" && n.Labels[clouds.LabelGPUPresent] != "true" {
					continue // not a GPU node
				}
				fits, why := podFits(pod, n)
				if want := n.Labels[fixturePoolLabel] == p.pool; fits != want {
					t.Errorf("%s x%d on %s (pool %s): fits = %v (%s), want %v", p.accel, count, n.Name, n.Labels[fixturePoolLabel], fits, why, want)
				}
			}
			for _, n := range fixturePoolNodes(nodes, p.pool) {
				for _, strategy := range []string{"single", "mixed"} {
					variant := n.DeepCopy()
					for k := range gfdLabelsOf(n) {
						delete(variant.Labels, k)
					}
					maps.Copy(variant.Labels, realGFDLabels(t, p, strategy, n))
					if fits, why := podFits(pod, variant); !fits {
						t.Errorf("%s x%d on %s with GFD's --mig-strategy=%s labels: does not fit (%s)", p.accel, count, n.Name, strategy, why)
					}
				}
			}
		}
	}
}
