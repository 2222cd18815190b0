package protocol

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// upgradeFixture has an attribute or block of every kind a state holds.
func upgradeFixture(t *testing.T) *directSchema {
	t.Helper()
	s := schema.Schema{
		Attributes: map[string]schema.Attribute{
			"name":   schema.StringAttribute{Optional: true},
			"count":  schema.Int64Attribute{Optional: true},
			"ratio":  schema.NumberAttribute{Optional: true},
			"big":    schema.NumberAttribute{Optional: true},
			"on":     schema.BoolAttribute{Optional: true},
			"tags":   schema.ListAttribute{Optional: true, ElementType: types.StringType},
			"zones":  schema.SetAttribute{Optional: true, ElementType: types.StringType},
			"labels": schema.MapAttribute{Optional: true, ElementType: types.StringType},
			"pair":   schema.ObjectAttribute{Optional: true, AttributeTypes: map[string]attr.Type{"a": types.StringType, "n": types.Int64Type}},
			"queue":  schema.DynamicAttribute{Optional: true},
			"taints": schema.ListNestedAttribute{Optional: true, NestedObject: schema.NestedAttributeObject{
				Attributes: map[string]schema.Attribute{"key": schema.StringAttribute{Optional: true}},
			}},
		},
		Blocks: map[string]schema.Block{
			"rule": schema.ListNestedBlock{NestedObject: schema.NestedBlockObject{
				Attributes: map[string]schema.Attribute{"key": schema.StringAttribute{Optional: true}},
				Blocks: map[string]schema.Block{
					"match": schema.SetNestedBlock{NestedObject: schema.NestedBlockObject{
						Attributes: map[string]schema.Attribute{"value": schema.StringAttribute{Optional: true}},
					}},
					"limits": schema.SingleNestedBlock{Attributes: map[string]schema.Attribute{"max": schema.Int64Attribute{Optional: true}}},
				},
			}},
			"gpu": schema.SingleNestedBlock{
				Attributes: map[string]schema.Attribute{"count": schema.Int64Attribute{Optional: true}},
				Blocks: map[string]schema.Block{
					"claim": schema.ListNestedBlock{NestedObject: schema.NestedBlockObject{
						Attributes: map[string]schema.Attribute{"name": schema.StringAttribute{Optional: true}},
					}},
				},
			},
		},
	}
	d, err := newDirectSchema(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// The one-pass upgrade gives the value tftypes' reading of the JSON and
// the framework's empty list and set blocks give, for every kind of
// value; what it does not accept, tftypes' path decides.
func TestStateJSONToMsgPack_sameAsTFTypes(t *testing.T) {
	d := upgradeFixture(t)
	for name, state := range map[string]string{
		"every attribute set": `{"name":"a","count":3,"ratio":0.25,"big":123456789012345678901234567890,"on":true,
			"tags":["x","y"],"zones":["b","a"],"labels":{"team":"ml","tier":"gpu"},"pair":{"a":"p","n":-2},
			"queue":{"type":["object",{"name":"string","flavors":["list","string"]}],"value":{"name":"q","flavors":["f1"]}},
			"taints":[{"key":"k"}],
			"rule":[{"key":"r","match":[{"value":"v"}],"limits":{"max":4}},{"key":"e","match":[],"limits":null}],
			"gpu":{"count":1,"claim":[{"name":"c"}]}}`,
		"nulls, missing and empty": `{"name":null,"tags":[],"labels":{},"queue":null,"rule":null,"gpu":{"count":null,"claim":null}}`,
		"blocks missing":           `{"name":"a"}`,
		"null single block":        `{"gpu":null,"rule":[{"key":"r","match":null}]}`,
		"attributes the schema lacks, at every level": `{"name":"a","removed":{"deep":[1]},"pair":{"a":"p","n":1,"old":true},
			"rule":[{"key":"r","gone":"x"}]}`,
		"strings and bools as tftypes converts them": `{"name":12,"on":"1","count":"7","ratio":"1.5"}`,
		"numbers":                   `{"count":-9007199254740993,"ratio":1e-7,"big":1e400}`,
		"a dynamic string":          `{"queue":{"type":"string","value":"team-a"}}`,
		"a dynamic with null value": `{"queue":{"type":"string","value":null}}`,
		"null state":                `null`,
	} {
		t.Run(name, func(t *testing.T) {
			want := viaTFTypes(t, d, state)
			got, err := d.stateJSONToMsgPack([]byte(state))
			if err != nil {
				t.Fatalf("one-pass upgrade refused a state tftypes reads: %v", err)
			}
			gotValue, err := tftypes.ValueFromMsgPack(got, d.tfType) //nolint:staticcheck // the test reads what Terraform will
			if err != nil {
				t.Fatalf("reading the one-pass msgpack: %v", err)
			}
			if diff, _ := want.Diff(gotValue); len(diff) > 0 || !want.Equal(gotValue) {
				t.Errorf("one-pass upgrade differs from tftypes' at %v:\n got %v\nwant %v", diff, gotValue, want)
			}
		})
	}
}

// What tftypes refuses, the one-pass upgrade refuses too, so the caller
// takes tftypes' path and its error.
func TestStateJSONToMsgPack_refusesWhatTFTypesRefuses(t *testing.T) {
	d := upgradeFixture(t)
	for name, state := range map[string]string{
		"a bool in capitals":        `{"on":"True"}`,
		"a list as a string":        `{"tags":"x"}`,
		"an object as a list":       `{"pair":["p"]}`,
		"a dynamic without a type":  `{"queue":{"value":"x"}}`,
		"a dynamic with extra keys": `{"queue":{"type":"string","value":"x","other":1}}`,
		"a number that is not":      `{"count":"many"}`,
		"not JSON":                  `{"name":`,
	} {
		if _, err := tftypes.ValueFromJSONWithOpts([]byte(state), d.tfType, tftypes.ValueFromJSONOpts{IgnoreUndefinedAttributes: true}); err == nil { //nolint:staticcheck // the reference
			t.Fatalf("%s: tftypes reads %s; the case tests nothing", name, state)
		}
		if _, err := d.stateJSONToMsgPack([]byte(state)); err == nil {
			t.Errorf("%s: the one-pass upgrade accepted %s, which tftypes refuses", name, state)
		}
	}
}

// viaTFTypes is the upgrade as it was: tftypes reads the JSON, the
// framework's empty blocks are put back, and the value goes through
// msgpack as Terraform receives it.
func viaTFTypes(t *testing.T, d *directSchema, state string) tftypes.Value {
	t.Helper()
	v, err := tftypes.ValueFromJSONWithOpts([]byte(state), d.tfType, tftypes.ValueFromJSONOpts{IgnoreUndefinedAttributes: true}) //nolint:staticcheck // the reference
	if err != nil {
		t.Fatalf("tftypes cannot read %s: %v", state, err)
	}
	dv, err := tfprotov6.NewDynamicValue(d.tfType, d.reifyNullCollectionBlocks(v))
	if err != nil {
		t.Fatal(err)
	}
	out, err := dv.Unmarshal(d.tfType)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
