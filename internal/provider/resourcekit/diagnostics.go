package resourcekit

import (
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
)

// RenderDiagnostics maps render's diagnostics onto attribute paths.
func RenderDiagnostics(in gpudiag.Diagnostics) diag.Diagnostics {
	var out diag.Diagnostics
	for _, d := range in {
		p := pathOf(d.Path)
		switch {
		case d.Severity == gpudiag.SeverityWarning && len(d.Path) > 0:
			out.AddAttributeWarning(p, d.Summary, d.Detail)
		case d.Severity == gpudiag.SeverityWarning:
			out.AddWarning(d.Summary, d.Detail)
		case len(d.Path) > 0:
			out.AddAttributeError(p, d.Summary, d.Detail)
		default:
			out.AddError(d.Summary, d.Detail)
		}
	}
	return out
}

// Subtract returns the diagnostics of all that are not in seen
// (gpudiag.Diagnostics.Without).
func Subtract(all, seen gpudiag.Diagnostics) gpudiag.Diagnostics { return all.Without(seen) }

// pathOf maps a render attribute path to a Terraform attribute path.
func pathOf(steps []any) path.Path {
	if len(steps) == 0 {
		return path.Empty()
	}
	var p path.Path
	for i, s := range steps {
		switch v := s.(type) {
		case string:
			if i == 0 {
				p = path.Root(v)
			} else {
				p = p.AtName(v)
			}
		case int:
			p = p.AtListIndex(v)
		case gpudiag.MapKey:
			p = p.AtMapKey(string(v))
		}
	}
	return p
}
