package resourcekit

import (
	"fmt"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// providerData is what resources and data sources receive from Configure.
type Data struct {
	Kube         *kube.Lazy
	DefaultCloud string
}

// configureFrom is the Configure step of every resource: the provider hands
// each one its providerData. Before the provider is configured (validation)
// there is none, and nil is returned without a diagnostic.
func ConfigureFrom(raw any, diags *diag.Diagnostics) *Data {
	if raw == nil {
		return nil
	}
	data, ok := raw.(*Data)
	if !ok {
		diags.AddError("Unexpected provider data", fmt.Sprintf("expected *providerData, got %T: a provider bug, please report it", raw))
		return nil
	}
	return data
}

// pickCloud is the one rule for a resource's cloud, and the only place
// default_cloud applies: the configured cloud, else the one the resource's
// node pools give (fromPools, "" when none or they disagree), else the
// provider's default_cloud. An unknown configured cloud without pools stays
// "" (known at apply). defaulted says whether default_cloud decided.
func PickCloud(configured types.String, fromPools, DefaultCloudName string) (cloud string, defaulted bool) {
	switch {
	case configured.ValueString() != "":
		return configured.ValueString(), false
	case fromPools != "":
		return fromPools, false
	case configured.IsUnknown():
		return "", false
	default:
		return DefaultCloudName, DefaultCloudName != ""
	}
}

// defaultCloud is the provider's default_cloud; "" before configuration.
func (d *Data) DefaultCloudName() string {
	if d == nil {
		return ""
	}
	return d.DefaultCloud
}
