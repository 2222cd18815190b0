package resourcekit

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
)

// inner is embedded the way RenderedAttributes is.
type inner struct {
	Name   types.String `tfsdk:"name"`
	Hidden types.String `tfsdk:"-"`
}

type embeddingModel struct {
	Rest tfconv.Attributes
	outer
	Count types.Int64 `tfsdk:"count"`
}

// outer embeds inner in turn: the codec walks any depth.
type outer struct {
	inner
	Apply types.Bool `tfsdk:"apply"`
}

// codecState is a state of a schema with an attribute for each of
// embeddingModel's tagged fields and one for its rest.
func codecState(t *testing.T) tfsdk.State {
	t.Helper()
	s := schema.Schema{Attributes: map[string]schema.Attribute{
		"name":  schema.StringAttribute{Required: true},
		"apply": schema.BoolAttribute{Optional: true},
		"count": schema.Int64Attribute{Optional: true},
		"image": schema.StringAttribute{Optional: true},
	}}
	objType, ok := s.Type().TerraformType(context.Background()).(tftypes.Object)
	if !ok {
		t.Fatal("the schema is not an object")
	}
	raw := tftypes.NewValue(objType, map[string]tftypes.Value{
		"name":  tftypes.NewValue(tftypes.String, "a"),
		"apply": tftypes.NewValue(tftypes.Bool, true),
		"count": tftypes.NewValue(tftypes.Number, 2),
		"image": tftypes.NewValue(tftypes.String, "img"),
	})
	return tfsdk.State{Schema: s, Raw: raw}
}

// The fields of embedded structs are the model's own attributes, read and
// written like its tagged fields; the rest field still takes the others.
func TestModelCodec_embeddedStructs(t *testing.T) {
	ctx := context.Background()
	state := codecState(t)
	var diags diag.Diagnostics
	m, ok := Get[embeddingModel](ctx, state, &diags)
	if !ok {
		t.Fatal(diags)
	}
	if m.Name.ValueString() != "a" || !m.Apply.ValueBool() || m.Count.ValueInt64() != 2 {
		t.Errorf("decoded name %s, apply %s, count %s", m.Name, m.Apply, m.Count)
	}
	if got := m.Rest["image"]; len(m.Rest) != 1 || !got.Equal(types.StringValue("img")) {
		t.Errorf("the rest holds %v, want image only", m.Rest)
	}
	m.Name = types.StringValue("b")
	written := state
	if diags := SetState(ctx, &written, &m); diags.HasError() {
		t.Fatal(diags)
	}
	var name types.String
	written.GetAttribute(ctx, path.Root("name"), &name)
	if name.ValueString() != "b" {
		t.Errorf("encoded name %s, want b", name)
	}
}

// An embedded struct's tag the schema lacks is refused like a tag of the
// model's own.
func TestModelCodec_embeddedTagNotInSchema(t *testing.T) {
	type extra struct {
		Missing types.String `tfsdk:"missing"`
	}
	type model struct {
		embeddingModel
		extra
	}
	state := codecState(t)
	var diags diag.Diagnostics
	if _, ok := Get[model](context.Background(), state, &diags); ok {
		t.Fatal("a tag the schema lacks was accepted")
	}
	if detail := diags.Errors()[0].Detail(); !strings.Contains(detail, `"missing"`) {
		t.Errorf("the error does not name the tag: %s", detail)
	}
}
