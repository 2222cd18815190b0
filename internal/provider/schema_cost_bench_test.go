package provider

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpuform/terraform-provider-gpu/internal/protocol/protocoltest"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/gpuworkload"
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

// BenchmarkFrameworkPlanWorkloadSchema is the same for a resource with
// gpu_workload's schema whose Read and ModifyPlan do no work: what the
// framework costs for this schema, the floor under BenchmarkWorkloadPlan*.
func BenchmarkFrameworkPlanWorkloadSchema(b *testing.B) {
	s := newPlanBenchFor(b, protocoltest.Sized(workloadSchema()))
	s.config = protocoltest.DynamicValue(b, s.objType, benchWorkloadConfig(s.objType))
	b.ReportAllocs()
	for b.Loop() {
		s.validate(b)
		s.plan(b, s.read(b, s.config))
	}
}

// workloadSchema is gpu_workload's schema.
func workloadSchema() schema.Schema {
	var resp resource.SchemaResponse
	gpuworkload.NewResource().Schema(context.Background(), resource.SchemaRequest{}, &resp)
	return resp.Schema
}

func newSizedPlanBench(b *testing.B, attributes int) *planBench {
	b.Helper()
	attrs := map[string]schema.Attribute{"id": schema.StringAttribute{Required: true}}
	for i := range attributes {
		attrs[sizedAttribute(i)] = schema.StringAttribute{Optional: true}
	}
	s := newPlanBenchFor(b, protocoltest.Sized(schema.Schema{Attributes: attrs}))
	set := map[string]tftypes.Value{"id": tftypes.NewValue(tftypes.String, "x")}
	for i := range min(attributes, 8) {
		set[sizedAttribute(i)] = tftypes.NewValue(tftypes.String, "value")
	}
	s.config = protocoltest.DynamicValue(b, s.objType, tftypes.NewValue(s.objType, protocoltest.WithAttributes(s.objType, set)))
	return s
}

// newPlanBenchFor serves p's one resource type, "sized"; the caller sets
// the configuration.
func newPlanBenchFor(b *testing.B, p provider.Provider) *planBench {
	b.Helper()
	s, _ := newPlanBenchOn(b, providerserver.NewProtocol6(p)(), "sized")
	return s
}

func sizedAttribute(i int) string { return fmt.Sprintf("a%d", i) }
