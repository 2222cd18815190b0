// Package gpudiag holds the findings every rule of the provider reports: a
// Diagnostic says what was wrong and what is allowed, on the Terraform
// attribute path it belongs to, so the provider can put it on the right line
// of the configuration.
package gpudiag

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Severity says whether a Diagnostic blocks the plan (Error) or only informs
// (Warning).
type Severity int

const (
	// SeverityError makes Validate/Render fail.
	SeverityError Severity = iota
	// SeverityWarning is shown to the user but does not fail.
	SeverityWarning
)

// String returns "error" or "warning".
func (s Severity) String() string {
	if s == SeverityWarning {
		return "warning"
	}
	return "error"
}

// MapKey marks a Path element that is a key of a map attribute (env, labels,
// ...), as opposed to a plain string, which is an attribute name. The provider
// maps string → path.AtName, int → path.AtListIndex, MapKey → path.AtMapKey.
type MapKey string

// Diagnostic is one finding about a Workload. Path names the Terraform
// attribute in snake_case exactly as in the schema (e.g. "gpu", "accelerators",
// 1); an empty Path means the whole resource.
type Diagnostic struct {
	Severity Severity
	Path     []any
	Summary  string
	// Detail always says what was wrong and what is allowed instead.
	Detail string
	// Final marks a finding only a final value raises (a required value
	// that is unset, or a rule that needs the provider's configuration,
	// such as the Kueue release): while planning, an unset value may still
	// be unknown, so lenient validation never reports it. The provider validates the
	// configuration leniently and the plan strictly, once each, and reports
	// only the final findings from the plan: the others are the
	// configuration's, already reported.
	Final bool
}

// PathString renders Path the way Terraform prints it, e.g.
// gpu.accelerators[1] or env["CUDA_VISIBLE_DEVICES"].
func (d Diagnostic) PathString() string {
	var b strings.Builder
	for _, step := range d.Path {
		switch v := step.(type) {
		case string:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(v)
		case int:
			b.WriteString("[" + strconv.Itoa(v) + "]")
		case MapKey:
			b.WriteString("[" + strconv.Quote(string(v)) + "]")
		default:
			fmt.Fprintf(&b, "[%v]", v)
		}
	}
	return b.String()
}

// String is for logs and test failures.
func (d Diagnostic) String() string {
	return fmt.Sprintf("%s at %s: %s: %s", d.Severity, d.PathString(), d.Summary, d.Detail)
}

// Diagnostics is an ordered list of findings.
type Diagnostics []Diagnostic

// HasError reports whether any diagnostic is an error.
func (ds Diagnostics) HasError() bool {
	for _, d := range ds {
		if d.Severity == SeverityError {
			return true
		}
	}
	return false
}

// Errors returns only the error diagnostics.
func (ds Diagnostics) Errors() Diagnostics { return ds.bySeverity(SeverityError) }

// Warnings returns only the warning diagnostics.
func (ds Diagnostics) Warnings() Diagnostics { return ds.bySeverity(SeverityWarning) }

func (ds Diagnostics) bySeverity(s Severity) Diagnostics {
	var out Diagnostics
	for _, d := range ds {
		if d.Severity == s {
			out = append(out, d)
		}
	}
	return out
}

// AddError records an error at path. It keeps a copy of path, so the
// path does not escape: rules build At(...) paths for every value they
// check, and the copy on the rare error spares valid values a heap
// allocation each.
func (ds *Diagnostics) AddError(path []any, summary, detail string) {
	*ds = append(*ds, Diagnostic{Severity: SeverityError, Path: slices.Clone(path), Summary: summary, Detail: detail})
}

// AddWarning records a warning at path, keeping a copy of it (see AddError).
func (ds *Diagnostics) AddWarning(path []any, summary, detail string) {
	*ds = append(*ds, Diagnostic{Severity: SeverityWarning, Path: slices.Clone(path), Summary: summary, Detail: detail})
}

// AddFinalError records an error only a final value raises (see Final).
func (ds *Diagnostics) AddFinalError(path []any, summary, detail string) {
	*ds = append(*ds, Diagnostic{Severity: SeverityError, Path: slices.Clone(path), Summary: summary, Detail: detail, Final: true})
}

// AddFinalWarning records a warning only a final value raises (see Final).
func (ds *Diagnostics) AddFinalWarning(path []any, summary, detail string) {
	*ds = append(*ds, Diagnostic{Severity: SeverityWarning, Path: slices.Clone(path), Summary: summary, Detail: detail, Final: true})
}

// Final returns the findings only final values raise.
func (ds Diagnostics) Final() Diagnostics {
	var out Diagnostics
	for _, d := range ds {
		if d.Final {
			out = append(out, d)
		}
	}
	return out
}

// Without returns the diagnostics of ds that are not in seen, so a rule
// reported once is not reported again by a later stage.
func (ds Diagnostics) Without(seen Diagnostics) Diagnostics {
	return ds.except(seen, func(d Diagnostic) (string, bool) { return d.String(), true })
}

// NotAt drops the diagnostics of ds on attributes that already have an
// error in earlier: the first stage's reason is the more specific one, and
// one line should not get two errors.
func (ds Diagnostics) NotAt(earlier Diagnostics) Diagnostics {
	return ds.except(earlier, func(d Diagnostic) (string, bool) { return d.PathString(), d.Severity == SeverityError })
}

// except keeps the diagnostics of ds whose key no diagnostic of others
// takes; key says what a diagnostic takes, and whether it takes it.
func (ds Diagnostics) except(others Diagnostics, key func(Diagnostic) (string, bool)) Diagnostics {
	taken := map[string]bool{}
	for _, d := range others {
		if k, takes := key(d); takes {
			taken[k] = true
		}
	}
	var out Diagnostics
	for _, d := range ds {
		if k, _ := key(d); !taken[k] {
			out = append(out, d)
		}
	}
	return out
}

// Append adds more findings in order.
func (ds *Diagnostics) Append(more Diagnostics) { *ds = append(*ds, more...) }

// At builds a Path; it exists so call sites read like the attribute they
// name: At("gpu", "accelerators", 2).
func At(steps ...any) []any { return steps }

// QuoteList formats allowed values for a Detail: "a", "b", "c".
func QuoteList(values []string) string {
	if len(values) == 0 {
		return "(none)"
	}
	buf := make([]byte, 0, 8*len(values))
	for i, v := range values {
		if i > 0 {
			buf = append(buf, ", "...)
		}
		buf = strconv.AppendQuote(buf, v)
	}
	return string(buf)
}

// Unresolved is the provider bug of rendering what ("workload") from a
// resolution that is not strict (strict false) or has errors (findings):
// callers render only what resolved cleanly, so this reports a caller
// that did not check. nil when the resolution may be rendered.
func Unresolved(what string, strict bool, findings Diagnostics) Diagnostics {
	if strict && !findings.HasError() {
		return nil
	}
	var diags Diagnostics
	diags.AddError(nil, "Could not render the "+what,
		"The "+what+" was rendered before every value was known and valid; this is a provider bug, please report it.")
	return diags
}
