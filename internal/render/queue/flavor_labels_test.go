package queue

import (
	"maps"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// Mixed queues as platform teams write them (issue #30): every pool's own
// workloads must be admitted by Kueue into that pool's flavor, and into no
// flavor whose nodes they cannot run on (a one-GPU V100 Job may take the
// 4 x V100 pool's flavor; a whole-GPU Job may not take a MIG pool's).
var mixedQueues = map[string][]spec.PoolPolicy{
	"generic H100 + time-sliced T4": {
		{Name: "h100", Cloud: "generic", Accelerator: "h100-80gb", GPUsPerNode: 8},
		{Name: "t4-shared", Cloud: "generic", Accelerator: "t4", GPUsPerNode: 1, Sharing: spec.SharingTimeSlicing, Replicas: 4},
	},
	"generic H100 + H200": {
		{Name: "h100", Cloud: "generic", Accelerator: "h100-80gb", GPUsPerNode: 8},
		{Name: "h200", Cloud: "generic", Accelerator: "h200", GPUsPerNode: 8},
	},
	"generic H100 x8 + x1 + mixed MIG A100": {
		{Name: "h100", Cloud: "generic", Accelerator: "h100-80gb", GPUsPerNode: 8},
		{Name: "h100-small", Cloud: "generic", Accelerator: "h100-80gb", GPUsPerNode: 1},
		{Name: "dgx-a100", Cloud: "generic", Accelerator: "a100-40gb", GPUsPerNode: 8, Partition: "3g.20gb", MIGStrategy: spec.MIGStrategyMixed},
	},
	"GKE whole + MIG A100 + shared L4": {a100, a100MIG, l4Shared},
	"GKE H100 + L4": {
		{Name: "h100", Cloud: "gke", Accelerator: "h100-80gb", GPUsPerNode: 8},
		{Name: "l4", Cloud: "gke", Accelerator: "l4", GPUsPerNode: 1},
	},
	"AKS A100 + V100 + 4 x V100": {
		{Name: "gpua100", Cloud: "aks", Accelerator: "a100-80gb", GPUsPerNode: 1},
		{Name: "gpuv100", Cloud: "aks", Accelerator: "v100-16gb", GPUsPerNode: 1},
		{Name: "gpuv100x4", Cloud: "aks", Accelerator: "v100-16gb", GPUsPerNode: 4},
	},
	"EKS A10G + A100 + MIG A100": {
		{Name: "a10g", Cloud: "eks", Accelerator: "a10g", GPUsPerNode: 4},
		eksA100,
		{Name: "p4d-mig", Cloud: "eks", Accelerator: "a100-40gb", GPUsPerNode: 8, Partition: "1g.5gb"},
	},
	"generic DRA H100 whole + DRA H100 MIG + MIG H100 (issue #41)": {
		{Name: "dra-h100", Cloud: "generic", Accelerator: "h100-80gb", GPUsPerNode: 8, GPUAllocation: spec.GPUAllocationDRA},
		{Name: "dra-h100-mig", Cloud: "generic", Accelerator: "h100-80gb", GPUsPerNode: 8, Partition: "2g.20gb",
			GPUAllocation: spec.GPUAllocationDRA},
		{Name: "h100-mig", Cloud: "generic", Accelerator: "h100-80gb", GPUsPerNode: 8, Partition: "2g.20gb"},
		{Name: "h100", Cloud: "generic", Accelerator: "h100-80gb", GPUsPerNode: 8},
	},
	"Karpenter L4 + L4 spot": {
		{Name: "l4", Cloud: "karpenter", Accelerator: "l4", GPUsPerNode: 4},
		{Name: "l4-spot", Cloud: "karpenter", Accelerator: "l4", GPUsPerNode: 4, Spot: true},
	},
}

func queueOf(pools []spec.PoolPolicy) spec.Queue {
	flavors := make([]spec.QueueFlavor, len(pools))
	for i, p := range pools {
		flavors[i] = spec.QueueFlavor{Pool: p, Nodes: 1}
	}
	return teamQueue(flavors...)
}

// podOnPool is the pod template of a one-unit gpu_workload placed on p,
// and the resource Kueue counts it in.
func podOnPool(t *testing.T, p spec.PoolPolicy) (podPlacement, string) {
	t.Helper()
	g := spec.GPU{Count: 1}
	w, diags := pool.Apply(spec.Workload{Name: "w", Namespace: "team-a", Kind: spec.KindJob, Image: "r.invalid/i:1", GPU: g}, p)
	if diags.HasError() {
		t.Fatalf("pool.Apply(%s): %v", p.Name, diags)
	}
	// As gpu_workload renders it: with the pool, whose own selector
	// (clouds.PoolSelector) the pod carries too.
	rendered, diags := workload.ResolveAndRender(w, workload.Options{SkipManifest: true, Pool: &p})
	if diags.HasError() {
		t.Fatalf("render on %s: %v", p.Name, diags)
	}
	demand := DemandOf(w, rendered)
	return demand.Placement, demand.Resource
}

func TestMixedQueuesAdmitEachPoolsWorkToItsOwnFlavor(t *testing.T) {
	for _, name := range slices.Sorted(maps.Keys(mixedQueues)) {
		pools := mixedQueues[name]
		t.Run(name, func(t *testing.T) {
			r, diags := Render(queueOf(pools))
			if diags.HasError() {
				t.Fatalf("Render: %v", diags)
			}
			var all []map[string]string
			for _, rf := range r.ResourceFlavors {
				all = append(all, rf.Spec.NodeLabels)
			}
			keys := labelKeys(all...)
			for i, p := range pools {
				placement, resource := podOnPool(t, p)
				own := false
				for j, rf := range r.ResourceFlavors {
					if r.Ref.Flavors[j].Resource != resource || !kueueSelects(placement, keys, rf.Spec.NodeLabels) {
						continue
					}
					own = own || j == i
					if !runsOnAny(placement, r.Ref.Flavors[j].nodeVariants()) {
						t.Errorf("%s's workload: Kueue admits it into flavor %q, whose nodes it cannot run on (flavors %v)",
							p.Name, rf.Name, all)
					}
				}
				if !own {
					t.Errorf("%s's workload: Kueue does not admit it into its own flavor %q (flavors %v)", p.Name,
						r.ResourceFlavors[i].Name, all)
				}
			}
		})
	}
}

// A flavor names the pool by the label the cloud sets to the pool's name.
func TestFlavorSelectsThePoolByItsName(t *testing.T) {
	for cloud, label := range map[string]string{
		"gke": "cloud.google.com/gke-nodepool", "aks": "kubernetes.azure.com/agentpool",
		"eks": "eks.amazonaws.com/nodegroup", "karpenter": "karpenter.sh/nodepool", "eks-auto": "karpenter.sh/nodepool",
	} {
		p := spec.PoolPolicy{Name: "gpupool", Cloud: cloud, Accelerator: "l4", GPUsPerNode: 1}
		if cloud == "aks" {
			p.Accelerator = "t4"
		}
		if cloud == "eks-auto" {
			p.Accelerator, p.GPUsPerNode = "l40s", 4
		}
		r := mustRender(t, queueOf([]spec.PoolPolicy{p}))
		if got := r.ResourceFlavors[0].Spec.NodeLabels[label]; got != "gpupool" {
			t.Errorf("%s: flavor labels %v, want %s=gpupool", cloud, r.ResourceFlavors[0].Spec.NodeLabels, label)
		}
	}
}

func TestFlavorLabelFindings(t *testing.T) {
	h100 := spec.PoolPolicy{Name: "h100", Cloud: "generic", Accelerator: "h100-80gb", GPUsPerNode: 8}
	t4 := spec.PoolPolicy{Name: "t4", Cloud: "generic", Accelerator: "t4", GPUsPerNode: 1}
	cases := []struct {
		name     string
		pools    []spec.PoolPolicy
		severity gpudiag.Severity // when path is set
		path     string
		detail   string
	}{
		{"a model of several product names is guessed, and said so", []spec.PoolPolicy{h100}, gpudiag.SeverityWarning,
			"flavor[0].node_pool", "selects nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3 (the pool's nodes may report any of"},
		{"a model of one product name is not", []spec.PoolPolicy{t4}, 0, "", ""},
		{"a pool's own label replaces the guess", []spec.PoolPolicy{withLabels(h100, "pool", "h100")}, 0, "", ""},
		{"two pools no label tells apart", []spec.PoolPolicy{h100, withSpot(h100, "h100-spot")}, gpudiag.SeverityError,
			"flavor[0].node_pool", "also select \"h100-spot\"'s nodes"},
		{"an AKS pool named unlike any agent pool", []spec.PoolPolicy{{Name: "a100-pool", Cloud: "aks", Accelerator: "a100-80gb", GPUsPerNode: 1}},
			gpudiag.SeverityError, "flavor[0].node_pool", "cannot name an AKS agent pool"},
		{"a guess forced by another flavor's key", []spec.PoolPolicy{withLabels(h100, "pool", "h100"), t4}, gpudiag.SeverityWarning,
			"flavor[0].node_pool", "Kueue matches on nvidia.com/gpu.product in this queue because other flavors name it"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, diags := Render(queueOf(c.pools))
			if c.path == "" {
				if len(diags) > 0 {
					t.Fatalf("want no findings, got %v", diags)
				}
				return
			}
			if !slices.ContainsFunc(diags, func(d gpudiag.Diagnostic) bool {
				return d.Severity == c.severity && d.PathString() == c.path && strings.Contains(d.Detail, c.detail)
			}) {
				t.Fatalf("want %s at %s containing %q, got %v", c.severity, c.path, c.detail, diags)
			}
		})
	}
}

func withLabels(p spec.PoolPolicy, k, v string) spec.PoolPolicy {
	p.Labels = map[string]string{k: v}
	return p
}

// withSpot: spot changes nothing on generic clusters, so the two pools'
// nodes look the same.
func withSpot(p spec.PoolPolicy, name string) spec.PoolPolicy {
	p.Name, p.Spot = name, true
	return p
}

// syntheticFlavor is a flavor whose pool is given directly, for the rules no
// real pool of today's clouds reaches.
func syntheticFlavor(index int, name string, selector map[string]string, affinity *corev1.Affinity, nodes map[string]string, choices map[string][]string) flavor {
	return flavor{index: index, spec: spec.QueueFlavor{Pool: spec.PoolPolicy{Name: name, Cloud: "generic", Accelerator: "x"}},
		pool: &spec.PoolRendered{ResourceName: "example.com/gpu", NodeSelector: selector, Affinity: affinity,
			CloudSetLabels: nodes, IdentityLabels: map[string]string{"pool": name}, LabelChoices: choices}}
}

func in(key string, values ...string) *corev1.Affinity {
	return requiredAffinity([]corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
		{Key: key, Operator: corev1.NodeSelectorOpIn, Values: values}}}})
}

// A key another flavor names, required by a pool whose nodes carry no value
// of it at all: Kueue would never admit that pool's work.
func TestFlavorLabelsRefuseWorkKueueCanNeverAdmit(t *testing.T) {
	flavors := []flavor{
		syntheticFlavor(0, "a", map[string]string{"model": "a"}, nil, map[string]string{"model": "a", "pool": "a"}, nil),
		syntheticFlavor(1, "b", nil, in("model", "b", "c"), map[string]string{"pool": "b"}, nil),
	}
	var diags gpudiag.Diagnostics
	assignFlavorLabels(flavors, &diags)
	requireFinding(t, diags, "flavor[1].node_pool", "Kueue can never admit this pool's work")
}

// Two pools whose work Kueue would let into each other's flavor although it
// cannot run there, with no label that tells them apart.
func TestFlavorLabelsRefuseWorkAdmittedWhereItCannotRun(t *testing.T) {
	notIn := requiredAffinity([]corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
		{Key: "size", Operator: corev1.NodeSelectorOpNotIn, Values: []string{"s2", "s3"}}}}})
	flavors := []flavor{
		syntheticFlavor(0, "a", nil, notIn, map[string]string{"pool": "a"}, map[string][]string{"size": {"s1", "s0"}}),
		syntheticFlavor(1, "b", nil, nil, map[string]string{"pool": "b"}, map[string][]string{"size": {"s2", "s3"}}),
	}
	var diags gpudiag.Diagnostics
	assignFlavorLabels(flavors, &diags)
	requireFinding(t, diags, "flavor[1].node_pool", "Kueue could admit another pool's work here")
}

// Work Kueue would let into another flavor is kept out by a label of that
// pool's nodes that the work's selection contradicts.
func TestFlavorLabelsAddTheLabelThatTellsPoolsApart(t *testing.T) {
	flavors := []flavor{
		syntheticFlavor(0, "a", map[string]string{"vendor": "x"}, in("size", "s1"), map[string]string{"vendor": "x", "size": "s1"}, nil),
		syntheticFlavor(1, "b", map[string]string{"vendor": "x"}, in("size", "s2"), map[string]string{"vendor": "x", "size": "s2"}, nil),
	}
	var diags gpudiag.Diagnostics
	assignFlavorLabels(flavors, &diags)
	if diags.HasError() {
		t.Fatalf("findings: %v", diags)
	}
	if flavors[0].labels["size"] != "s1" || flavors[1].labels["size"] != "s2" {
		t.Fatalf("labels %v, %v: want each pool's size", flavors[0].labels, flavors[1].labels)
	}
}

func requireFinding(t *testing.T, diags gpudiag.Diagnostics, path, summary string) {
	t.Helper()
	if !hasFinding(diags, path, summary) {
		t.Fatalf("want %q at %s, got %v", summary, path, diags)
	}
}
