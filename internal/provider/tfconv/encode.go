package tfconv

import (
	"fmt"
	"reflect"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Encode is Decode's inverse, for import: block a's value from render's
// struct v (a pointer; nil is a null block), each attribute from the field
// Decode would fill. A zero value is null, as in a configuration that
// leaves the attribute out, so an imported block plans no change against
// the configuration that wrote it. A mismatch is a provider bug, an error
// in diags and a null block.
func Encode(a Typed, v any, diags *diag.Diagnostics) types.Object {
	attrTypes := AttrTypesOf(a)
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer && rv.IsNil() {
		return types.ObjectNull(attrTypes)
	}
	obj, err := encodeObject(attrTypes, reflect.Indirect(rv))
	if err != nil {
		diags.AddError("Provider bug: block conversion", err.Error())
		return types.ObjectNull(attrTypes)
	}
	return obj
}

// EncodeValue is the Terraform value of type t for the Go value v, by
// Encode's rules: for an attribute that is not a block, such as a list or
// map of objects.
func EncodeValue(t attr.Type, v any, diags *diag.Diagnostics) attr.Value {
	value, err := encodeValue(t, reflect.ValueOf(v))
	if err != nil {
		diags.AddError("Provider bug: block conversion", err.Error())
		null, _ := nullOf(t)
		return null
	}
	return value
}

func encodeObject(attrTypes map[string]attr.Type, from reflect.Value) (types.Object, error) {
	if from.Kind() != reflect.Struct {
		return types.ObjectNull(attrTypes), fmt.Errorf("tfconv: cannot encode %s as an object", from.Type())
	}
	fields := fieldsByAttribute(from.Type())
	values := make(map[string]attr.Value, len(attrTypes))
	for name, t := range attrTypes {
		i, ok := fields[normalName(name)]
		if !ok {
			return types.ObjectNull(attrTypes), fmt.Errorf("tfconv: %s has no field for the attribute %q", from.Type(), name)
		}
		value, err := encodeValue(t, from.FieldByIndex(i))
		if err != nil {
			return types.ObjectNull(attrTypes), fmt.Errorf("%s: %w", name, err)
		}
		values[name] = value
	}
	obj, d := types.ObjectValue(attrTypes, values)
	if d.HasError() {
		return obj, fmt.Errorf("tfconv: %s: %v", from.Type(), d)
	}
	return obj, nil
}

// encodeValue is the Terraform value of type t for a Go value; zero values
// (and nil pointers, slices and maps) are null.
func encodeValue(t attr.Type, from reflect.Value) (attr.Value, error) {
	if from.Kind() == reflect.Pointer {
		if from.IsNil() {
			return nullOf(t)
		}
		return encodeSet(t, from.Elem())
	}
	if from.IsZero() {
		return nullOf(t)
	}
	return encodeSet(t, from)
}

// encodeSet is the value of a set Go value: a pointer's target keeps a
// zero (an explicit 0 or false stays in the block).
func encodeSet(t attr.Type, from reflect.Value) (attr.Value, error) {
	switch tt := t.(type) {
	case types.ObjectType:
		return encodeObject(tt.AttrTypes, from)
	case types.ListType:
		return encodeList(tt, from)
	case types.MapType:
		return encodeMap(tt, from)
	}
	switch {
	case t.Equal(types.StringType) && from.Kind() == reflect.String:
		return types.StringValue(from.String()), nil
	case t.Equal(types.BoolType) && from.Kind() == reflect.Bool:
		return types.BoolValue(from.Bool()), nil
	case t.Equal(types.Int64Type) && from.CanInt():
		return types.Int64Value(from.Int()), nil
	}
	return nil, fmt.Errorf("tfconv: cannot encode %s as a %s", from.Type(), t)
}

func encodeList(t types.ListType, from reflect.Value) (attr.Value, error) {
	if from.Kind() != reflect.Slice {
		return nil, fmt.Errorf("tfconv: cannot encode %s as a %s", from.Type(), t)
	}
	elems := make([]attr.Value, from.Len())
	for i := range elems {
		e, err := encodeSet(t.ElemType, from.Index(i))
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		elems[i] = e
	}
	return checked(types.ListValue(t.ElemType, elems))
}

func encodeMap(t types.MapType, from reflect.Value) (attr.Value, error) {
	if from.Kind() != reflect.Map || from.Type().Key().Kind() != reflect.String {
		return nil, fmt.Errorf("tfconv: cannot encode %s as a %s", from.Type(), t)
	}
	elems := make(map[string]attr.Value, from.Len())
	for it := from.MapRange(); it.Next(); {
		e, err := encodeSet(t.ElemType, it.Value())
		if err != nil {
			return nil, fmt.Errorf("[%q]: %w", it.Key().String(), err)
		}
		elems[it.Key().String()] = e
	}
	return checked(types.MapValue(t.ElemType, elems))
}
