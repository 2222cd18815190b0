package kindkit

import (
	"strconv"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
)

// RequireSet reports a missing required value at apply time only (at plan
// time "" may be an unknown value).
func RequireSet(diags *gpudiag.Diagnostics, strict bool, value string, path []any, allowed string) {
	if strict && value == "" {
		diags.AddFinalError(path, "Missing required value", "A value is required here. Allowed: "+allowed+".")
	}
}

// CheckMin32 reports a set value below minimum.
func CheckMin32(diags *gpudiag.Diagnostics, v *int32, minimum int32, path []any) {
	if v != nil && *v < minimum {
		diags.AddError(path, "Value too small",
			"The value is "+strconv.Itoa(int(*v))+". Allowed: "+strconv.Itoa(int(minimum))+" or more.")
	}
}
