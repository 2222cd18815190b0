package protocol

import (
	"context"
	"fmt"

	fwprovider "github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// Provider is a framework provider that also hands out what its Configure
// gave the resources: the direct path configures the resources it serves
// itself, and the framework keeps its copy out of reach.
type Provider interface {
	fwprovider.Provider
	ResourceData() any
}

// NewServer is the provider's protocol 6 server, in two layers over the
// framework's (docs/design/framework.md):
//   - the configuration checks (checks.go) run first during validation;
//   - the direct path (direct_*.go) plans, reads, applies and upgrades the
//     resources whose schemas it serves exactly as the framework would.
//
// Everything else goes to the framework. main and the tests serve the same
// thing. A provider without ResourceData gets the checks only.
func NewServer(newProvider func() fwprovider.Provider) func() tfprotov6.ProviderServer {
	return func() tfprotov6.ProviderServer {
		p := newProvider()
		withData, _ := p.(Provider)
		return &Server{ProviderServer: providerserver.NewProtocol6(p)(), schemas: newSchemaIndex(p), provider: withData}
	}
}

// Server runs the configuration checks during validation, serves the
// resources the direct path serves, and passes everything else to the
// framework.
type Server struct {
	tfprotov6.ProviderServer
	schemas  *schemaIndex
	provider Provider
}

// ServedDirectly says why the direct path does not serve a resource type,
// nil when it does.
func (s *Server) ServedDirectly(ctx context.Context, typeName string) error {
	s.schemas.load(ctx)
	if s.schemas.direct[typeName] != nil {
		return nil
	}
	if why, ok := s.schemas.refused[typeName]; ok {
		return why
	}
	return fmt.Errorf("no resource type %q", typeName)
}

// resourceData is what the provider's Configure handed to resources, nil
// before it ran or without a Provider.
func (s *Server) resourceData() any {
	if s.provider == nil {
		return nil
	}
	return s.provider.ResourceData()
}

// PlanResourceChange plans with the direct path where it serves the
// resource (direct_plan.go says why), else with the framework.
func (s *Server) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	return route(ctx, s, req.TypeName, req, (*directResource).serves, (*directResource).plan, s.ProviderServer.PlanResourceChange)
}

// ApplyResourceChange applies with the direct path where it serves the
// request.
func (s *Server) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	return route(ctx, s, req.TypeName, req, (*directResource).servesApply, (*directResource).apply, s.ProviderServer.ApplyResourceChange)
}

// ReadResource reads with the direct path where it serves the request.
func (s *Server) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	return route(ctx, s, req.TypeName, req, (*directResource).servesRead, (*directResource).read, s.ProviderServer.ReadResource)
}

// route answers a request of a resource type with the direct path where
// serves says it answers it exactly as the framework would and the
// provider is configured, else with the framework.
func route[Req, Resp any](ctx context.Context, s *Server, typeName string, req Req,
	serves func(*directResource, Req) bool,
	direct func(*directResource, context.Context, Req, any) Resp,
	framework func(context.Context, Req) (Resp, error)) (Resp, error) {
	r := s.schemas.directResource(ctx, typeName)
	if !serves(r, req) || s.provider == nil {
		return framework(ctx, req)
	}
	return direct(r, ctx, req, s.resourceData()), nil
}

// UpgradeResourceState passes a state of the current version through
// directly; older versions go to the resource's upgraders in the framework.
func (s *Server) UpgradeResourceState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	direct := s.schemas.directResource(ctx, req.TypeName)
	if !direct.servesUpgrade(req) {
		return s.ProviderServer.UpgradeResourceState(ctx, req)
	}
	return direct.upgrade(ctx, req), nil
}

func (s *Server) ValidateProviderConfig(ctx context.Context, req *tfprotov6.ValidateProviderConfigRequest) (*tfprotov6.ValidateProviderConfigResponse, error) {
	if diags := configProblems(ctx, s.schemas.provider(ctx), req.Config); len(diags) > 0 {
		return &tfprotov6.ValidateProviderConfigResponse{Diagnostics: diags}, nil
	}
	return s.ProviderServer.ValidateProviderConfig(ctx, req)
}

// ValidateResourceConfig runs the configuration checks, then validates
// with the direct path where it serves the resource (direct_validate.go
// says why), else with the framework.
func (s *Server) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	direct := s.schemas.directResource(ctx, req.TypeName)
	if !direct.servesValidate(req) || s.provider == nil {
		return s.validateWithFramework(ctx, req)
	}
	config, err := decodeDynamicValue(req.Config, direct.schema.tfType)
	if err != nil {
		return s.validateWithFramework(ctx, req) // which reports what is wrong with it
	}
	if diags := configProblemsIn(ctx, s.schemas.resource(ctx, req.TypeName), config); len(diags) > 0 {
		return &tfprotov6.ValidateResourceConfigResponse{Diagnostics: diags}, nil
	}
	return &tfprotov6.ValidateResourceConfigResponse{Diagnostics: direct.validate(ctx, config, req.ClientCapabilities, s.resourceData())}, nil
}

// validateWithFramework is ValidateResourceConfig without the direct
// path: the configuration checks, then the framework.
func (s *Server) validateWithFramework(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	if diags := configProblems(ctx, s.schemas.resource(ctx, req.TypeName), req.Config); len(diags) > 0 {
		return &tfprotov6.ValidateResourceConfigResponse{Diagnostics: diags}, nil
	}
	return s.ProviderServer.ValidateResourceConfig(ctx, req)
}

func (s *Server) ValidateDataResourceConfig(ctx context.Context, req *tfprotov6.ValidateDataResourceConfigRequest) (*tfprotov6.ValidateDataResourceConfigResponse, error) {
	if diags := configProblems(ctx, s.schemas.dataSource(ctx, req.TypeName), req.Config); len(diags) > 0 {
		return &tfprotov6.ValidateDataResourceConfigResponse{Diagnostics: diags}, nil
	}
	return s.ProviderServer.ValidateDataResourceConfig(ctx, req)
}
