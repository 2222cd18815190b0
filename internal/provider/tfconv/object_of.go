package tfconv

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// ObjectFrom is render's struct v (a pointer) as the computed object attribute
// a. Each attribute takes the field of its name in v's JSON encoding, so
// render's struct, whose JSON names are the attribute names, is the one
// declaration of the block's shape: no struct with tfsdk tags mirrors it. A
// field the encoding leaves out or null is the attribute's known zero value
// ("", 0, false, an empty list or map, so length() works in configurations),
// except the attributes named in nullWhenEmpty, which stay null while empty.
// A nil v is a null object. A field without an attribute, or of another
// type, is a diagnostic: the schema and render disagree.
func ObjectFrom(a Typed, v any, diags *diag.Diagnostics, nullWhenEmpty ...string) types.Object {
	attrTypes := AttrTypesOf(a)
	if rv := reflect.ValueOf(v); !rv.IsValid() || rv.Kind() == reflect.Pointer && rv.IsNil() {
		return types.ObjectNull(attrTypes)
	}
	fields, err := jsonFields(v)
	if err == nil {
		var obj types.Object
		obj, err = objectFrom(attrTypes, fields, func(name string, t attr.Type, plain any) (attr.Value, error) {
			if (plain == nil || plain == "") && slices.Contains(nullWhenEmpty, name) {
				return nullOf(t)
			}
			return valueFrom(t, plain)
		})
		if err == nil {
			return obj
		}
	}
	diags.AddError("Cannot convert a rendered block", fmt.Sprintf("%T: %v: a provider bug, please report it", v, err))
	return types.ObjectNull(attrTypes)
}

// jsonFields is v's JSON encoding as generic values, numbers kept exact.
func jsonFields(v any) (map[string]any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var fields map[string]any
	return fields, dec.Decode(&fields)
}

// objectFrom converts each field with convert (the attribute's name, type
// and the field's generic JSON value); a field without an attribute is an
// error.
func objectFrom(attrTypes map[string]attr.Type, fields map[string]any,
	convert func(name string, t attr.Type, plain any) (attr.Value, error)) (types.Object, error) {
	null := types.ObjectNull(attrTypes)
	for name := range fields {
		if _, ok := attrTypes[name]; !ok {
			return null, fmt.Errorf("field %q has no attribute", name)
		}
	}
	values := make(map[string]attr.Value, len(attrTypes))
	for name, t := range attrTypes {
		v, err := convert(name, t, fields[name])
		if err != nil {
			return null, fmt.Errorf("%s: %w", name, err)
		}
		values[name] = v
	}
	obj, d := types.ObjectValue(attrTypes, values)
	if d.HasError() {
		return null, fmt.Errorf("%s", d.Errors()[0].Detail())
	}
	return obj, nil
}

// valueFrom converts one generic JSON value into a value of type t; nil is
// t's known zero value, except for objects, which have none and are null.
func valueFrom(t attr.Type, plain any) (attr.Value, error) {
	switch t := t.(type) {
	case basetypes.StringType:
		s, err := as[string](plain)
		return types.StringValue(s), err
	case basetypes.BoolType:
		b, err := as[bool](plain)
		return types.BoolValue(b), err
	case basetypes.Int64Type:
		n, err := as[json.Number](plain)
		if err != nil || n == "" {
			return types.Int64Value(0), err
		}
		i, err := n.Int64()
		return types.Int64Value(i), err
	case types.ListType:
		return listFrom(t, plain)
	case types.MapType:
		return mapFrom(t, plain)
	case types.ObjectType:
		if plain == nil {
			return types.ObjectNull(t.AttrTypes), nil
		}
		fields, err := as[map[string]any](plain)
		if err != nil {
			return nil, err
		}
		return objectFrom(t.AttrTypes, fields, func(_ string, t attr.Type, plain any) (attr.Value, error) { return valueFrom(t, plain) })
	}
	return nil, fmt.Errorf("unsupported attribute type %s", t)
}

func listFrom(t types.ListType, plain any) (attr.Value, error) {
	items, err := as[[]any](plain)
	elems := make([]attr.Value, len(items))
	if err == nil {
		err = elementsFrom(t.ElemType, slices.All(items), func(i int, v attr.Value) { elems[i] = v })
	}
	if err != nil {
		return nil, err
	}
	return checked(types.ListValue(t.ElemType, elems))
}

func mapFrom(t types.MapType, plain any) (attr.Value, error) {
	entries, err := as[map[string]any](plain)
	elems := make(map[string]attr.Value, len(entries))
	if err == nil {
		err = elementsFrom(t.ElemType, maps.All(entries), func(k string, v attr.Value) { elems[k] = v })
	}
	if err != nil {
		return nil, err
	}
	return checked(types.MapValue(t.ElemType, elems))
}

// elementsFrom converts a collection's elements to elemType, handing each
// to set.
func elementsFrom[K comparable](elemType attr.Type, all iter.Seq2[K, any], set func(K, attr.Value)) error {
	for k, item := range all {
		v, err := valueFrom(elemType, item)
		if err != nil {
			return fmt.Errorf("[%v]: %w", k, err)
		}
		set(k, v)
	}
	return nil
}

// checked is a built value, or its first error.
func checked[V attr.Value](v V, d diag.Diagnostics) (attr.Value, error) {
	if d.HasError() {
		return nil, fmt.Errorf("%s", d.Errors()[0].Detail())
	}
	return v, nil
}

// as is plain as a T; nil is T's zero value.
func as[T any](plain any) (T, error) {
	v, ok := plain.(T)
	if !ok && plain != nil {
		return v, fmt.Errorf("%T where the schema wants %T", plain, v)
	}
	return v, nil
}

// nullOf is t's null value.
func nullOf(t attr.Type) (attr.Value, error) {
	ctx := context.Background()
	return t.ValueFromTerraform(ctx, tftypes.NewValue(t.TerraformType(ctx), nil))
}

// JSONObjectType is the Terraform object type of a render struct, read from
// its JSON encoding: one attribute per JSON field, named as the field is
// encoded, of the type that field's values convert to (ObjectFrom and Decode
// are the two directions). A reference attribute whose value is render's
// struct, such as gpu_node_pool_policy's ref, is then declared once: by the
// struct. Kinds JSON has no Terraform type for (floats, interfaces) are a
// provider bug and panic at start-up, where every test sees it.
func JSONObjectType(t reflect.Type) types.ObjectType {
	jsonTypesMu.Lock()
	defer jsonTypesMu.Unlock()
	if cached, ok := jsonTypes[t]; ok {
		return cached
	}
	obj := types.ObjectType{AttrTypes: jsonAttrTypes(t)}
	jsonTypes[t] = obj
	return obj
}

var (
	jsonTypesMu sync.Mutex
	jsonTypes   = map[reflect.Type]types.ObjectType{}
)

func jsonAttrTypes(t reflect.Type) map[string]attr.Type {
	attrTypes := map[string]attr.Type{}
	addJSONFields(t, attrTypes)
	return attrTypes
}

// addJSONFields adds t's JSON fields, those of embedded structs included
// as encoding/json promotes them.
func addJSONFields(t reflect.Type, attrTypes map[string]attr.Type) {
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-" || !f.IsExported():
			continue
		case f.Anonymous && name == "":
			addJSONFields(f.Type, attrTypes)
			continue
		case name == "":
			panic(fmt.Sprintf("tfconv: %s.%s has no JSON name: a reference attribute's field needs one", t, f.Name))
		}
		attrTypes[name] = jsonValueType(f.Type)
	}
}

func jsonValueType(t reflect.Type) attr.Type {
	switch t.Kind() {
	case reflect.Pointer:
		return jsonValueType(t.Elem())
	case reflect.String:
		return types.StringType
	case reflect.Bool:
		return types.BoolType
	case reflect.Int, reflect.Int32, reflect.Int64:
		return types.Int64Type
	case reflect.Slice:
		return types.ListType{ElemType: jsonValueType(t.Elem())}
	case reflect.Map:
		return types.MapType{ElemType: jsonValueType(t.Elem())}
	case reflect.Struct:
		return types.ObjectType{AttrTypes: jsonAttrTypes(t)}
	}
	panic(fmt.Sprintf("tfconv: %s has no Terraform type", t))
}

// ObjectFromJSON is v (a render struct, not a pointer) as a value of
// JSONObjectType: a field its JSON encoding leaves out or empty is null, so
// that decoding the value gives v back (a nil *bool stays nil, never false).
func ObjectFromJSON(v any) (types.Object, error) {
	t := JSONObjectType(reflect.TypeOf(v))
	fields, err := jsonFields(v)
	if err != nil {
		return types.ObjectNull(t.AttrTypes), err
	}
	return objectFromAllNull(t.AttrTypes, fields)
}

// objectFromAllNull is objectFrom with every missing or empty field null,
// at every depth.
func objectFromAllNull(attrTypes map[string]attr.Type, fields map[string]any) (types.Object, error) {
	return objectFrom(attrTypes, fields, func(_ string, t attr.Type, plain any) (attr.Value, error) {
		return nullableValueFrom(t, plain)
	})
}

// nullableValueFrom is valueFrom with nil and "" null, and objects inside
// lists and maps converted the same way.
func nullableValueFrom(t attr.Type, plain any) (attr.Value, error) {
	if plain == nil || plain == "" {
		return nullOf(t)
	}
	switch t := t.(type) {
	case types.ObjectType:
		fields, err := as[map[string]any](plain)
		if err != nil {
			return nil, err
		}
		return objectFromAllNull(t.AttrTypes, fields)
	case types.ListType:
		items, err := as[[]any](plain)
		if err != nil {
			return nil, err
		}
		elems := make([]attr.Value, len(items))
		convert := valueFrom
		if _, objects := t.ElemType.(types.ObjectType); objects {
			convert = nullableValueFrom
		}
		for i, item := range items {
			if elems[i], err = convert(t.ElemType, item); err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
		}
		return checked(types.ListValue(t.ElemType, elems))
	case types.MapType:
		entries, err := as[map[string]any](plain)
		if err != nil {
			return nil, err
		}
		elems := make(map[string]attr.Value, len(entries))
		for k, item := range entries {
			if elems[k], err = valueFrom(t.ElemType, item); err != nil {
				return nil, fmt.Errorf("[%q]: %w", k, err)
			}
		}
		return checked(types.MapValue(t.ElemType, elems))
	}
	return valueFrom(t, plain)
}
