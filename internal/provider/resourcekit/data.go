package resourcekit

import (
	"context"
	"fmt"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
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

// Resource is embedded by every resource: Metadata names it after the
// provider and its type suffix, and Configure keeps the provider's Data (nil
// until the provider is configured, as during validation). A resource states
// only its suffix, in NewResource, and what it does.
type Resource struct {
	typeSuffix string
	Data       *Data
}

// NewResource makes a resource of type T, which embeds Resource, named
// after the provider and typeSuffix, e.g. "_workload".
func NewResource[T any, PT interface {
	*T
	resource.Resource
	named(typeSuffix string)
}](typeSuffix string) resource.Resource {
	r := PT(new(T))
	r.named(typeSuffix)
	return r
}

func (r *Resource) named(typeSuffix string) { r.typeSuffix = typeSuffix }

// Metadata names the resource, e.g. gpu + "_workload".
func (r *Resource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + r.typeSuffix
}

// Configure keeps what the provider's Configure handed over.
func (r *Resource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if data := ConfigureFrom(req.ProviderData, &resp.Diagnostics); data != nil {
		r.Data = data
	}
}

// DefaultCloud is the provider's default_cloud; "" before configuration.
func (r *Resource) DefaultCloud() string { return r.Data.DefaultCloudName() }

// DataSource is Resource for data sources.
type DataSource struct {
	typeSuffix string
	Data       *Data
}

// NewDataSource is NewResource for data sources.
func NewDataSource[T any, PT interface {
	*T
	datasource.DataSource
	named(typeSuffix string)
}](typeSuffix string) datasource.DataSource {
	d := PT(new(T))
	d.named(typeSuffix)
	return d
}

func (d *DataSource) named(typeSuffix string) { d.typeSuffix = typeSuffix }

// Metadata names the data source.
func (d *DataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + d.typeSuffix
}

// Configure keeps what the provider's Configure handed over.
func (d *DataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	if data := ConfigureFrom(req.ProviderData, &resp.Diagnostics); data != nil {
		d.Data = data
	}
}
