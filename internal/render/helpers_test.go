package render

import (
	"strings"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
)

func ptr[T any](v T) *T { return &v }

// validWorkload is the smallest workload that renders on every cloud.
func validWorkload() Workload {
	return Workload{
		Name:  "llm",
		Kind:  KindDeployment,
		Cloud: string(CloudGKE),
		Image: "vllm/vllm-openai:v0.6.0",
		GPU:   GPU{Count: 1, Accelerator: "l4"},
	}
}

// findDiag returns the first diagnostic at path (PathString form) whose
// detail contains substring.
func findDiag(diags gpudiag.Diagnostics, severity gpudiag.Severity, path, substring string) (gpudiag.Diagnostic, bool) {
	for _, d := range diags {
		if d.Severity == severity && d.PathString() == path && strings.Contains(d.Detail, substring) {
			return d, true
		}
	}
	return gpudiag.Diagnostic{}, false
}

func requireDiag(t *testing.T, diags gpudiag.Diagnostics, severity gpudiag.Severity, path, substring string) {
	t.Helper()
	if _, ok := findDiag(diags, severity, path, substring); !ok {
		t.Fatalf("want %s at %q containing %q; got:\n%s", severity, path, substring, formatDiags(diags))
	}
}

func requireNoErrors(t *testing.T, diags gpudiag.Diagnostics) {
	t.Helper()
	if diags.HasError() {
		t.Fatalf("unexpected errors:\n%s", formatDiags(diags.Errors()))
	}
}

func formatDiags(diags gpudiag.Diagnostics) string {
	if len(diags) == 0 {
		return "  (none)"
	}
	var b strings.Builder
	for _, d := range diags {
		b.WriteString("  " + d.String() + "\n")
	}
	return b.String()
}
