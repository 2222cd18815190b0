package tfconv

import (
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// JSONObjectType is the Terraform object type of a render struct, read from
// its JSON encoding: one attribute per JSON field, named as the field is
// encoded, of the type that field's values convert to (ObjectOf and Decode
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

// ObjectOfJSON is v (a render struct, not a pointer) as a value of
// JSONObjectType: a field its JSON encoding leaves out or empty is null, so
// that decoding the value gives v back (a nil *bool stays nil, never false).
func ObjectOfJSON(v any) (types.Object, error) {
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
	null := types.ObjectNull(attrTypes)
	for name := range fields {
		if _, ok := attrTypes[name]; !ok {
			return null, fmt.Errorf("field %q has no attribute", name)
		}
	}
	values := make(map[string]attr.Value, len(attrTypes))
	for name, t := range attrTypes {
		v, err := nullableValueFrom(t, fields[name])
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
