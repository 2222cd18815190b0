// Package protocoltest holds what tests of the protocol layer and of the
// provider share: a provider of one resource type with a given schema and
// no behaviour.
package protocoltest

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
)

// SizedType is the one resource type of Sized.
const SizedType = "sized"

// Sized is a provider serving one resource type, "sized", with the given
// schema and no behaviour: what a schema costs the framework, and how the
// direct path serves it, with nothing else in the way.
func Sized(s schema.Schema) provider.Provider { return &sizedProvider{schema: s} }

type sizedProvider struct{ schema schema.Schema }

func (p *sizedProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "bench"
}
func (p *sizedProvider) Schema(context.Context, provider.SchemaRequest, *provider.SchemaResponse) {}
func (p *sizedProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}
func (p *sizedProvider) DataSources(context.Context) []func() datasource.DataSource { return nil }
func (p *sizedProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{func() resource.Resource { return &sizedResource{schema: p.schema} }}
}

type sizedResource struct{ schema schema.Schema }

func (r *sizedResource) Metadata(_ context.Context, _ resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = SizedType
}

func (r *sizedResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = r.schema
}

// Read keeps the state; Create sets none (an error the direct path and the
// framework both report); Update keeps the plan; Delete removes.
func (r *sizedResource) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}
func (r *sizedResource) Create(context.Context, resource.CreateRequest, *resource.CreateResponse) {
}
func (r *sizedResource) Update(context.Context, resource.UpdateRequest, *resource.UpdateResponse) {
}
func (r *sizedResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {
}
