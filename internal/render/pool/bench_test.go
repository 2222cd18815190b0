package pool

import (
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// BenchmarkRenderOnPool is what the provider pays per workload of `make
// bench` (cloud "generic", gpu { count = 1 }, node_pool), as its intentOf
// and apply do: place the workload on the pool, validate, and render the
// objects without render's YAML.
func BenchmarkRenderOnPool(b *testing.B) {
	one := int32(1)
	pool := CanonicalPool(spec.PoolPolicy{Name: "bench", Cloud: "generic", Accelerator: "h100-80gb", GPUsPerNode: 8,
		Labels: map[string]string{"gpuform.io/bench": "x"},
		Taints: []spec.Taint{{Key: "gpuform.io/bench", Value: "x", Effect: spec.TaintNoSchedule}}})
	w := spec.Workload{Name: "gpu-000", Namespace: "bench", Kind: spec.KindDeployment, Cloud: "generic", Replicas: &one,
		Image: "registry.example/cuda:12", GPU: spec.GPU{Count: 1}}
	b.ReportAllocs()
	for b.Loop() {
		placed, diags := Apply(w, pool)
		if diags = append(diags, workload.Validate(placed)...); diags.HasError() {
			b.Fatal(diags)
		}
		if r, diags := workload.ResolveAndRender(placed, workload.Options{Pool: &pool, SkipManifest: true}); r == nil || diags.HasError() {
			b.Fatal(diags)
		}
	}
}
