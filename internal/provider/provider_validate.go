package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
)

// execAPIVersions are the ExecCredential versions client-go speaks; any
// other fails the first request with "exec plugin: invalid apiVersion".
var execAPIVersions = []string{"client.authentication.k8s.io/v1", kube.DefaultExecAPIVersion}

// checkExec: an exec block without a command cannot run, and one next to a
// token or client certificate never runs (client-go authenticates with
// those and skips the plugin without a word).
func checkExec(m providerModel, e execModel, diags *diag.Diagnostics) {
	for _, other := range []struct {
		name  string
		value types.String
	}{{"token", m.Token}, {"client_certificate", m.ClientCertificate}} {
		if setNonEmpty(other.value) {
			diags.AddAttributeError(path.Root(other.name), other.name+" conflicts with exec",
				"With "+other.name+" set, client-go authenticates with it and never runs the exec plugin. "+
					"Allowed: either the exec block or "+other.name+", not both.")
		}
	}
	if !e.Command.IsUnknown() && e.Command.ValueString() == "" {
		// Here rather than in Configure, which skips the exec block while
		// other attributes are unknown and would fail only at apply.
		diags.AddAttributeError(path.Root("exec").AtName("command"), "Missing exec command",
			"The exec block needs command: the credential plugin to run. Allowed: a command such as \"aws\" "+
				"(with args = [\"eks\", \"get-token\", ...]) or \"gke-gcloud-auth-plugin\".")
	}
}

// setNonEmpty: the provider treats "" like an unset attribute (modules pass
// empty variables), so only a known non-empty value conflicts.
func setNonEmpty(v types.String) bool {
	return !v.IsUnknown() && v.ValueString() != ""
}
