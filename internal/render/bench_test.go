package render

import "testing"

// benchWorkload is a realistic deployment: preference list, probes, cache,
// shm, env and metadata.
func benchWorkload(b *testing.B) Workload {
	for _, c := range goldenCases() {
		if c.cloud == string(CloudGKE) && c.name == "full-featured" {
			return c.workload
		}
	}
	b.Fatal("full-featured golden case missing")
	return Workload{}
}

func BenchmarkRenderDeployment(b *testing.B) {
	w := benchWorkload(b)
	b.ReportAllocs()
	for b.Loop() {
		if r, diags := Render(w, Options{}); r == nil || diags.HasError() {
			b.Fatal(diags)
		}
	}
}

// BenchmarkRenderDeploymentSkipManifest is what the provider pays per
// workload: validation and the typed objects, without render's YAML.
func BenchmarkRenderDeploymentSkipManifest(b *testing.B) {
	w := benchWorkload(b)
	b.ReportAllocs()
	for b.Loop() {
		if r, diags := Render(w, Options{SkipManifest: true}); r == nil || diags.HasError() || r.Manifest != "" {
			b.Fatal(diags)
		}
	}
}

func BenchmarkValidate(b *testing.B) {
	w := benchWorkload(b)
	b.ReportAllocs()
	for b.Loop() {
		if diags := Validate(w); diags.HasError() {
			b.Fatal(diags)
		}
	}
}

// BenchmarkBuildWithoutManifest isolates object construction from YAML
// encoding, to show where Render's time goes.
func BenchmarkBuildWithoutManifest(b *testing.B) {
	w := benchWorkload(b)
	in, _ := validate(w, true)
	cloud, _ := ParseCloud(w.Cloud)
	b.ReportAllocs()
	for b.Loop() {
		place, ok := placePod(w, in, cloud, nil)
		if !ok {
			b.Fatal("placePod failed")
		}
		r := &Rendered{NodeSelector: place.nodeSelector, Affinity: place.affinity, Tolerations: place.tolerations}
		if _, ok := podTemplate(w, in, place, r); !ok {
			b.Fatal("podTemplate failed")
		}
	}
}

// BenchmarkRenderOnPoolID is what the provider pays per workload of `make
// bench` (cloud "generic", gpu { count = 1 }, node_pool), as its intentOf
// and apply do: decode the pool id, place the workload on the pool, validate,
// and render the objects without render's YAML.
func BenchmarkRenderOnPoolID(b *testing.B) {
	one := int32(1)
	id := EncodePoolID(PoolPolicy{Name: "bench", Cloud: "generic", Accelerator: "h100-80gb", GPUsPerNode: 8,
		Labels: map[string]string{"gpuform.io/bench": "x"},
		Taints: []Taint{{Key: "gpuform.io/bench", Value: "x", Effect: TaintNoSchedule}}})
	w := Workload{Name: "gpu-000", Namespace: "bench", Kind: KindDeployment, Cloud: "generic", Replicas: &one,
		Image: "registry.example/cuda:12", GPU: GPU{Count: 1}}
	b.ReportAllocs()
	for b.Loop() {
		pool, err := DecodePoolID(id)
		if err != nil {
			b.Fatal(err)
		}
		placed, diags := ApplyPool(w, pool)
		if diags = append(diags, Validate(placed)...); diags.HasError() {
			b.Fatal(diags)
		}
		if r, diags := Render(placed, Options{Pool: &pool, SkipManifest: true}); r == nil || diags.HasError() {
			b.Fatal(diags)
		}
	}
}
