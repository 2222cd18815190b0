package render

import (
	"testing"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/gpuform/terraform-provider-gpu/internal/render/capacity"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// FuzzRenderPool: no input panics; errors and results are exclusive; a
// rendered pool's id round-trips, its node admits its own placement, and a
// workload placed on it renders. The seeds (in code, one per interesting
// shape) run on every `go test`.
func FuzzRenderPool(f *testing.F) {
	type seed struct {
		name, cloud, accelerator                           string
		gpus                                               int64
		partition, strategy, sharing                       string
		replicas                                           int64
		spot                                               bool
		dedicated                                          int8 // 0 unset, 1 true, else false
		labelKey, labelValue, taintKey, taintValue, effect string
	}
	for _, s := range []seed{
		{"l4", "gke", "l4", 1, "", "", "time-slicing", 4, false, 0, "team", "ml", "", "", ""},
		{"mig", "gke", "a100-40gb", 8, "2g.10gb", "", "", 0, true, 1, "", "", "example.com/x", "y", "NoExecute"},
		{"bal", "generic", "a100-40gb", 8, "all-balanced", "mixed", "time-slicing", 2, false, 2, "", "", "", "", ""},
		{"kar", "karpenter", "a100-80gb", 8, "all-1g.10gb", "single", "", 0, true, 0, "tier", "", "t", "", "PreferNoSchedule"},
		{"aks", "aks", "t4", 4, "", "", "mps", 48, true, 2, "", "", "", "", ""},
		{"auto", "eks-auto", "h200", 8, "", "", "", 0, false, 0, "eks.amazonaws.com/x", "y", "", "", ""},
		{"Bad_Name", "gke-autopilot", "k80", 99, "9g.1tb", "none", "vgpu", 1, true, 2, "bad key", "-", "", "v", "Never"},
		{"", "", "", 0, "", "", "", 0, false, 0, "", "", "", "", ""},
		{"big", "generic", "t4", 16, "", "", "time-slicing", 1 << 62, false, 0, "", "", "", "", ""},
	} {
		f.Add(s.name, s.cloud, s.accelerator, s.gpus, s.partition, s.strategy, s.sharing, s.replicas, s.spot, s.dedicated,
			s.labelKey, s.labelValue, s.taintKey, s.taintValue, s.effect)
	}
	f.Fuzz(func(t *testing.T, name, cloud, accelerator string, gpus int64, partition, strategy, sharing string, replicas int64,
		spot bool, dedicated int8, labelKey, labelValue, taintKey, taintValue, effect string) {
		p := spec.PoolPolicy{Name: name, Cloud: cloud, Accelerator: accelerator, GPUsPerNode: gpus, Partition: partition,
			MIGStrategy: strategy, Sharing: sharing, Replicas: replicas, Spot: spot}
		if dedicated != 0 {
			p.Dedicated = rendertest.Ptr(dedicated == 1)
		}
		if labelKey != "" {
			p.Labels = map[string]string{labelKey: labelValue}
		}
		if taintKey != "" || effect != "" {
			p.Taints = []spec.Taint{{Key: taintKey, Value: taintValue, Effect: effect}}
		}
		_ = pool.Validate(p)
		_, _ = pool.DecodeID(name + ":" + accelerator)
		r, diags := pool.Render(p)
		if diags.HasError() != (r == nil) {
			t.Fatalf("errors and result must be exclusive: result %v, diagnostics:\n%s", r != nil, rendertest.FormatDiags(diags))
		}
		placed, applyDiags := pool.Apply(spec.Workload{Name: "w", Kind: spec.KindJob, Image: "img", GPU: spec.GPU{Count: 1}}, p)
		if r == nil {
			return
		}
		checkRenderedPool(t, p, r)
		if !applyDiags.HasError() {
			_, _ = workload.ResolveAndRender(placed, workload.Options{})
		}
	})
}

func checkRenderedPool(t *testing.T, p spec.PoolPolicy, r *spec.PoolRendered) {
	t.Helper()
	if r.ID != p.Name {
		t.Fatalf("id %q, want the pool's name %q", r.ID, p.Name)
	}
	pools := capacity.Summarize([]corev1.Node{poolNode("n", r)}, nil)
	for _, res := range r.ResourceNames {
		if m := capacity.MatchingPools(pools, r.NodeSelector, r.Affinity, r.Tolerations, res); len(m) != 1 || !m[0].Fits {
			t.Fatalf("%s: the pool does not admit its own placement: %+v", res, m)
		}
	}
	if r.KarpenterNodePool != "" && utf8.ValidString(r.KarpenterNodePool) {
		var np clouds.KarpenterNodePoolManifest
		if err := yaml.UnmarshalStrict([]byte(r.KarpenterNodePool), &np); err != nil {
			t.Fatalf("NodePool does not parse: %v", err)
		}
	}
}

func BenchmarkRenderPool(b *testing.B) {
	p := spec.PoolPolicy{Name: "a100-mig", Cloud: "karpenter", Accelerator: "a100-40gb", GPUsPerNode: 8, Partition: "2g.10gb", Spot: true,
		Labels: map[string]string{"example.com/team": "ml"}, Taints: []spec.Taint{{Key: "example.com/team", Value: "ml", Effect: spec.TaintNoSchedule}}}
	b.ReportAllocs()
	for b.Loop() {
		if r, diags := pool.Render(p); r == nil || diags.HasError() {
			b.Fatal(diags)
		}
	}
}

func BenchmarkSummarizeAndMatch(b *testing.B) {
	nodes := rendertest.LoadFixtureNodes(b)
	r, _ := workload.ResolveAndRender(rendertest.WorkloadOn(spec.CloudGKE, spec.GPU{Count: 1, Accelerator: "l4", Sharing: spec.SharingTimeSlicing}, false), workload.Options{})
	b.ReportAllocs()
	for b.Loop() {
		pools := capacity.Summarize(nodes, nil)
		if len(capacity.MatchingPools(pools, r.NodeSelector, r.Affinity, r.Tolerations, r.ResourceName)) == 0 {
			b.Fatal("no pools")
		}
	}
}
