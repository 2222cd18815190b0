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
// two checks of the raw configuration first, for mistakes the framework
// turns into errors that blame the provider and point at no line:
//   - a fraction in an integer attribute: Terraform types integer
//     attributes as numbers, so `count = 1.5` reaches the provider, and the
//     framework's conversion fails with "This is always an error in the
//     provider";
//   - a null element in a list, set or map (`labels = { team = null }`),
//     which the framework's conversion would otherwise turn into "" or an
//     empty object without a word.
//
// Both answer with the attribute and what is allowed. main and the tests
// serve the same thing.
func ProtocolServer(version string) func() tfprotov6.ProviderServer {
	return func() tfprotov6.ProviderServer {
		p := New(version)()
		gp, _ := p.(*GPUProvider)
		return &checkedServer{ProviderServer: providerserver.NewProtocol6(p)(), schemas: newSchemaIndex(p), provider: gp}
	}
}

// checkedServer runs the configuration checks during validation, plans the
// resources the direct planner serves, and passes everything else to the
// framework.
type checkedServer struct {
	tfprotov6.ProviderServer
	schemas  *schemaIndex
	provider *GPUProvider
}

// PlanResourceChange plans with the direct path where it serves the
// resource (direct_plan.go says why), else with the framework.
func (s *checkedServer) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	direct := s.schemas.directResource(ctx, req.TypeName)
	if !direct.serves(req) || s.provider == nil {
		return s.ProviderServer.PlanResourceChange(ctx, req)
	}
	return direct.plan(ctx, req, s.provider.resourceData()), nil
}

// ApplyResourceChange applies with the direct path where it serves the
// request.
func (s *checkedServer) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	direct := s.schemas.directResource(ctx, req.TypeName)
	if !direct.servesApply(req) || s.provider == nil {
		return s.ProviderServer.ApplyResourceChange(ctx, req)
	}
	return direct.apply(ctx, req, s.provider.resourceData()), nil
}

// ReadResource reads with the direct path where it serves the request.
func (s *checkedServer) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	direct := s.schemas.directResource(ctx, req.TypeName)
	if !direct.servesRead(req) || s.provider == nil {
		return s.ProviderServer.ReadResource(ctx, req)
	}
	return direct.read(ctx, req, s.provider.resourceData()), nil
}

// UpgradeResourceState passes a state of the current version through
// directly; older versions go to the resource's upgraders in the framework.
func (s *checkedServer) UpgradeResourceState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	direct := s.schemas.directResource(ctx, req.TypeName)
	if !direct.servesUpgrade(req) {
		return s.ProviderServer.UpgradeResourceState(ctx, req)
	}
	return direct.upgrade(ctx, req), nil
}

func (s *checkedServer) ValidateProviderConfig(ctx context.Context, req *tfprotov6.ValidateProviderConfigRequest) (*tfprotov6.ValidateProviderConfigResponse, error) {
	if diags := configProblems(ctx, s.schemas.provider(ctx), req.Config); len(diags) > 0 {
		return &tfprotov6.ValidateProviderConfigResponse{Diagnostics: diags}, nil
	}
	return s.ProviderServer.ValidateProviderConfig(ctx, req)
}

func (s *checkedServer) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	if diags := configProblems(ctx, s.schemas.resource(ctx, req.TypeName), req.Config); len(diags) > 0 {
		return &tfprotov6.ValidateResourceConfigResponse{Diagnostics: diags}, nil
	}
	return s.ProviderServer.ValidateResourceConfig(ctx, req)
}

func (s *checkedServer) ValidateDataResourceConfig(ctx context.Context, req *tfprotov6.ValidateDataResourceConfigRequest) (*tfprotov6.ValidateDataResourceConfigResponse, error) {
	if diags := configProblems(ctx, s.schemas.dataSource(ctx, req.TypeName), req.Config); len(diags) > 0 {
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

// configProblems walks the configuration once for both checks.
func configProblems(ctx context.Context, schema typedSchema, config *tfprotov6.DynamicValue) []*tfprotov6.Diagnostic {
	if schema == nil || config == nil {
		return nil
	}
	value, err := config.Unmarshal(schema.Type().TerraformType(ctx))
	if err != nil {
		return nil // the framework reports what is wrong with it
	}
	var diags []*tfprotov6.Diagnostic
	_ = tftypes.Walk(value, func(p *tftypes.AttributePath, v tftypes.Value) (bool, error) {
		if d := nullElement(ctx, schema, p, v); d != nil {
			diags = append(diags, d)
		}
		if d := fraction(ctx, schema, p, v); d != nil {
			diags = append(diags, d)
		}
		return true, nil
	})
	return diags
}

// fraction reports a known number that is not a whole number, or does not
// fit in 64 bits, where the schema has an integer attribute or element.
func fraction(ctx context.Context, schema typedSchema, p *tftypes.AttributePath, v tftypes.Value) *tfprotov6.Diagnostic {
	if !v.Type().Is(tftypes.Number) || !v.IsKnown() || v.IsNull() || !isIntegerAttribute(ctx, schema, p) {
		return nil
	}
	var n big.Float
	if err := v.As(&n); err != nil || isInt64(&n) {
		return nil
	}
	return &tfprotov6.Diagnostic{
		Severity:  tfprotov6.DiagnosticSeverityError,
		Summary:   "Not a whole number",
		Detail:    fmt.Sprintf("%s takes a whole number, got %s.", readablePath(p), n.Text('g', -1)),
		Attribute: p,
	}
}

// nullElement reports a null element of a list, set or map attribute.
// Dynamic attributes (Helm values, where null means "delete this key") are
// left alone: their paths do not resolve to a collection type.
func nullElement(ctx context.Context, schema typedSchema, p *tftypes.AttributePath, v tftypes.Value) *tfprotov6.Diagnostic {
	if !v.IsNull() || len(p.Steps()) == 0 {
		return nil
	}
	if _, isName := p.LastStep().(tftypes.AttributeName); isName {
		return nil
	}
	parent, err := schema.TypeAtTerraformPath(ctx, p.WithoutLastStep())
	if _, collection := parent.(attr.TypeWithElementType); err != nil || !collection {
		return nil
	}
	return &tfprotov6.Diagnostic{
		Severity: tfprotov6.DiagnosticSeverityError,
		Summary:  "Null element",
		Detail: fmt.Sprintf("%s is null, which this attribute does not take. Allowed: a value, or leave the element out, "+
			"e.g. with a for expression: [for x in local.xs : x if x != null] or { for k, v in local.m : k => v if v != null }.",
			readablePath(p)),
		Attribute: p,
	}
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
	// direct are the resources the direct planner serves.
	direct map[string]*directResource
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
		x.direct = map[string]*directResource{}
		for _, newResource := range x.p.Resources(ctx) {
			r := newResource()
			var m resource.MetadataResponse
			r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: meta.TypeName}, &m)
			var s resource.SchemaResponse
			r.Schema(ctx, resource.SchemaRequest{}, &s)
			x.resources[m.TypeName] = s.Schema
			if direct := newDirectResource(ctx, r, s.Schema, newResource); direct != nil {
				x.direct[m.TypeName] = direct
			}
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

// directResource is the direct planner of a resource type, nil when the
// framework plans it.
func (x *schemaIndex) directResource(ctx context.Context, typeName string) *directResource {
	x.load(ctx)
	return x.direct[typeName]
}

func (x *schemaIndex) dataSource(ctx context.Context, typeName string) typedSchema {
	x.load(ctx)
	return x.dataSources[typeName]
}
