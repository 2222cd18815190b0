package rendertest

import (
	"strings"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
)

// The helpers every render test leans on: a helper that always passed
// would make every suite using it pass too.

func TestLineDiffNamesTheFirstDifferingLine(t *testing.T) {
	got := lineDiff("a\nb\nc", "a\nB\nc")
	if !strings.Contains(got, "line 2:") || !strings.Contains(got, "- b") || !strings.Contains(got, "+ B") {
		t.Fatalf("lineDiff = %q", got)
	}
	if got := lineDiff("a\n", "a"); !strings.Contains(got, "trailing newline") {
		t.Fatalf("a difference past the last line must be named, got %q", got)
	}
}

func TestFindDiagMatchesSeverityPathAndDetail(t *testing.T) {
	var diags gpudiag.Diagnostics
	diags.AddWarning(gpudiag.At("gpu", "count"), "w", "a warning about count")
	diags.AddError(gpudiag.At("gpu", "accelerators", 1), "e", "an error about the list")
	if _, ok := FindDiag(diags, gpudiag.SeverityError, "gpu.accelerators[1]", "about the list"); !ok {
		t.Fatal("the error was not found")
	}
	for _, miss := range []struct {
		severity        gpudiag.Severity
		path, substring string
	}{
		{gpudiag.SeverityError, "gpu.count", "count"},                       // a warning there, not an error
		{gpudiag.SeverityError, "gpu.accelerators[0]", "about the list"},    // another element
		{gpudiag.SeverityWarning, "gpu.count", "something it does not say"}, // another detail
	} {
		if d, ok := FindDiag(diags, miss.severity, miss.path, miss.substring); ok {
			t.Errorf("FindDiag(%v, %q, %q) found %v", miss.severity, miss.path, miss.substring, d)
		}
	}
}

func TestLoadFixtureNodesReadsTheLocalClusterNodes(t *testing.T) {
	nodes := LoadFixtureNodes(t)
	if len(nodes) == 0 {
		t.Fatal("no fixture nodes")
	}
	for _, n := range nodes {
		if n.Name == "" || len(n.Labels) == 0 {
			t.Fatalf("fixture node without name or labels: %+v", n.ObjectMeta)
		}
	}
}

func TestAllUTF8(t *testing.T) {
	if !AllUTF8("a", "ü") || AllUTF8("a", "\xff") {
		t.Fatal("AllUTF8 must accept valid UTF-8 only")
	}
}
