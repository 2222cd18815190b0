package provider

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// configureFrom is the Configure step of every resource: the provider hands
// each one its providerData. Before the provider is configured (validation)
// there is none, and nil is returned without a diagnostic.
func configureFrom(raw any, diags *diag.Diagnostics) *providerData {
	if raw == nil {
		return nil
	}
	data, ok := raw.(*providerData)
	if !ok {
		diags.AddError("Unexpected provider data", fmt.Sprintf("expected *providerData, got %T: a provider bug, please report it", raw))
		return nil
	}
	return data
}

// defaultCloud is the provider's default_cloud; "" before configuration.
func (d *providerData) defaultCloud() string {
	if d == nil {
		return ""
	}
	return d.DefaultCloud
}
