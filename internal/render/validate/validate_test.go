package validate

import (
	"strings"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
)

// EnvVarName is the one check of a variable's name for workloads'
// env and secret_env and the Flyte and FiftyOne charts' env.
func TestEnvVarName(t *testing.T) {
	for name, wantError := range map[string]bool{
		"HF_TOKEN": false, "my.var-1": false, "_x": false,
		"1BAD": true, "has space": true, "": true, "a=b": true,
	} {
		var diags gpudiag.Diagnostics
		EnvVarName(&diags, name, gpudiag.At("env", gpudiag.MapKey(name)))
		if diags.HasError() != wantError {
			t.Errorf("%q: error %v, want %v (%v)", name, diags.HasError(), wantError, diags)
			continue
		}
		if wantError {
			d := diags.Errors()[0]
			if d.Summary != "Invalid environment variable name" || !strings.HasPrefix(d.PathString(), "env[") ||
				!strings.Contains(d.Detail, "Allowed: letters, digits") {
				t.Errorf("%q: %s at %s: %s", name, d.Summary, d.PathString(), d.Detail)
			}
		}
	}
}
