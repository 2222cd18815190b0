package provider

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	fwprovider "github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// ProtocolServer is the provider's protocol 6 server: the framework's, with
// whole-number attributes checked first. Terraform types an integer
// attribute as a number, so `count = 1.5` reaches the provider, and the
// framework's conversion then fails with "This is always an error in the
// provider" and no line. This check answers with the attribute and what is
// allowed instead. main and the tests serve the same thing.
func ProtocolServer(version string) func() tfprotov6.ProviderServer {
	return func() tfprotov6.ProviderServer {
		p := New(version)()
		return &wholeNumberServer{ProviderServer: providerserver.NewProtocol6(p)(), schemas: newSchemaIndex(p)}
	}
}

// wholeNumberServer rejects fractions in integer attributes during
// validation and passes everything else to the framework.
type wholeNumberServer struct {
	tfprotov6.ProviderServer
	schemas *schemaIndex
}

func (s *wholeNumberServer) ValidateProviderConfig(ctx context.Context, req *tfprotov6.ValidateProviderConfigRequest) (*tfprotov6.ValidateProviderConfigResponse, error) {
	if diags := fractions(ctx, s.schemas.provider(ctx), req.Config); len(diags) > 0 {
		return &tfprotov6.ValidateProviderConfigResponse{Diagnostics: diags}, nil
	}
	return s.ProviderServer.ValidateProviderConfig(ctx, req)
}

func (s *wholeNumberServer) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	if diags := fractions(ctx, s.schemas.resource(ctx, req.TypeName), req.Config); len(diags) > 0 {
		return &tfprotov6.ValidateResourceConfigResponse{Diagnostics: diags}, nil
	}
	return s.ProviderServer.ValidateResourceConfig(ctx, req)
}

func (s *wholeNumberServer) ValidateDataResourceConfig(ctx context.Context, req *tfprotov6.ValidateDataResourceConfigRequest) (*tfprotov6.ValidateDataResourceConfigResponse, error) {
	if diags := fractions(ctx, s.schemas.dataSource(ctx, req.TypeName), req.Config); len(diags) > 0 {
		return &tfprotov6.ValidateDataResourceConfigResponse{Diagnostics: diags}, nil
	}
	return s.ProviderServer.ValidateDataResourceConfig(ctx, req)
}

// typedSchema is what the check needs of a resource, data source or
// provider schema.
type typedSchema interface {
	Type() attr.Type
	TypeAtTerraformPath(context.Context, *tftypes.AttributePath) (attr.Type, error)
}

// fractions reports every known number that is not a whole number, or does
// not fit in 64 bits, where the schema has an integer attribute (or list,
// set or map element).
func fractions(ctx context.Context, schema typedSchema, config *tfprotov6.DynamicValue) []*tfprotov6.Diagnostic {
	if schema == nil || config == nil {
		return nil
	}
	value, err := config.Unmarshal(schema.Type().TerraformType(ctx))
	if err != nil {
		return nil // the framework reports what is wrong with it
	}
	var diags []*tfprotov6.Diagnostic
	_ = tftypes.Walk(value, func(p *tftypes.AttributePath, v tftypes.Value) (bool, error) {
		if !v.Type().Is(tftypes.Number) || !v.IsKnown() || v.IsNull() {
			return true, nil
		}
		if !isIntegerAttribute(ctx, schema, p) {
			return true, nil
		}
		var n big.Float
		if err := v.As(&n); err == nil && !isInt64(&n) {
			diags = append(diags, &tfprotov6.Diagnostic{
				Severity:  tfprotov6.DiagnosticSeverityError,
				Summary:   "Not a whole number",
				Detail:    fmt.Sprintf("%s takes a whole number, got %s.", readablePath(p), n.Text('g', -1)),
				Attribute: p,
			})
		}
		return true, nil
	})
	return diags
}

// isIntegerAttribute reports whether the schema types the path as an int64
// attribute or element; a path it cannot resolve (dynamic values) is not.
func isIntegerAttribute(ctx context.Context, schema typedSchema, p *tftypes.AttributePath) bool {
	t, err := schema.TypeAtTerraformPath(ctx, p)
	return err == nil && t.Equal(types.Int64Type)
}

// readablePath writes a path as configurations do: gpu.count, ports[1].
func readablePath(p *tftypes.AttributePath) string {
	var b strings.Builder
	for _, step := range p.Steps() {
		switch s := step.(type) {
		case tftypes.AttributeName:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(string(s))
		case tftypes.ElementKeyInt:
			fmt.Fprintf(&b, "[%d]", int64(s))
		case tftypes.ElementKeyString:
			fmt.Fprintf(&b, "[%q]", string(s))
		}
	}
	return b.String()
}

func isInt64(n *big.Float) bool {
	if !n.IsInt() {
		return false
	}
	_, accuracy := n.Int64()
	return accuracy == big.Exact
}

// schemaIndex finds the schemas by type name, built once per server.
type schemaIndex struct {
	p    fwprovider.Provider
	once sync.Once

	providerSchema typedSchema
	resources      map[string]typedSchema
	dataSources    map[string]typedSchema
}

func newSchemaIndex(p fwprovider.Provider) *schemaIndex { return &schemaIndex{p: p} }

func (x *schemaIndex) load(ctx context.Context) {
	x.once.Do(func() {
		var meta fwprovider.MetadataResponse
		x.p.Metadata(ctx, fwprovider.MetadataRequest{}, &meta)
		var ps fwprovider.SchemaResponse
		x.p.Schema(ctx, fwprovider.SchemaRequest{}, &ps)
		x.providerSchema = ps.Schema
		x.resources, x.dataSources = map[string]typedSchema{}, map[string]typedSchema{}
		for _, newResource := range x.p.Resources(ctx) {
			r := newResource()
			var m resource.MetadataResponse
			r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: meta.TypeName}, &m)
			var s resource.SchemaResponse
			r.Schema(ctx, resource.SchemaRequest{}, &s)
			x.resources[m.TypeName] = s.Schema
		}
		for _, newDataSource := range x.p.DataSources(ctx) {
			d := newDataSource()
			var m datasource.MetadataResponse
			d.Metadata(ctx, datasource.MetadataRequest{ProviderTypeName: meta.TypeName}, &m)
			var s datasource.SchemaResponse
			d.Schema(ctx, datasource.SchemaRequest{}, &s)
			x.dataSources[m.TypeName] = s.Schema
		}
	})
}

func (x *schemaIndex) provider(ctx context.Context) typedSchema {
	x.load(ctx)
	return x.providerSchema
}

func (x *schemaIndex) resource(ctx context.Context, typeName string) typedSchema {
	x.load(ctx)
	return x.resources[typeName]
}

func (x *schemaIndex) dataSource(ctx context.Context, typeName string) typedSchema {
	x.load(ctx)
	return x.dataSources[typeName]
}
