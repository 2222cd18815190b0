package workload

import (
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// benchWorkload is a realistic deployment: preference list, probes, cache,
// shm, env and metadata.
func benchWorkload(b *testing.B) spec.Workload {
	for _, c := range goldenCases() {
		if c.cloud == string(spec.CloudGKE) && c.name == "full-featured" {
			return c.workload
		}
	}
	b.Fatal("full-featured golden case missing")
	return spec.Workload{}
}

func BenchmarkRenderDeployment(b *testing.B) {
	w := benchWorkload(b)
	b.ReportAllocs()
	for b.Loop() {
		if r, diags := ResolveAndRender(w, Options{}); r == nil || diags.HasError() {
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
		if r, diags := ResolveAndRender(w, Options{SkipManifest: true}); r == nil || diags.HasError() || r.Manifest != "" {
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
	resolved := Resolve(w, nil, true)
	in := resolved.Intent
	b.ReportAllocs()
	for b.Loop() {
		place, ok := PlacePod(ContainerOf(w), in, resolved.Cloud, nil)
		if !ok {
			b.Fatal("placePod failed")
		}
		r := &Rendered{NodeSelector: place.NodeSelector, Affinity: place.Affinity, Tolerations: place.Tolerations}
		if _, ok := podTemplate(w, in, place, r); !ok {
			b.Fatal("podTemplate failed")
		}
	}
}

// BenchmarkEncodeManifest is the manifest of a realistic deployment encoded
// the first time (new: the memo is bypassed) and again (seen: what a
// refresh's plan pays after its read encoded the same objects).
func BenchmarkEncodeManifest(b *testing.B) {
	r, diags := ResolveAndRender(benchWorkload(b), Options{SkipManifest: true})
	if r == nil || diags.HasError() {
		b.Fatal(diags)
	}
	docs := make([]map[string]any, 0, len(r.Objects))
	for _, o := range r.Objects {
		m, err := ObjectMap(o)
		if err != nil {
			b.Fatal(err)
		}
		docs = append(docs, m)
	}
	b.Run("new", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			documentMemo = newMemo(0)
			if _, err := EncodeManifest(docs); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("seen", func(b *testing.B) {
		documentMemo = newMemo(4096)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := EncodeManifest(docs); err != nil {
				b.Fatal(err)
			}
		}
	})
}
