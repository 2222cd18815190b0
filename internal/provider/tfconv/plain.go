package tfconv

import (
	"fmt"
	"math/big"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// PlainFrom converts a Terraform value into plain Go values (maps, slices,
// strings, bools, json.Number-free float64/int64): what json.Marshal takes.
func PlainFrom(v attr.Value) (any, error) {
	if v == nil || v.IsNull() {
		return nil, nil
	}
	if v.IsUnknown() {
		return nil, fmt.Errorf("value is not known yet")
	}
	switch x := v.(type) {
	case basetypes.DynamicValue:
		return PlainFrom(x.UnderlyingValue())
	case basetypes.StringValue:
		return x.ValueString(), nil
	case basetypes.BoolValue:
		return x.ValueBool(), nil
	case basetypes.Int64Value:
		return x.ValueInt64(), nil
	case basetypes.NumberValue:
		return plainNumber(x.ValueBigFloat())
	case basetypes.ObjectValue:
		return plainAttrs(x.Attributes())
	case basetypes.MapValue:
		return plainAttrs(x.Elements())
	case interface{ Elements() []attr.Value }: // a list, set or tuple
		return plainElems(x.Elements())
	}
	return nil, fmt.Errorf("unsupported value of type %T", v)
}

// plainNumber keeps whole numbers integers, so "count = 2" decodes into an
// integer field and "count = 1.5" fails to.
func plainNumber(f *big.Float) (any, error) {
	if i, acc := f.Int64(); acc == big.Exact {
		return i, nil
	}
	v, _ := f.Float64()
	return v, nil
}

func plainAttrs(attrs map[string]attr.Value) (map[string]any, error) {
	out := make(map[string]any, len(attrs))
	for k, v := range attrs {
		p, err := PlainFrom(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		if p != nil {
			out[k] = p
		}
	}
	return out, nil
}

func plainElems(elems []attr.Value) ([]any, error) {
	out := make([]any, 0, len(elems))
	for i, v := range elems {
		p, err := PlainFrom(v)
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		out = append(out, p)
	}
	return out, nil
}
