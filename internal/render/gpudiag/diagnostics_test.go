package gpudiag

import (
	"slices"
	"testing"
)

// TestPathString: paths print the way Terraform prints attribute paths, so
// a finding can be matched to its line of the configuration.
func TestPathString(t *testing.T) {
	for _, c := range []struct {
		path []any
		want string
	}{
		{nil, ""},
		{At("gpu"), "gpu"},
		{At("gpu", "accelerators", 1), "gpu.accelerators[1]"},
		{At("env", MapKey("CUDA_VISIBLE_DEVICES")), `env["CUDA_VISIBLE_DEVICES"]`},
		{At("labels", MapKey(`a"b`)), `labels["a\"b"]`},
		{At("fiftyone", "deployment", 2, "gpu", "count"), "fiftyone.deployment[2].gpu.count"},
		{At(0, "name"), "[0].name"},
		{At("x", int64(3)), "x[3]"},
	} {
		if got := (Diagnostic{Path: c.path}).PathString(); got != c.want {
			t.Errorf("PathString(%#v) = %q, want %q", c.path, got, c.want)
		}
	}
}

func TestDiagnosticString(t *testing.T) {
	d := Diagnostic{Severity: SeverityWarning, Path: At("gpu", "count"), Summary: "Too many", Detail: "Allowed: 1 to 16."}
	if got, want := d.String(), "warning at gpu.count: Too many: Allowed: 1 to 16."; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if got := SeverityError.String(); got != "error" {
		t.Errorf("SeverityError = %q", got)
	}
}

func TestQuoteList(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{nil, "(none)"},
		{[]string{}, "(none)"},
		{[]string{"gke"}, `"gke"`},
		{[]string{"a", "b", "c"}, `"a", "b", "c"`},
		{[]string{`say "hi"`, ""}, `"say \"hi\"", ""`},
	} {
		if got := QuoteList(c.in); got != c.want {
			t.Errorf("QuoteList(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

// TestSeverityFilters: Errors and Warnings split a list by severity and keep
// the order; only errors make HasError true.
func TestSeverityFilters(t *testing.T) {
	var ds Diagnostics
	if ds.HasError() || ds.Errors() != nil || ds.Warnings() != nil {
		t.Fatal("no diagnostics: no errors, no warnings")
	}
	ds.AddWarning(At("w1"), "w", "")
	if ds.HasError() {
		t.Fatal("a warning alone is not an error")
	}
	ds.AddError(At("e1"), "e", "")
	ds.Append(Diagnostics{{Severity: SeverityWarning, Path: At("w2")}, {Severity: SeverityError, Path: At("e2")}})
	if !ds.HasError() {
		t.Fatal("HasError must see the error")
	}
	paths := func(ds Diagnostics) []string {
		var out []string
		for _, d := range ds {
			out = append(out, d.PathString())
		}
		return out
	}
	if got := paths(ds); !slices.Equal(got, []string{"w1", "e1", "w2", "e2"}) {
		t.Errorf("Append keeps the order: %v", got)
	}
	if got := paths(ds.Errors()); !slices.Equal(got, []string{"e1", "e2"}) {
		t.Errorf("Errors() = %v", got)
	}
	if got := paths(ds.Warnings()); !slices.Equal(got, []string{"w1", "w2"}) {
		t.Errorf("Warnings() = %v", got)
	}
}

// TestAddKeepsACopyOfThePath: callers reuse one path slice for every value
// they check, so a recorded finding must not change when it does.
func TestAddKeepsACopyOfThePath(t *testing.T) {
	path := make([]any, 0, 4)
	path = append(path, "env", MapKey("A"))
	var ds Diagnostics
	ds.AddError(path, "bad", "")
	ds.AddWarning(path, "odd", "")
	path[1] = MapKey("B")
	for _, d := range ds {
		if got := d.PathString(); got != `env["A"]` {
			t.Errorf("%s finding changed with its caller's slice: %s", d.Severity, got)
		}
	}
}

// TestWithoutAndNotAt: a later stage drops what an earlier one reported
// (Without), and anything on an attribute the earlier one failed (NotAt).
func TestWithoutAndNotAt(t *testing.T) {
	var earlier, later Diagnostics
	earlier.AddError(At("count"), "too many", "")
	earlier.AddWarning(At("cloud"), "guessed", "")
	later.AddError(At("count"), "too many", "")
	later.AddError(At("count"), "not a multiple", "")
	later.AddError(At("cloud"), "unknown cloud", "")
	summaries := func(ds Diagnostics) []string {
		var out []string
		for _, d := range ds {
			out = append(out, d.Summary)
		}
		return out
	}
	if got := summaries(later.Without(earlier)); !slices.Equal(got, []string{"not a multiple", "unknown cloud"}) {
		t.Errorf("Without = %v", got)
	}
	if got := summaries(later.NotAt(earlier)); !slices.Equal(got, []string{"unknown cloud"}) {
		t.Errorf("NotAt = %v: only an error takes its attribute", got)
	}
}
