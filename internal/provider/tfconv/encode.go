package tfconv

import (
	"fmt"
	"reflect"
	"sync"

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
	obj, err := forImport.object(attrTypes, reflect.Indirect(rv))
	if err != nil {
		diags.AddError("Provider bug: block conversion", err.Error())
		return types.ObjectNull(attrTypes)
	}
	return obj
}

// EncodeOutput is the value of a computed attribute a (a data source's
// result) for the Go value v, by Encode's names but an output's rules: a
// zero is a value (0, false, ""), a nil slice or map is empty, only a nil
// pointer is null; and an attribute no field takes is the result of v's
// method of that name (Free for "free"), so a figure render derives needs
// no copy. Render's struct, embedded in a wrapper that adds or shadows a
// field, is the whole conversion: the schema is declared once.
func EncodeOutput[V attr.Value](a Typed, v any, diags *diag.Diagnostics) V {
	value := forOutput.encode(a.GetType(), v, diags)
	typed, ok := value.(V)
	if !ok && !diags.HasError() {
		diags.AddError("Provider bug: block conversion", fmt.Sprintf("tfconv: %T where %T was expected", value, typed))
	}
	return typed
}

// encoder holds the rules that differ between Encode and EncodeOutput.
type encoder struct {
	// output keeps zero values and empty collections and takes attributes
	// from methods too.
	output bool
}

var (
	forImport = encoder{}
	forOutput = encoder{output: true}
)

func (e encoder) encode(t attr.Type, v any, diags *diag.Diagnostics) attr.Value {
	value, err := e.value(t, reflect.ValueOf(v))
	if err != nil {
		diags.AddError("Provider bug: block conversion", err.Error())
		null, _ := nullOf(t)
		return null
	}
	return value
}

func (e encoder) object(attrTypes map[string]attr.Type, from reflect.Value) (types.Object, error) {
	if from.Kind() != reflect.Struct {
		return types.ObjectNull(attrTypes), fmt.Errorf("tfconv: cannot encode %s as an object", from.Type())
	}
	fields := fieldsByAttribute(from.Type())
	values := make(map[string]attr.Value, len(attrTypes))
	for name, t := range attrTypes {
		field, err := e.field(from, fields, name)
		if err != nil {
			return types.ObjectNull(attrTypes), err
		}
		value, err := e.value(t, field)
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

// field is the Go value of the attribute name: its field, or for an
// output a method of that name taking no argument and returning one value.
func (e encoder) field(from reflect.Value, fields map[string][]int, name string) (reflect.Value, error) {
	if i, ok := fields[normalName(name)]; ok {
		return from.FieldByIndex(i), nil
	}
	if e.output {
		if m, ok := methodsByAttribute(from.Type())[normalName(name)]; ok {
			return from.Method(m).Call(nil)[0], nil
		}
	}
	return reflect.Value{}, fmt.Errorf("tfconv: %s has no field for the attribute %q", from.Type(), name)
}

// value is the Terraform value of type t for a Go value: a nil pointer is
// null; for an import every zero value (a nil slice or map too) is null.
func (e encoder) value(t attr.Type, from reflect.Value) (attr.Value, error) {
	if from.Kind() == reflect.Pointer {
		if from.IsNil() {
			return nullOf(t)
		}
		return e.set(t, from.Elem())
	}
	if from.IsZero() && !e.output {
		return nullOf(t)
	}
	return e.set(t, from)
}

// set is the value of a set Go value: a pointer's target keeps a zero (an
// explicit 0 or false stays in the block).
func (e encoder) set(t attr.Type, from reflect.Value) (attr.Value, error) {
	switch tt := t.(type) {
	case types.ObjectType:
		return e.object(tt.AttrTypes, from)
	case types.ListType:
		return e.list(tt, from)
	case types.MapType:
		return e.mapOf(tt, from)
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

func (e encoder) list(t types.ListType, from reflect.Value) (attr.Value, error) {
	if from.Kind() != reflect.Slice {
		return nil, fmt.Errorf("tfconv: cannot encode %s as a %s", from.Type(), t)
	}
	elems := make([]attr.Value, from.Len())
	for i := range elems {
		elem, err := e.set(t.ElemType, from.Index(i))
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		elems[i] = elem
	}
	return checked(types.ListValue(t.ElemType, elems))
}

func (e encoder) mapOf(t types.MapType, from reflect.Value) (attr.Value, error) {
	if from.Kind() != reflect.Map || from.Type().Key().Kind() != reflect.String {
		return nil, fmt.Errorf("tfconv: cannot encode %s as a %s", from.Type(), t)
	}
	elems := make(map[string]attr.Value, from.Len())
	for it := from.MapRange(); it.Next(); {
		elem, err := e.set(t.ElemType, it.Value())
		if err != nil {
			return nil, fmt.Errorf("[%q]: %w", it.Key().String(), err)
		}
		elems[it.Key().String()] = elem
	}
	return checked(types.MapValue(t.ElemType, elems))
}

// methodIndexes caches methodsByAttribute per type.
var methodIndexes sync.Map

// methodsByAttribute indexes a type's exported methods that take no
// argument and return one value, by their names as attributes would spell
// them.
func methodsByAttribute(t reflect.Type) map[string]int {
	if cached, ok := methodIndexes.Load(t); ok {
		if index, ok := cached.(map[string]int); ok {
			return index
		}
	}
	index := map[string]int{}
	for i := range t.NumMethod() {
		m := t.Method(i)
		if m.Type.NumIn() == 1 && m.Type.NumOut() == 1 {
			index[normalName(m.Name)] = i
		}
	}
	methodIndexes.Store(t, index)
	return index
}
