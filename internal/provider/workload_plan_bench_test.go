package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	benchspec "github.com/gpuform/terraform-provider-gpu/bench/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/protocol"
	"github.com/gpuform/terraform-provider-gpu/internal/protocol/protocoltest"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/refs"
)

// These benchmarks measure what the provider does per gpu_workload in a
// plan, in process and without Terraform: the RPCs Terraform sends for one
// resource, msgpack decoding included. bench/README.md reads them next to
// the terraform plan timings of make bench.

// BenchmarkWorkloadPlanCreate is one resource of `terraform plan` with no
// state: ValidateResourceConfig, then PlanResourceChange.
func BenchmarkWorkloadPlanCreate(b *testing.B) {
	s := newPlanBench(b)
	b.ReportAllocs()
	for b.Loop() {
		s.validate(b)
		s.plan(b, s.nullState)
	}
}

// BenchmarkWorkloadPlanUnchanged is one resource of a refresh plan that
// finds nothing to change: ValidateResourceConfig, ReadResource and
// PlanResourceChange (the workload renders only, so no cluster is read).
func BenchmarkWorkloadPlanUnchanged(b *testing.B) {
	s := newPlanBench(b)
	state := s.plannedState(b)
	b.ReportAllocs()
	for b.Loop() {
		s.validate(b)
		read := s.read(b, state)
		s.plan(b, read)
	}
}

// planBench holds a configured provider server and the benchmark workload's
// configuration as Terraform sends it.
type planBench struct {
	server    tfprotov6.ProviderServer
	typeName  string
	objType   tftypes.Object
	config    *tfprotov6.DynamicValue
	nullState *tfprotov6.DynamicValue
}

func newPlanBench(b testing.TB) *planBench {
	b.Helper()
	clearClusterEnv(b)
	s, schemas := newPlanBenchOn(b, protocol.NewServer(New("bench"))(), "gpu_workload")
	providerType := objectType(b, schemas.Provider)
	configured, err := s.server.ConfigureProvider(context.Background(), &tfprotov6.ConfigureProviderRequest{
		TerraformVersion: "1.11.4",
		Config:           protocoltest.DynamicValue(b, providerType, nullObject(providerType)),
	})
	if err != nil || diagnosticsFail(configured.Diagnostics) {
		b.Fatalf("configure: %v %v", err, configured.Diagnostics)
	}
	s.config = protocoltest.DynamicValue(b, s.objType, benchWorkloadConfig(s.objType))
	return s
}

// newPlanBenchOn is a planBench of one resource type of server, without
// its configuration, and the server's schemas.
func newPlanBenchOn(b testing.TB, server tfprotov6.ProviderServer, typeName string) (*planBench, *tfprotov6.GetProviderSchemaResponse) {
	b.Helper()
	schemas, err := server.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil || diagnosticsFail(schemas.Diagnostics) {
		b.Fatalf("schema: %v %v", err, schemas.Diagnostics)
	}
	objType := objectType(b, schemas.ResourceSchemas[typeName])
	return &planBench{
		server:    server,
		typeName:  typeName,
		objType:   objType,
		nullState: protocoltest.DynamicValue(b, objType, tftypes.NewValue(objType, nil)),
	}, schemas
}

// benchWorkloadConfig is make bench's workload (bench/spec), rendered only:
// every attribute it does not set is null, as in Terraform's configuration.
func benchWorkloadConfig(t tftypes.Object) tftypes.Value {
	gpuType, _ := t.AttributeTypes["gpu"].(tftypes.Object)
	set := map[string]tftypes.Value{
		"name":      tftypes.NewValue(tftypes.String, benchspec.Name(0)),
		"namespace": tftypes.NewValue(tftypes.String, "bench"),
		"cloud":     tftypes.NewValue(tftypes.String, benchspec.Cloud),
		"replicas":  tftypes.NewValue(tftypes.Number, benchspec.Replicas),
		"image":     tftypes.NewValue(tftypes.String, benchspec.Image),
		"node_pool": benchPoolRef(),
		"apply":     tftypes.NewValue(tftypes.Bool, false),
		"gpu": tftypes.NewValue(gpuType, protocoltest.WithAttributes(gpuType,
			map[string]tftypes.Value{"count": tftypes.NewValue(tftypes.Number, benchspec.GPUCount)})),
	}
	return tftypes.NewValue(t, protocoltest.WithAttributes(t, set))
}

// objectType is a schema's value type, which is always an object.
func objectType(b testing.TB, s *tfprotov6.Schema) tftypes.Object {
	b.Helper()
	t, ok := s.ValueType().(tftypes.Object)
	if !ok {
		b.Fatalf("schema type %T is not an object", s.ValueType())
	}
	return t
}

func nullObject(t tftypes.Object) tftypes.Value {
	return tftypes.NewValue(t, protocoltest.WithAttributes(t, nil))
}

func (s *planBench) validate(b testing.TB) {
	resp, err := s.server.ValidateResourceConfig(context.Background(), &tfprotov6.ValidateResourceConfigRequest{
		TypeName: s.typeName, Config: s.config,
	})
	if err != nil || diagnosticsFail(resp.Diagnostics) {
		b.Fatalf("validate: %v %v", err, resp.Diagnostics)
	}
}

// plan plans the configuration against prior, with the configuration as
// the proposed new state (what Terraform proposes when nothing is computed
// from the prior state).
func (s *planBench) plan(b testing.TB, prior *tfprotov6.DynamicValue) *tfprotov6.DynamicValue {
	resp, err := s.server.PlanResourceChange(context.Background(), &tfprotov6.PlanResourceChangeRequest{
		TypeName: s.typeName, PriorState: prior, ProposedNewState: s.proposed(b, prior), Config: s.config,
	})
	if err != nil || diagnosticsFail(resp.Diagnostics) {
		b.Fatalf("plan: %v %v", err, resp.Diagnostics)
	}
	return resp.PlannedState
}

// proposed is Terraform's proposed new state: the configuration, with
// computed attributes it leaves null taken from the prior state.
func (s *planBench) proposed(b testing.TB, prior *tfprotov6.DynamicValue) *tfprotov6.DynamicValue {
	if prior == s.nullState {
		return s.config
	}
	priorValue, err := prior.Unmarshal(s.objType)
	if err != nil {
		b.Fatal(err)
	}
	configValue, err := s.config.Unmarshal(s.objType)
	if err != nil {
		b.Fatal(err)
	}
	var priorAttrs, configAttrs map[string]tftypes.Value
	if err := priorValue.As(&priorAttrs); err != nil {
		b.Fatal(err)
	}
	if err := configValue.As(&configAttrs); err != nil {
		b.Fatal(err)
	}
	for name, v := range configAttrs {
		if v.IsNull() && !priorAttrs[name].IsNull() {
			configAttrs[name] = priorAttrs[name]
		}
	}
	return protocoltest.DynamicValue(b, s.objType, tftypes.NewValue(s.objType, configAttrs))
}

func (s *planBench) read(b testing.TB, state *tfprotov6.DynamicValue) *tfprotov6.DynamicValue {
	resp, err := s.server.ReadResource(context.Background(), &tfprotov6.ReadResourceRequest{
		TypeName: s.typeName, CurrentState: state,
	})
	if err != nil || diagnosticsFail(resp.Diagnostics) {
		b.Fatalf("read: %v %v", err, resp.Diagnostics)
	}
	return resp.NewState
}

// plannedState is the state an apply of the configuration leaves: the
// planned state of a create, all known for a render-only workload.
func (s *planBench) plannedState(b testing.TB) *tfprotov6.DynamicValue {
	planned := s.plan(b, s.nullState)
	v, err := planned.Unmarshal(s.objType)
	if err != nil {
		b.Fatal(err)
	}
	if !v.IsFullyKnown() {
		b.Fatalf("the planned state of a render-only workload has unknown values: %v", v)
	}
	return planned
}

func diagnosticsFail(diags []*tfprotov6.Diagnostic) bool {
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			return true
		}
	}
	return false
}

// benchPoolRef is the ref of make bench's pool, as a gpu_node_pool_policy
// hands it to node_pool.
func benchPoolRef() tftypes.Value {
	ref, err := refs.RefFromPool(benchspec.Pool("bench"))
	if err != nil {
		panic(err)
	}
	v, err := ref.ToTerraformValue(context.Background())
	if err != nil {
		panic(err)
	}
	return v
}
