package provider

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/gpuworkload"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
)

func workloadCodecSchema(t *testing.T) (resource.SchemaResponse, tftypes.Object) {
	t.Helper()
	ctx := context.Background()
	var schemaResp resource.SchemaResponse
	gpuworkload.NewResource().Schema(ctx, resource.SchemaRequest{}, &schemaResp)
	objType, ok := schemaResp.Schema.Type().TerraformType(ctx).(tftypes.Object)
	if !ok {
		t.Fatal("the schema is not an object")
	}
	return schemaResp, objType
}

// The codec must read every attribute as the framework does, the tagged
// fields and the ones it keeps in Intent alike, and write back exactly what
// it read: the state it writes is what Terraform compares with the plan.
func TestModelCodecReadsAsTheFrameworkAndRoundTrips(t *testing.T) {
	ctx := context.Background()
	schemaResp, objType := workloadCodecSchema(t)
	raw := benchWorkloadConfig(objType)
	state := tfsdk.State{Raw: raw, Schema: schemaResp.Schema}

	var m gpuworkload.WorkloadModel
	if diags := gpuworkload.GetWorkload(ctx, state, &m); diags.HasError() {
		t.Fatal(diags)
	}
	seen := map[string]bool{}
	fields := reflect.TypeFor[gpuworkload.WorkloadModel]()
	for i := range fields.NumField() {
		name, _, _ := strings.Cut(fields.Field(i).Tag.Get("tfsdk"), ",")
		if name == "" || name == "-" {
			continue
		}
		got, _ := reflect.ValueOf(m).Field(i).Interface().(attr.Value)
		assertFrameworkReads(t, state, name, got)
		seen[name] = true
	}
	for name, got := range m.Intent {
		if seen[name] {
			t.Errorf("%s is both a field and in Intent", name)
		}
		assertFrameworkReads(t, state, name, got)
		seen[name] = true
	}
	if len(seen) != len(objType.AttributeTypes) {
		t.Errorf("the model holds %d attributes, the schema has %d", len(seen), len(objType.AttributeTypes))
	}
	if _, ok := m.Intent["image"]; !ok {
		t.Error("image, which only render reads, is not in Intent")
	}

	v, diags := resourcekit.CodecOf[gpuworkload.WorkloadModel]().Encode(ctx, schemaResp.Schema, &m)
	if diags.HasError() {
		t.Fatal(diags)
	}
	if !v.Equal(raw) {
		t.Fatalf("encoded differently from what was decoded:\nencoded %s\ndecoded %s", v, raw)
	}
}

func assertFrameworkReads(t *testing.T, state tfsdk.State, name string, got attr.Value) {
	t.Helper()
	var want attr.Value
	if diags := state.GetAttribute(context.Background(), path.Root(name), &want); diags.HasError() {
		t.Fatalf("%s: %v", name, diags)
	}
	if got == nil || !got.Equal(want) {
		t.Errorf("%s: the codec read %v, the framework %v", name, got, want)
	}
}

// Outputs of every kind (a string, a list, unknown values) are written
// where the framework reads them.
func TestModelCodecWritesOutputs(t *testing.T) {
	ctx := context.Background()
	schemaResp, objType := workloadCodecSchema(t)
	var m gpuworkload.WorkloadModel
	state := tfsdk.State{Raw: benchWorkloadConfig(objType), Schema: schemaResp.Schema}
	if diags := gpuworkload.GetWorkload(ctx, state, &m); diags.HasError() {
		t.Fatal(diags)
	}
	m.Manifest = types.StringValue("apiVersion: apps/v1\nkind: Deployment\n")
	m.WithManifests()
	m.UID = types.StringUnknown()
	m.ScheduledNodes = types.ListUnknown(types.StringType)
	v, diags := resourcekit.CodecOf[gpuworkload.WorkloadModel]().Encode(ctx, schemaResp.Schema, &m)
	if diags.HasError() {
		t.Fatal(diags)
	}
	written := tfsdk.State{Raw: v, Schema: schemaResp.Schema}
	assertFrameworkReads(t, written, "manifests", m.Manifests)
	assertFrameworkReads(t, written, "uid", types.StringUnknown())
	assertFrameworkReads(t, written, "scheduled_nodes", types.ListUnknown(types.StringType))
	assertFrameworkReads(t, written, "image", m.Intent["image"])
}

// A model that does not fit the schema is a provider bug the codec names,
// not a panic and not a silently wrong state.
func TestModelCodecRefusesAModelThatDoesNotFit(t *testing.T) {
	ctx := context.Background()
	schemaResp, objType := workloadCodecSchema(t)
	raw := benchWorkloadConfig(objType)
	cases := map[string]any{
		"a tag the schema lacks": &struct {
			Name  types.String `tfsdk:"no_such_attribute"`
			Other map[string]attr.Value
		}{},
		"attributes with no field": &struct {
			Name types.String `tfsdk:"name"`
		}{},
	}
	for name, model := range cases {
		t.Run(name, func(t *testing.T) {
			var c resourcekit.ModelCodec
			diags := c.Get(ctx, raw, schemaResp.Schema, model)
			if !diags.HasError() || !strings.Contains(diags[0].Summary(), "Provider bug") {
				t.Fatalf("got %v, want a provider bug diagnostic", diags)
			}
			if _, diags := c.Encode(ctx, schemaResp.Schema, model); !diags.HasError() {
				t.Fatal("Encode accepted the model")
			}
		})
	}
}
