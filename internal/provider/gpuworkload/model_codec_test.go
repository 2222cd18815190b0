package gpuworkload

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

	benchspec "github.com/gpuform/terraform-provider-gpu/bench/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/protocol/protocoltest"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/refs"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
)

func workloadCodecSchema(t *testing.T) (resource.SchemaResponse, tftypes.Object) {
	t.Helper()
	ctx := context.Background()
	var schemaResp resource.SchemaResponse
	NewResource().Schema(ctx, resource.SchemaRequest{}, &schemaResp)
	objType, ok := schemaResp.Schema.Type().TerraformType(ctx).(tftypes.Object)
	if !ok {
		t.Fatal("the schema is not an object")
	}
	return schemaResp, objType
}

// codecConfig is make bench's workload (bench/spec), rendered only, with
// its pool's ref: every attribute it does not set is null, as in
// Terraform's configuration.
func codecConfig(t *testing.T, objType tftypes.Object) tftypes.Value {
	t.Helper()
	ref, err := refs.RefFromPool(benchspec.Pool("bench"))
	if err != nil {
		t.Fatal(err)
	}
	poolRef, err := ref.ToTerraformValue(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	gpuType, _ := objType.AttributeTypes["gpu"].(tftypes.Object)
	set := map[string]tftypes.Value{
		"name":      tftypes.NewValue(tftypes.String, benchspec.Name(0)),
		"namespace": tftypes.NewValue(tftypes.String, "bench"),
		"cloud":     tftypes.NewValue(tftypes.String, benchspec.Cloud),
		"replicas":  tftypes.NewValue(tftypes.Number, benchspec.Replicas),
		"image":     tftypes.NewValue(tftypes.String, benchspec.Image),
		"node_pool": poolRef,
		"apply":     tftypes.NewValue(tftypes.Bool, false),
		"gpu": tftypes.NewValue(gpuType, protocoltest.WithAttributes(gpuType,
			map[string]tftypes.Value{"count": tftypes.NewValue(tftypes.Number, benchspec.GPUCount)})),
	}
	return tftypes.NewValue(objType, protocoltest.WithAttributes(objType, set))
}

// The codec must read every attribute as the framework does, the tagged
// fields and the ones it keeps in Intent alike, and write back exactly what
// it read: the state it writes is what Terraform compares with the plan.
func TestModelCodecReadsAsTheFrameworkAndRoundTrips(t *testing.T) {
	ctx := context.Background()
	schemaResp, objType := workloadCodecSchema(t)
	raw := codecConfig(t, objType)
	state := tfsdk.State{Raw: raw, Schema: schemaResp.Schema}

	var m workloadModel
	if diags := resourcekit.GetRendered(ctx, state, &m); diags.HasError() {
		t.Fatal(diags)
	}
	seen := map[string]bool{}
	// VisibleFields: those of the embedded resourcekit.RenderedAttributes too.
	for _, f := range reflect.VisibleFields(reflect.TypeFor[workloadModel]()) {
		name, _, _ := strings.Cut(f.Tag.Get("tfsdk"), ",")
		if name == "" || name == "-" {
			continue
		}
		got, _ := reflect.ValueOf(m).FieldByIndex(f.Index).Interface().(attr.Value)
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

	v, diags := resourcekit.CodecOf[workloadModel]().Encode(ctx, schemaResp.Schema, &m)
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
	var m workloadModel
	state := tfsdk.State{Raw: codecConfig(t, objType), Schema: schemaResp.Schema}
	if diags := resourcekit.GetRendered(ctx, state, &m); diags.HasError() {
		t.Fatal(diags)
	}
	m.Manifest = types.StringValue("apiVersion: apps/v1\nkind: Deployment\n")
	m.Manifests = resourcekit.ManifestDocs(m.Manifest)
	m.UID = types.StringUnknown()
	m.ScheduledNodes = types.ListUnknown(types.StringType)
	v, diags := resourcekit.CodecOf[workloadModel]().Encode(ctx, schemaResp.Schema, &m)
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
	raw := codecConfig(t, objType)
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
