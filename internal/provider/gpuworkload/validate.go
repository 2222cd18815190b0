package gpuworkload

import (
	"slices"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// schemaRejected lists the attribute paths whose values the schema's own
// validators reject (a cloud, size or accelerator that does not exist).
// Those validators already say what is allowed; render's rules on the same
// attribute would only repeat it in other words.
func schemaRejected(w spec.Workload, waitFor string) map[string]bool {
	rejected := map[string]bool{}
	reject := func(value string, allowed []string, path ...any) {
		if value != "" && !slices.Contains(allowed, value) {
			rejected[gpudiag.Diagnostic{Path: path}.PathString()] = true
		}
	}
	reject(w.Kind, kinds.Names(), "kind")
	reject(w.Cloud, clouds.Names(), "cloud")
	reject(w.Size, workload.SizeNames(), "size")
	reject(waitFor, kube.WaitModes(), "wait_for")
	reject(w.GPU.Accelerator, catalog.AcceleratorNames(), "gpu", "accelerator")
	for i, a := range w.GPU.Accelerators {
		reject(a, catalog.AcceleratorNames(), "gpu", "accelerators", i)
	}
	reject(w.GPU.MIGStrategy, spec.MIGStrategyNames(), "gpu", "mig_strategy")
	reject(w.GPU.Sharing, spec.SharingNames(), "gpu", "sharing")
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
