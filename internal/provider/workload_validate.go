package provider

import (
	"slices"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/render"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
)

// schemaRejected lists the attribute paths whose values the schema's own
// validators reject (a cloud, size or accelerator that does not exist).
// Those validators already say what is allowed; render's rules on the same
// attribute would only repeat it in other words.
func schemaRejected(w render.Workload, waitFor string) map[string]bool {
	rejected := map[string]bool{}
	reject := func(value string, allowed []string, path ...any) {
		if value != "" && !slices.Contains(allowed, value) {
			rejected[gpudiag.Diagnostic{Path: path}.PathString()] = true
		}
	}
	reject(w.Kind, render.KindNames(), "kind")
	reject(w.Cloud, render.CloudNames(), "cloud")
	reject(w.Size, render.SizeNames(), "size")
	reject(waitFor, kube.WaitModes(), "wait_for")
	reject(w.GPU.Accelerator, render.AcceleratorNames(), "gpu", "accelerator")
	for i, a := range w.GPU.Accelerators {
		reject(a, render.AcceleratorNames(), "gpu", "accelerators", i)
	}
	reject(w.GPU.MIGStrategy, render.MIGStrategyNames(), "gpu", "mig_strategy")
	reject(w.GPU.Sharing, render.SharingNames(), "gpu", "sharing")
	return rejected
}

// withoutSchemaRejected drops render findings on attributes the schema
// validators already reject.
func withoutSchemaRejected(findings gpudiag.Diagnostics, rejected map[string]bool) gpudiag.Diagnostics {
	var out gpudiag.Diagnostics
	for _, d := range findings {
		if !rejected[d.PathString()] {
			out = append(out, d)
		}
	}
	return out
}
