package tfconv

import (
	"context"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// AttrValueFrom makes the framework's value for every kind of attribute
// type, nulls and unknowns at every level included, and gives a value of
// another shape to the framework, whose error it returns.
func TestAttrValueFrom_sameAsFramework(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(45, 3))
	for _, typ := range testAttrTypes() {
		tfType := typ.TerraformType(ctx)
		for i := range 500 {
			v := randomTFValue(r, tfType)
			want, wantErr := typ.ValueFromTerraform(ctx, v)
			got, err := AttrValueFrom(ctx, typ, v)
			if (err != nil) != (wantErr != nil) || (err == nil && !got.Equal(want)) {
				t.Fatalf("%s value %d:\n got %v (%v)\nwant %v (%v)", typ, i, got, err, want, wantErr)
			}
		}
	}
	for name, v := range map[string]tftypes.Value{
		"a string for an object": tftypes.NewValue(tftypes.String, "x"),
		"an attribute missing": tftypes.NewValue(tftypes.Object{AttributeTypes: map[string]tftypes.Type{"key": tftypes.String}},
			map[string]tftypes.Value{"key": tftypes.NewValue(tftypes.String, "k")}),
		"a number for a string": tftypes.NewValue(tftypes.Object{AttributeTypes: map[string]tftypes.Type{
			"key": tftypes.Number, "value": tftypes.String, "effect": tftypes.String}}, map[string]tftypes.Value{
			"key": tftypes.NewValue(tftypes.Number, big.NewFloat(1)), "value": tftypes.NewValue(tftypes.String, nil),
			"effect": tftypes.NewValue(tftypes.String, nil)}),
	} {
		_, wantErr := testTaintType.ValueFromTerraform(ctx, v)
		_, err := AttrValueFrom(ctx, testTaintType, v)
		if wantErr == nil || err == nil || err.Error() != wantErr.Error() {
			t.Errorf("%s: error %v, want the framework's %v", name, err, wantErr)
		}
	}
}

var testTaintType = types.ObjectType{AttrTypes: map[string]attr.Type{"key": types.StringType, "value": types.StringType, "effect": types.StringType}}

// testAttrTypes have every kind of attribute type in every other.
func testAttrTypes() []attr.Type {
	pool := types.ObjectType{AttrTypes: map[string]attr.Type{
		"name": types.StringType, "gpus_per_node": types.Int64Type, "spot": types.BoolType, "ratio": types.Float64Type,
		"size": types.NumberType, "labels": types.MapType{ElemType: types.StringType},
		"taints":   types.ListType{ElemType: testTaintType},
		"zones":    types.SetType{ElemType: types.StringType},
		"topology": types.ObjectType{AttrTypes: map[string]attr.Type{"levels": types.ListType{ElemType: types.StringType}, "nodes": types.MapType{ElemType: types.Int64Type}}},
		"queue":    types.DynamicType,
		"timeouts": timeouts.Type{ObjectType: types.ObjectType{AttrTypes: map[string]attr.Type{"create": types.StringType}}},
	}}
	return []attr.Type{pool, types.ListType{ElemType: pool}, types.SetType{ElemType: testTaintType}, types.MapType{ElemType: pool}}
}

// randomTFValue is a value of type t, null or unknown one time in eight
// at every level; a dynamic part holds a string or a list of strings.
func randomTFValue(r *rand.Rand, t tftypes.Type) tftypes.Value {
	switch r.IntN(8) {
	case 0:
		return tftypes.NewValue(t, nil)
	case 1:
		return tftypes.NewValue(t, tftypes.UnknownValue)
	}
	switch typ := t.(type) {
	case tftypes.List:
		return tftypes.NewValue(t, randomTFElements(r, typ.ElementType))
	case tftypes.Set:
		return tftypes.NewValue(t, randomTFElements(r, typ.ElementType))
	case tftypes.Map:
		values := map[string]tftypes.Value{}
		for i := range r.IntN(3) {
			values[string(rune('a'+i))] = randomTFValue(r, typ.ElementType)
		}
		return tftypes.NewValue(t, values)
	case tftypes.Object:
		values := map[string]tftypes.Value{}
		for name, a := range typ.AttributeTypes {
			values[name] = randomTFValue(r, a)
		}
		return tftypes.NewValue(t, values)
	}
	switch {
	case t.Is(tftypes.DynamicPseudoType):
		if r.IntN(2) == 0 {
			return tftypes.NewValue(tftypes.String, "team-a")
		}
		return randomTFValue(r, tftypes.List{ElementType: tftypes.String})
	case t.Is(tftypes.String):
		return tftypes.NewValue(t, []string{"", "gpu", "nvidia.com/gpu"}[r.IntN(3)])
	case t.Is(tftypes.Bool):
		return tftypes.NewValue(t, r.IntN(2) == 0)
	}
	return tftypes.NewValue(t, big.NewFloat(float64(r.IntN(100))))
}

// randomTFElements are up to three distinct elements (a set's must be).
func randomTFElements(r *rand.Rand, element tftypes.Type) []tftypes.Value {
	var values []tftypes.Value
	for range r.IntN(4) {
		v := randomTFValue(r, element)
		duplicate := false
		for _, e := range values {
			duplicate = duplicate || e.Equal(v)
		}
		if !duplicate {
			values = append(values, v)
		}
	}
	return values
}

// TerraformValueFrom gives the framework's tftypes value for every kind
// of attribute value, nulls and unknowns at every level included.
func TestTerraformValueFrom_sameAsFramework(t *testing.T) {
	ctx := context.Background()
	for _, typ := range testAttrTypes() {
		tfType := typ.TerraformType(ctx)
		r := rand.New(rand.NewPCG(45, 4))
		for i := range 500 {
			v, err := typ.ValueFromTerraform(ctx, randomTFValue(r, tfType))
			if err != nil {
				t.Fatal(err)
			}
			want, wantErr := v.ToTerraformValue(ctx)
			got, err := TerraformValueFrom(ctx, v, tfType)
			if err != nil || wantErr != nil || !got.Equal(want) || !got.Type().Equal(want.Type()) {
				t.Fatalf("%s value %d:\n got %v (%v)\nwant %v (%v)", typ, i, got, err, want, wantErr)
			}
		}
	}
}
