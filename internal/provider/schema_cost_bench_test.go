package provider

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// BenchmarkFrameworkPlanBySchemaSize measures what the plugin framework
// itself costs per resource in a refresh plan, as a function of the number
// of top-level attributes and nothing else: a resource whose Read and
// ModifyPlan do no work, with 8 attributes set and the rest null (like
// make bench's workload). It is the part of gpu_workload's plan no code of
// this provider can remove without removing attributes; bench/README.md
// reads it.
func BenchmarkFrameworkPlanBySchemaSize(b *testing.B) {
	for _, attributes := range []int{4, 16, 32, 44, 47, 51, 64} {
		b.Run(fmt.Sprintf("attributes=%d", attributes), func(b *testing.B) {
			s := newSizedPlanBench(b, attributes)
			b.ReportAllocs()
			for b.Loop() {
				s.validate(b)
				s.plan(b, s.read(b, s.config))
			}
		})
	}
}

func newSizedPlanBench(b *testing.B, attributes int) *planBench {
	b.Helper()
	ctx := context.Background()
	server := providerserver.NewProtocol6(&sizedProvider{attributes: attributes})()
	schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil || diagnosticsFail(schemas.Diagnostics) {
		b.Fatalf("schema: %v %v", err, schemas.Diagnostics)
	}
	objType := objectType(b, schemas.ResourceSchemas["sized"])
	set := map[string]tftypes.Value{"id": tftypes.NewValue(tftypes.String, "x")}
	for i := range min(attributes, 8) {
		set[sizedAttribute(i)] = tftypes.NewValue(tftypes.String, "value")
	}
	return &planBench{
		server:    server,
		typeName:  "sized",
		objType:   objType,
		config:    dynamicValue(b, objType, tftypes.NewValue(objType, withAttributes(objType, set))),
		nullState: dynamicValue(b, objType, tftypes.NewValue(objType, nil)),
	}
}

func sizedAttribute(i int) string { return fmt.Sprintf("a%d", i) }

// sizedProvider serves one resource type, "sized", with the given number of
// optional string attributes besides its id.
type sizedProvider struct{ attributes int }

func (p *sizedProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "bench"
}
func (p *sizedProvider) Schema(context.Context, provider.SchemaRequest, *provider.SchemaResponse) {}
func (p *sizedProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}
func (p *sizedProvider) DataSources(context.Context) []func() datasource.DataSource { return nil }
func (p *sizedProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{func() resource.Resource { return &sizedResource{attributes: p.attributes} }}
}

type sizedResource struct{ attributes int }

func (r *sizedResource) Metadata(_ context.Context, _ resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = "sized"
}

func (r *sizedResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attrs := map[string]schema.Attribute{"id": schema.StringAttribute{Required: true}}
	for i := range r.attributes {
		attrs[sizedAttribute(i)] = schema.StringAttribute{Optional: true}
	}
	resp.Schema = schema.Schema{Attributes: attrs}
}

// Read keeps the state; Create, Update and Delete are never called.
func (r *sizedResource) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}
func (r *sizedResource) Create(context.Context, resource.CreateRequest, *resource.CreateResponse) {
}
func (r *sizedResource) Update(context.Context, resource.UpdateRequest, *resource.UpdateResponse) {
}
func (r *sizedResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {
}
