package resourcekit

import (
	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
)

// renderDiagnostics maps render's diagnostics onto attribute paths.
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
