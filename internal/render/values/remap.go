package values

import (
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
)

// RemapDiagnostics rewrites diagnostics whose Path starts with
// PathRoot (from ValidateAgainstChart and RenderChartPreview)
// to the input attribute that produced that value (InputPathForValues), so
// Terraform shows them on the configuration line to fix. Other diagnostics
// are returned unchanged; the location inside the values stays in Detail.
func RemapDiagnostics(target string, in Input, diags gpudiag.Diagnostics) gpudiag.Diagnostics {
	out := make(gpudiag.Diagnostics, len(diags))
	for i, d := range diags {
		if len(d.Path) > 0 && d.Path[0] == PathRoot {
			d.Path = InputPathForValues(target, in, d.Path[1:])
		}
		out[i] = d
	}
	return out
}

// InputPathForValues maps a location inside target's generated values
// (keys as strings, list indexes as ints) to the input attribute path it
// comes from, e.g. delegatedOperatorDeployments.deployments.gpuL4.
// resources.limits.cpu → fiftyone.deployment[2].cpu. Locations that no one
// attribute produces map to the target's block.
func InputPathForValues(target string, in Input, valuesPath []any) []any {
	t, ok := lookup(target)
	if !ok {
		return nil
	}
	keys := make([]string, 0, len(valuesPath))
	for _, s := range valuesPath {
		if k, ok := s.(string); ok {
			keys = append(keys, k)
		} else {
			break // list indexes: the list is one attribute
		}
	}
	return append(gpudiag.At(t.Block), t.InputPath(in.Blocks[t.Block], keys)...)
}
