// Package validate holds the checks every part of render shares (a
// required value, a minimum, a cloud's name), so that the pool, queue,
// workload kinds and chart values report them in the same words and none
// of them imports another for a general rule.
package validate

import (
	"slices"
	"strconv"
	"strings"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/names"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// RequireSet reports a missing required value at apply time only (at plan
// time "" may be an unknown value).
func RequireSet(diags *gpudiag.Diagnostics, strict bool, value string, path []any, allowed string) {
	if strict && value == "" {
		diags.AddFinalError(path, "Missing required value", "A value is required here. Allowed: "+allowed+".")
	}
}

// RequireOneOf is RequireSet for a value from a list: allowed "one of" the
// names is quoted only when the value is missing, so a configuration that
// sets it does not pay for the message.
func RequireOneOf(diags *gpudiag.Diagnostics, strict bool, value string, path []any, allowed func() []string) {
	if strict && value == "" {
		RequireSet(diags, strict, value, path, "one of "+gpudiag.QuoteList(allowed()))
	}
}

// Min32 reports a set value below minimum.
func Min32(diags *gpudiag.Diagnostics, v *int32, minimum int32, path []any) {
	if v != nil && *v < minimum {
		diags.AddError(path, "Value too small",
			"The value is "+strconv.Itoa(int(*v))+". Allowed: "+strconv.Itoa(int(minimum))+" or more.")
	}
}

// EnvVarName reports a name Kubernetes refuses as a container's
// environment variable.
func EnvVarName(diags *gpudiag.Diagnostics, name string, path []any) {
	if msgs := names.EnvVarName(name); len(msgs) > 0 {
		diags.AddError(path, "Invalid environment variable name", strconv.Quote(name)+": "+strings.Join(msgs, "; ")+
			". Allowed: letters, digits, '_', '-' or '.', not starting with a digit.")
	}
}

// Cloud checks the cloud's name and returns it ("" when unset or
// unknown).
func Cloud(raw string, strict bool, diags *gpudiag.Diagnostics) spec.Cloud {
	if raw == "" && !strict {
		return ""
	}
	cloud, err := clouds.Parse(raw)
	switch {
	case err != nil && raw == "":
		diags.AddFinalError(gpudiag.At("cloud"), "Unknown cloud", err.Error()+".")
		return ""
	case err != nil:
		diags.AddError(gpudiag.At("cloud"), "Unknown cloud", err.Error()+".")
		return ""
	}
	return cloud
}

// SortedKeys is a map's keys in order, so findings come out in a stable
// order. Unlike slices.Sorted(maps.Keys(m)) it costs nothing for the
// empty maps most optional attributes are.
func SortedKeys[V any](m map[string]V) []string {
	if len(m) == 0 {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
