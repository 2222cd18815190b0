package tfconv

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// AttrValueFrom is t.ValueFromTerraform(ctx, v) for a value read with the
// schema's own type, as every request's is. The framework's object, list,
// set and map types first check that the value's type equals theirs by
// building their whole tftypes type, and again at every level below: for
// gpu_workload's node_pool and the other object attributes that was about
// a twentieth of the provider's CPU in a refresh plan (bench/README.md,
// issue #45). Here each level checks its own kind and attribute names and
// each primitive its type, as it is converted; a value of another shape
// is converted by the framework, whose error says what is wrong. The
// values made are the framework's (TestAttrValueFrom_sameAsFramework).
func AttrValueFrom(ctx context.Context, t attr.Type, v tftypes.Value) (attr.Value, error) {
	if v.Type() == nil {
		return t.ValueFromTerraform(ctx, v)
	}
	var value attr.Value
	var err error
	switch typ := t.(type) {
	case basetypes.ObjectType:
		value, err = keyedValueFrom(ctx, v, tftypes.Object{}, len(typ.AttrTypes), typ.AttrTypes, nil, collection[map[string]attr.Value]{
			unknown: basetypes.NewObjectUnknown(typ.AttrTypes), null: basetypes.NewObjectNull(typ.AttrTypes),
			build: func(attributes map[string]attr.Value) (attr.Value, error) {
				return withoutDiagnostics(basetypes.NewObjectValue(typ.AttrTypes, attributes))
			}})
	case basetypes.MapType:
		value, err = keyedValueFrom(ctx, v, tftypes.Map{}, -1, nil, typ.ElemType, collection[map[string]attr.Value]{
			unknown: basetypes.NewMapUnknown(typ.ElemType), null: basetypes.NewMapNull(typ.ElemType),
			build: func(elements map[string]attr.Value) (attr.Value, error) {
				return withoutDiagnostics(basetypes.NewMapValue(typ.ElemType, elements))
			}})
	case basetypes.ListType:
		value, err = elementsValueFrom(ctx, v, tftypes.List{}, typ.ElemType, collection[[]attr.Value]{
			unknown: basetypes.NewListUnknown(typ.ElemType), null: basetypes.NewListNull(typ.ElemType),
			build: func(elements []attr.Value) (attr.Value, error) {
				return withoutDiagnostics(basetypes.NewListValue(typ.ElemType, elements))
			}})
	case basetypes.SetType:
		value, err = elementsValueFrom(ctx, v, tftypes.Set{}, typ.ElemType, collection[[]attr.Value]{
			unknown: basetypes.NewSetUnknown(typ.ElemType), null: basetypes.NewSetNull(typ.ElemType),
			build: func(elements []attr.Value) (attr.Value, error) {
				return withoutDiagnostics(basetypes.NewSetValue(typ.ElemType, elements))
			}})
	default:
		return t.ValueFromTerraform(ctx, v)
	}
	if err != nil {
		return t.ValueFromTerraform(ctx, v) // which says what is wrong, as it always did
	}
	return value, nil
}

// errOtherShape: the value does not have the type's shape; the framework's
// conversion then says how (as it does for any error below).
var errOtherShape = errors.New("the value does not have the type's shape")

// collection is how an object, map, list or set type makes its values:
// unknown, null, or from its converted parts P.
type collection[P any] struct {
	unknown, null attr.Value
	build         func(P) (attr.Value, error)
}

// unknownOrNull is c's value for an unknown or null v (true), or
// errOtherShape when v is not of kind.
func unknownOrNull[P any](v tftypes.Value, kind tftypes.Type, c collection[P]) (attr.Value, bool, error) {
	switch {
	case !v.Type().Is(kind):
		return nil, true, errOtherShape
	case !v.IsKnown():
		return c.unknown, true, nil
	case v.IsNull():
		return c.null, true, nil
	}
	return nil, false, nil
}

// keyedValueFrom converts an object (attribute types by name, count
// attributes) or a map (one element type, any count: -1).
func keyedValueFrom(ctx context.Context, v tftypes.Value, kind tftypes.Type, count int, attrTypes map[string]attr.Type,
	element attr.Type, c collection[map[string]attr.Value]) (attr.Value, error) {
	if value, done, err := unknownOrNull(v, kind, c); done {
		return value, err
	}
	var values map[string]tftypes.Value
	if err := v.As(&values); err != nil || (count >= 0 && len(values) != count) {
		return nil, errOtherShape
	}
	converted := make(map[string]attr.Value, len(values))
	for key, value := range values {
		typ := element
		if attrTypes != nil {
			typ = attrTypes[key]
		}
		if typ == nil {
			return nil, errOtherShape
		}
		part, err := AttrValueFrom(ctx, typ, value)
		if err != nil {
			return nil, err
		}
		converted[key] = part
	}
	return c.build(converted)
}

// elementsValueFrom converts a list or set (kind) of element values.
func elementsValueFrom(ctx context.Context, v tftypes.Value, kind tftypes.Type, element attr.Type, c collection[[]attr.Value]) (attr.Value, error) {
	if value, done, err := unknownOrNull(v, kind, c); done {
		return value, err
	}
	var values []tftypes.Value
	if err := v.As(&values); err != nil {
		return nil, errOtherShape
	}
	elements := make([]attr.Value, len(values))
	for i, value := range values {
		converted, err := AttrValueFrom(ctx, element, value)
		if err != nil {
			return nil, err
		}
		elements[i] = converted
	}
	return c.build(elements)
}

// withoutDiagnostics is a constructor's value, or errOtherShape when it
// refused the elements (their types are not the collection's).
func withoutDiagnostics[V attr.Value](value V, diags interface{ HasError() bool }) (attr.Value, error) {
	if diags.HasError() {
		return nil, errOtherShape
	}
	return value, nil
}

// TerraformValueFrom is v.ToTerraformValue(ctx) for a value of the
// schema's type t. The framework's object, list, set and map values build
// their whole tftypes type for that, and again at every level below;
// here t, which the caller already holds, is passed down. Anything else
// (a custom type, a value of another shape) is converted by the framework.
// The values made are the framework's (TestTerraformValueFrom_sameAsFramework).
func TerraformValueFrom(ctx context.Context, v attr.Value, t tftypes.Type) (tftypes.Value, error) {
	if v == nil || t == nil {
		return tftypes.Value{}, errors.New("no value or no type")
	}
	if v.IsUnknown() {
		return v.ToTerraformValue(ctx) // which keeps what is known of it (refinements)
	}
	if v.IsNull() {
		switch v.(type) {
		case basetypes.ObjectValue, basetypes.ListValue, basetypes.SetValue, basetypes.MapValue:
			return tftypes.NewValue(t, nil), nil
		}
		return v.ToTerraformValue(ctx)
	}
	var converted tftypes.Value
	var err error
	switch value := v.(type) {
	case basetypes.ObjectValue:
		converted, err = objectTerraformValue(ctx, value, t)
	case basetypes.ListValue:
		list, _ := t.(tftypes.List)
		converted, err = elementsTerraformValue(ctx, value.Elements(), t, list.ElementType)
	case basetypes.SetValue:
		set, _ := t.(tftypes.Set)
		converted, err = elementsTerraformValue(ctx, value.Elements(), t, set.ElementType)
	case basetypes.MapValue:
		converted, err = mapTerraformValue(ctx, value, t)
	default:
		converted, err = v.ToTerraformValue(ctx)
		if err == nil && !converted.Type().UsableAs(t) {
			err = errOtherShape
		}
	}
	if err != nil {
		return v.ToTerraformValue(ctx)
	}
	return converted, nil
}

func objectTerraformValue(ctx context.Context, v basetypes.ObjectValue, t tftypes.Type) (tftypes.Value, error) {
	object, ok := t.(tftypes.Object)
	attributes := v.Attributes()
	if !ok || len(attributes) != len(object.AttributeTypes) {
		return tftypes.Value{}, errOtherShape
	}
	values := make(map[string]tftypes.Value, len(attributes))
	for name, a := range attributes {
		attrType, ok := object.AttributeTypes[name]
		if !ok {
			return tftypes.Value{}, errOtherShape
		}
		converted, err := TerraformValueFrom(ctx, a, attrType)
		if err != nil {
			return tftypes.Value{}, err
		}
		values[name] = converted
	}
	return tftypes.NewValue(t, values), nil
}

// elementsTerraformValue converts a list's or set's elements; element is
// nil when t is not the value's kind.
func elementsTerraformValue(ctx context.Context, elements []attr.Value, t, element tftypes.Type) (tftypes.Value, error) {
	if element == nil {
		return tftypes.Value{}, errOtherShape
	}
	values := make([]tftypes.Value, len(elements))
	for i, e := range elements {
		converted, err := TerraformValueFrom(ctx, e, element)
		if err != nil {
			return tftypes.Value{}, err
		}
		values[i] = converted
	}
	return tftypes.NewValue(t, values), nil
}

func mapTerraformValue(ctx context.Context, v basetypes.MapValue, t tftypes.Type) (tftypes.Value, error) {
	typ, ok := t.(tftypes.Map)
	if !ok {
		return tftypes.Value{}, errOtherShape
	}
	elements := v.Elements()
	values := make(map[string]tftypes.Value, len(elements))
	for key, e := range elements {
		converted, err := TerraformValueFrom(ctx, e, typ.ElementType)
		if err != nil {
			return tftypes.Value{}, err
		}
		values[key] = converted
	}
	return tftypes.NewValue(t, values), nil
}
