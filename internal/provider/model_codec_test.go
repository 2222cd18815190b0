package provider

import (
	"context"
	"reflect"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/gpuworkload"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// The codec must give exactly the framework's answer both ways, or the
// state it writes would differ from what the framework's Set would write.
func TestModelCodecMatchesTheFramework(t *testing.T) {
	ctx := context.Background()
	var schemaResp resource.SchemaResponse
	gpuworkload.NewResource().Schema(ctx, resource.SchemaRequest{}, &schemaResp)
	objType, ok := schemaResp.Schema.Type().TerraformType(ctx).(tftypes.Object)
	if !ok {
		t.Fatal("the schema is not an object")
	}
	raw := benchWorkloadConfig(objType)

	var fast, slow gpuworkload.WorkloadModel
	if diags := gpuworkload.GetWorkload(ctx, gpuworkload.StateData{State: tfsdk.State{Raw: raw, Schema: schemaResp.Schema}}, &fast); diags.HasError() {
		t.Fatal(diags)
	}
	state := tfsdk.State{Raw: raw, Schema: schemaResp.Schema}
	if diags := state.Get(ctx, &slow); diags.HasError() {
		t.Fatal(diags)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("decoded differently:\ncodec     %+v\nframework %+v", fast, slow)
	}

	// Outputs of every kind: a string, a list, unknown values.
	fast.Manifest = types.StringValue("apiVersion: apps/v1\nkind: Deployment\n")
	fast.WithManifests()
	fast.UID = types.StringUnknown()
	fast.ScheduledNodes = types.ListUnknown(types.StringType)
	want := tfsdk.State{Schema: schemaResp.Schema, Raw: tftypes.NewValue(objType, nil)}
	if diags := want.Set(ctx, &fast); diags.HasError() {
		t.Fatal(diags)
	}
	got := tfsdk.State{Schema: schemaResp.Schema, Raw: tftypes.NewValue(objType, nil)}
	v, encoded := gpuworkload.WorkloadCodec.Encode(ctx, got.Schema, &fast)
	if !encoded {
		t.Fatal("the codec fell back to the framework for a gpu_workload model")
	}
	if !v.Equal(want.Raw) {
		t.Fatalf("encoded differently:\ncodec     %s\nframework %s", v, want.Raw)
	}
}

// A model the codec does not fit (another struct) falls back to the
// framework, whose diagnostics come back.
func TestModelCodecFallsBack(t *testing.T) {
	ctx := context.Background()
	var schemaResp resource.SchemaResponse
	gpuworkload.NewResource().Schema(ctx, resource.SchemaRequest{}, &schemaResp)
	var c gpuworkload.ModelCodec
	var other struct {
		Name types.String `tfsdk:"name"`
	}
	called := false
	c.Get(ctx, tftypes.Value{}, schemaResp.Schema, &other, func() diag.Diagnostics { called = true; return nil })
	if !called {
		t.Fatal("a model with other fields than the schema did not fall back")
	}
}
