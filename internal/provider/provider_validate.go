package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
)

var _ provider.ProviderWithValidateConfig = &GPUProvider{}

// execAPIVersions are the ExecCredential versions client-go speaks; any
// other fails the first request with "exec plugin: invalid apiVersion".
var execAPIVersions = []string{"client.authentication.k8s.io/v1", kube.DefaultExecAPIVersion}

// ValidateConfig checks the combinations of the provider block that
// client-go would refuse only when the first request is made, at apply.
// Single attributes are checked by their schema validators.
func (p *GPUProvider) ValidateConfig(ctx context.Context, req provider.ValidateConfigRequest, resp *provider.ValidateConfigResponse) {
	var m providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	insecure := !m.Insecure.IsUnknown() && m.Insecure.ValueBool()
	if insecure && setNonEmpty(m.ClusterCACertificate) {
		resp.Diagnostics.AddAttributeError(path.Root("insecure"), "insecure together with cluster_ca_certificate",
			"client-go refuses a CA bundle together with insecure = true (\"specifying a root certificates file "+
				"with the insecure flag is not allowed\"). Allowed: keep cluster_ca_certificate and remove insecure, "+
				"which verifies the API server, or remove cluster_ca_certificate.")
	}
	if e, ok := m.exec(ctx); ok {
		checkExec(m, e, &resp.Diagnostics)
	}
}

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
