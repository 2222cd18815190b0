package gpuworkload

import (
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// A value the schema's OneOf rejects is reported once, by the schema, not
// again by render in other words; render's other findings stay.
func TestWithoutSchemaRejected(t *testing.T) {
	w := spec.Workload{
		Name: "x", Namespace: "ml", Image: "registry.example/cuda:12", Kind: spec.KindDeployment,
		Cloud: "digitalocean", Size: "huge",
		GPU: spec.GPU{Count: 2, Accelerators: []string{"a100-40gb", "tpu-v5"}, Sharing: "time-slicing"},
	}
	findings := workload.Validate(w)
	paths := func(ds gpudiag.Diagnostics) map[string]bool {
		out := map[string]bool{}
		for _, d := range ds {
			out[d.PathString()] = true
		}
		return out
	}
	before := paths(findings)
	for _, p := range []string{"cloud", "size", "gpu.accelerators[1]"} {
		if !before[p] {
			t.Fatalf("render no longer reports %s (findings %v): this test needs a new example", p, before)
		}
	}
	after := paths(withoutSchemaRejected(findings, schemaRejected(w, "sometimes")))
	for _, p := range []string{"cloud", "size", "gpu.accelerators[1]"} {
		if after[p] {
			t.Errorf("%s is reported by render although the schema rejects it", p)
		}
	}
	if !after["gpu.count"] {
		t.Errorf("render's own rule (shared GPUs one at a time, on gpu.count) was dropped: %v", after)
	}
}
