package capacity

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// fitting lists the keys of the pools a placement fits.
func fittingPools(matches []PoolMatch) []string {
	var keys []string
	for _, m := range matches {
		if m.Fits {
			keys = append(keys, m.Pool)
		}
	}
	return keys
}

func matchOfPool(t *testing.T, matches []PoolMatch, key string) PoolMatch {
	t.Helper()
	for _, m := range matches {
		if m.Pool == key {
			return m
		}
	}
	t.Fatalf("no match for %s", key)
	return PoolMatch{}
}

// TestWorkloadsAgainstFixtures renders workloads with Render and asks which
// fixture pools could take them: the "why pending" question.
func TestWorkloadsAgainstFixtures(t *testing.T) {
	pools := Summarize(rendertest.LoadFixtureNodes(t), nil)
	cases := []struct {
		name string
		w    spec.Workload
		want []string
	}{
		{"gke whole A100 avoids the MIG pool", rendertest.WorkloadOn(spec.CloudGKE, spec.GPU{Count: 8, Accelerator: "a100-40gb"}, false), []string{"gke/a100-pool"}},
		{"gke 2g.10gb", rendertest.WorkloadOn(spec.CloudGKE, spec.GPU{Count: 1, Accelerator: "a100-40gb", Partition: "2g.10gb"}, false), []string{"gke/a100-mig-pool"}},
		{"gke time-shared L4", rendertest.WorkloadOn(spec.CloudGKE, spec.GPU{Count: 1, Accelerator: "l4", Sharing: spec.SharingTimeSlicing, MaxSharedClients: 4}, false), []string{"gke/l4-shared-pool"}},
		// The local cluster mixes GKE Standard and Autopilot fixtures: the
		// unshared L4 nodes are Autopilot's.
		{"gke whole L4 avoids the shared pool", rendertest.WorkloadOn(spec.CloudGKE, spec.GPU{Count: 1, Accelerator: "l4"}, false), []string{
			"gke-autopilot/nap-g2-standard-24-gpu2-abcd2", "gke-autopilot/nap-g2-standard-8-gpu1-abcd0", "gke-autopilot/nap-g2-standard-8-gpu1-abcd1"}},
		{"autopilot 2 x L4", rendertest.WorkloadOn(spec.CloudGKEAutopilot, spec.GPU{Count: 2, Accelerator: "l4"}, false), []string{"gke-autopilot/nap-g2-standard-24-gpu2-abcd2"}},
		{"aks A100 80GB", rendertest.WorkloadOn(spec.CloudAKS, spec.GPU{Count: 1, Accelerator: "a100-80gb"}, false), []string{"aks/gpua100"}},
		{"aks V100 on either pool", rendertest.WorkloadOn(spec.CloudAKS, spec.GPU{Count: 1, Accelerator: "v100-16gb"}, false), []string{"aks/gpuv100", "aks/gpuv100x4"}},
		{"eks spot A100", rendertest.WorkloadOn(spec.CloudEKS, spec.GPU{Count: 8, Accelerator: "a100-40gb"}, true), []string{"eks/gpu-p4d-spot"}},
		{"eks-auto L40S", rendertest.WorkloadOn(spec.CloudEKSAuto, spec.GPU{Count: 1, Accelerator: "l40s"}, false), []string{"eks-auto/gpu"}},
		{"karpenter spot L4", rendertest.WorkloadOn(spec.CloudKarpenter, spec.GPU{Count: 1, Accelerator: "l4"}, true), []string{"karpenter/gpu"}},
		{"generic time-sliced T4", rendertest.WorkloadOn(spec.CloudGeneric, spec.GPU{Count: 1, Accelerator: "t4", Sharing: spec.SharingTimeSlicing, MaxSharedClients: 4}, false), []string{"generic/Tesla-T4/time-slicing-4"}},
		{"generic mixed 3g.20gb", rendertest.WorkloadOn(spec.CloudGeneric, spec.GPU{Count: 1, Accelerator: "a100-40gb", Partition: "3g.20gb", MIGStrategy: spec.MIGStrategyMixed}, false), []string{"generic/NVIDIA-A100-SXM4-40GB/mig-all-balanced"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, diags := workload.ResolveAndRender(c.w, workload.Options{})
			rendertest.RequireNoErrors(t, diags)
			got := fittingPools(MatchingPools(pools, r.NodeSelector, r.Affinity, r.Tolerations, r.ResourceName))
			if !slices.Equal(got, c.want) {
				t.Fatalf("fits %v, want %v", got, c.want)
			}
		})
	}
}

// TestPoliciesDescribeFixtures: pool policies written for the fixture pools
// place pods onto exactly those pools, which keeps both honest.
func TestPoliciesDescribeFixtures(t *testing.T) {
	pools := Summarize(rendertest.LoadFixtureNodes(t), nil)
	cases := []struct {
		pool spec.PoolPolicy
		want string
	}{
		{spec.PoolPolicy{Name: "a100-pool", Cloud: "gke", Accelerator: "a100-40gb", GPUsPerNode: 8}, "gke/a100-pool"},
		{spec.PoolPolicy{Name: "a100-mig-pool", Cloud: "gke", Accelerator: "a100-40gb", GPUsPerNode: 8, Partition: "2g.10gb"}, "gke/a100-mig-pool"},
		{spec.PoolPolicy{Name: "l4-shared-pool", Cloud: "gke", Accelerator: "l4", GPUsPerNode: 1, Sharing: spec.SharingTimeSlicing, Replicas: 4}, "gke/l4-shared-pool"},
		{spec.PoolPolicy{Name: "gpua100", Cloud: "aks", Accelerator: "a100-80gb", GPUsPerNode: 1}, "aks/gpua100"},
		{spec.PoolPolicy{Name: "gpu-g5", Cloud: "eks", Accelerator: "a10g", GPUsPerNode: 4}, "eks/gpu-g5"},
		{spec.PoolPolicy{Name: "gpu", Cloud: "eks-auto", Accelerator: "l40s", GPUsPerNode: 4}, "eks-auto/gpu"},
		{spec.PoolPolicy{Name: "gpu", Cloud: "karpenter", Accelerator: "l4", GPUsPerNode: 4}, "karpenter/gpu"},
		{spec.PoolPolicy{Name: "t4-shared", Cloud: "generic", Accelerator: "t4", GPUsPerNode: 1, Sharing: spec.SharingTimeSlicing, Replicas: 4}, "generic/Tesla-T4/time-slicing-4"},
		{spec.PoolPolicy{Name: "dgx", Cloud: "generic", Accelerator: "h100-80gb", GPUsPerNode: 8}, "generic/NVIDIA-H100-80GB-HBM3"},
	}
	for _, c := range cases {
		t.Run(c.want, func(t *testing.T) {
			r, diags := pool.Render(c.pool)
			rendertest.RequireNoErrors(t, diags)
			got := fittingPools(MatchingPools(pools, r.NodeSelector, r.Affinity, r.Tolerations, r.ResourceName))
			if !slices.Contains(got, c.want) {
				t.Fatalf("fits %v, want it to include %s", got, c.want)
			}
		})
	}
	balanced := spec.PoolPolicy{Name: "dgx-a100", Cloud: "generic", Accelerator: "a100-40gb", GPUsPerNode: 8, Partition: spec.PartitionAllBalanced, MIGStrategy: spec.MIGStrategyMixed}
	r, diags := pool.Render(balanced)
	rendertest.RequireNoErrors(t, diags)
	for _, res := range r.ResourceNames {
		m := matchOfPool(t, MatchingPools(pools, r.NodeSelector, r.Affinity, r.Tolerations, res), "generic/NVIDIA-A100-SXM4-40GB/mig-all-balanced")
		if !m.Fits || m.MaxFree != r.ResourcesPerNode[res] {
			t.Errorf("%s: %+v, want a fit with %d free", res, m, r.ResourcesPerNode[res])
		}
	}
}

func TestMatchingPoolsReasons(t *testing.T) {
	pools := Summarize(rendertest.LoadFixtureNodes(t, "gke", "karpenter"), []corev1.Pod{
		capacityPod("a", "gke-l4-shared-0", corev1.PodRunning, map[string]int64{"nvidia.com/gpu": 4}, nil),
	})
	pools[0].Nodes[0].Unschedulable = true // gke/a100-mig-pool
	l4 := rendertest.WorkloadOn(spec.CloudGKE, spec.GPU{Count: 1, Accelerator: "l4", Sharing: spec.SharingTimeSlicing}, false)
	r, diags := workload.ResolveAndRender(l4, workload.Options{})
	rendertest.RequireNoErrors(t, diags)
	matches := MatchingPools(pools, r.NodeSelector, r.Affinity, r.Tolerations, r.ResourceName)

	shared := matchOfPool(t, matches, "gke/l4-shared-pool")
	if shared.Fits || shared.PlacementNodes != 1 || shared.FreeNodes != 0 ||
		!slices.Equal(shared.Reasons, []string{"1/1 nodes: all 4 nvidia.com/gpu requested by other pods"}) {
		t.Errorf("full pool: %+v", shared)
	}
	a100 := matchOfPool(t, matches, "gke/a100-pool")
	wantA100 := []string{
		"2/2 nodes: node selector cloud.google.com/gke-accelerator=nvidia-l4: node has cloud.google.com/gke-accelerator=nvidia-tesla-a100",
		"2/2 nodes: node selector cloud.google.com/gke-gpu-sharing-strategy=time-sharing: node has no cloud.google.com/gke-gpu-sharing-strategy label",
	}
	if a100.Fits || !slices.Equal(a100.Reasons, wantA100) {
		t.Errorf("a100 pool reasons:\n%s", strings.Join(a100.Reasons, "\n"))
	}
	mig := matchOfPool(t, matches, "gke/a100-mig-pool")
	if !slices.Contains(mig.Reasons, "1/1 nodes: node is cordoned (spec.unschedulable)") {
		t.Errorf("cordoned: %v", mig.Reasons)
	}
	// The GPU taint is tolerated (Exists); the GKE labels are what is missing.
	karp := matchOfPool(t, matches, "karpenter/gpu")
	if !slices.Contains(karp.Reasons, "3/3 nodes: node selector cloud.google.com/gke-accelerator=nvidia-l4: node has no cloud.google.com/gke-accelerator label") ||
		slices.ContainsFunc(karp.Reasons, func(s string) bool { return strings.Contains(s, "taint") }) {
		t.Errorf("karpenter reasons: %v", karp.Reasons)
	}
}

func TestMatchingPoolsAffinityAndTaintRules(t *testing.T) {
	pool := spec.PoolCapacity{Key: "k", Nodes: []spec.NodeCapacity{{
		Name:      "n1",
		Labels:    map[string]string{"gpu": "a100", "count": "8"},
		Taints:    []corev1.Taint{{Key: "dedicated", Value: "ml", Effect: corev1.TaintEffectNoExecute}, {Key: "soft", Effect: corev1.TaintEffectPreferNoSchedule}},
		Resources: []spec.ResourceCapacity{{Name: "nvidia.com/gpu", Capacity: 8, Allocatable: 8, Requested: 3}},
	}}}
	tolerate := []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "ml"}}
	required := func(terms ...corev1.NodeSelectorTerm) *corev1.Affinity {
		return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms}}}
	}
	term := func(rs ...corev1.NodeSelectorRequirement) corev1.NodeSelectorTerm {
		return corev1.NodeSelectorTerm{MatchExpressions: rs}
	}
	req := func(key string, op corev1.NodeSelectorOperator, values ...string) corev1.NodeSelectorRequirement {
		return corev1.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
	}
	cases := []struct {
		name        string
		affinity    *corev1.Affinity
		tolerations []corev1.Toleration
		fits        bool
		reason      string
	}{
		{"in", required(term(req("gpu", corev1.NodeSelectorOpIn, "a100", "h100"))), tolerate, true, ""},
		{"ored terms", required(term(req("gpu", corev1.NodeSelectorOpIn, "l4")), term(req("count", corev1.NodeSelectorOpGt, "4"))), tolerate, true, ""},
		{"lt fails", required(term(req("count", corev1.NodeSelectorOpLt, "4"))), tolerate, false, "count Lt (4), node has count=8"},
		{"not in", required(term(req("gpu", corev1.NodeSelectorOpNotIn, "a100"))), tolerate, false, "gpu NotIn (a100)"},
		{"does not exist", required(term(req("gpu", corev1.NodeSelectorOpDoesNotExist))), tolerate, false, "gpu DoesNotExist, node has gpu=a100"},
		{"exists missing", required(term(req("zone", corev1.NodeSelectorOpExists))), tolerate, false, "node has no zone label"},
		{"empty term", required(corev1.NodeSelectorTerm{}), tolerate, false, "empty term"},
		{"no terms", required(), tolerate, false, "has no terms"},
		{"match fields", required(corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{req("metadata.name", corev1.NodeSelectorOpIn, "n1")}}), tolerate, true, ""},
		{"untolerated NoExecute", nil, nil, false, "taint dedicated=ml:NoExecute not tolerated"},
		{"wildcard toleration", nil, []corev1.Toleration{{Operator: corev1.TolerationOpExists}}, true, ""},
		{"wrong effect", nil, []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}, false, "not tolerated"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := MatchingPools([]spec.PoolCapacity{pool}, nil, c.affinity, c.tolerations, "nvidia.com/gpu")[0]
			if m.Fits != c.fits || !strings.Contains(strings.Join(m.Reasons, "\n"), c.reason) {
				t.Fatalf("fits %v reasons %v; want fits %v reason %q", m.Fits, m.Reasons, c.fits, c.reason)
			}
			if c.fits && (m.MaxFree != 5 || m.FreeNodes != 1) {
				t.Errorf("free: %+v", m)
			}
		})
	}
	if m := MatchingPools([]spec.PoolCapacity{{Key: "empty"}}, nil, nil, nil, "")[0]; m.Fits || m.Reasons[0] != "pool has no nodes" {
		t.Errorf("empty pool: %+v", m)
	}
}
