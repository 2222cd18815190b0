package tfconv

import (
	"fmt"
	"math/big"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// PlainFrom converts a Terraform value into plain Go values (maps, slices,
// strings, bools, json.Number-free float64/int64): what json.Marshal takes.
// Null attributes and map entries are left out.
func PlainFrom(v attr.Value) (any, error) {
	return plainConverter{}.from(v)
}

// StateJSONFrom is PlainFrom as Terraform's JSON state writes a value:
// objects keep every attribute, null where unset. State upgrades write it.
func StateJSONFrom(v attr.Value) (any, error) {
	return plainConverter{keepNulls: true}.from(v)
}

// plainConverter is the one walk of a value both conversions share; they
// differ only in what becomes of a null attribute or map entry.
type plainConverter struct {
	keepNulls bool
}

func (c plainConverter) from(v attr.Value) (any, error) {
	if v == nil || v.IsNull() {
		return nil, nil
	}
	if v.IsUnknown() {
		return nil, fmt.Errorf("value is not known yet")
	}
	switch x := v.(type) {
	case basetypes.DynamicValue:
		return c.from(x.UnderlyingValue())
	case basetypes.StringValue:
		return x.ValueString(), nil
	case basetypes.BoolValue:
		return x.ValueBool(), nil
	case basetypes.Int64Value:
		return x.ValueInt64(), nil
	case basetypes.NumberValue:
		return plainNumber(x.ValueBigFloat())
	case basetypes.ObjectValue:
		return c.attrs(x.Attributes())
	case basetypes.MapValue:
		return c.attrs(x.Elements())
	case interface{ Elements() []attr.Value }: // a list, set or tuple
		return c.elems(x.Elements())
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

func (c plainConverter) attrs(attrs map[string]attr.Value) (map[string]any, error) {
	out := make(map[string]any, len(attrs))
	for k, v := range attrs {
		p, err := c.from(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		if p != nil || c.keepNulls {
			out[k] = p
		}
	}
	return out, nil
}

func (c plainConverter) elems(elems []attr.Value) ([]any, error) {
	out := make([]any, 0, len(elems))
	for i, v := range elems {
		p, err := c.from(v)
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		out = append(out, p)
	}
	return out, nil
}
