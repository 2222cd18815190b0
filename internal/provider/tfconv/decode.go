package tfconv

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Decode converts a block straight into render's struct T, with no model
// struct between them: the block's schema names the attributes and T's
// fields receive them, so a new attribute of a block is its schema entry
// and its render field. An attribute goes to the field of the same name
// compared without case and underscores ("gpus_per_node" is GPUsPerNode,
// "http_path" is HTTPPath), or to the field tagged `tf:"name"` where the
// names differ. Decode is nil while the block is null or unknown (unknown
// marks the conversion, as every Converter method does).
//
// An attribute T has no field for, or a field of a type the attribute
// cannot convert into, is a provider bug: an error diagnostic naming both,
// never a panic. The block tests of each resource find it.
func Decode[T any](c *Converter, v types.Object) *T {
	return DecodeAt[T](c, nil, v)
}

// DecodeAt is Decode of the block at path at (attribute names and list
// indices, as render's diagnostics name places), which hooks receive
// extended to each value they decode.
func DecodeAt[T any](c *Converter, at []any, v types.Object) *T {
	if v.IsUnknown() {
		c.Unknown = true
		return nil
	}
	if v.IsNull() {
		return nil
	}
	var out T
	if err := decodeValue(c, at, v, reflect.ValueOf(&out).Elem()); err != nil {
		c.Diags.AddError("Provider bug: block conversion", err.Error())
	}
	return &out
}

// DecodeHook decodes the value at path at into to, a Go value of the type
// it is registered for (Converter.Hooks), for what no field name can say:
// a pool ref that becomes its policy. It gets null and unknown values too.
type DecodeHook func(c *Converter, at []any, v attr.Value, to reflect.Value)

// HookFor is a DecodeHook of a typed function, keyed by the type it
// decodes into: Converter.Hooks = map[reflect.Type]DecodeHook{HookFor(f)}.
func HookFor[T any](decode func(at []any, v attr.Value) T) (reflect.Type, DecodeHook) {
	return reflect.TypeFor[T](), func(_ *Converter, at []any, v attr.Value, to reflect.Value) {
		out := decode(at, v)
		to.Set(reflect.ValueOf(&out).Elem()) // through a pointer: a nil T is a valid value too
	}
}

// DecodeInto converts v into *target: an object into a struct, a list or
// set into a slice, a map into a map, a primitive into its Go kind; a
// pointer target is allocated when v is set. Null leaves the target as it
// is; unknown leaves it too and marks the conversion unknown, element by
// element, so one unknown element of a list keeps the others' places.
func DecodeInto(c *Converter, v attr.Value, target any) {
	if err := decodeValue(c, nil, v, reflect.ValueOf(target).Elem()); err != nil {
		c.Diags.AddError("Provider bug: block conversion", err.Error())
	}
}

func decodeValue(c *Converter, at []any, v attr.Value, to reflect.Value) error {
	if hook, ok := c.Hooks[to.Type()]; ok {
		hook(c, at, v, to)
		return nil
	}
	if v == nil || v.IsNull() {
		return nil
	}
	if v.IsUnknown() {
		c.Unknown = true
		return nil
	}
	switch to.Kind() {
	case reflect.Pointer:
		elem := reflect.New(to.Type().Elem())
		if err := decodeValue(c, at, v, elem.Elem()); err != nil {
			return err
		}
		to.Set(elem)
		return nil
	case reflect.Struct:
		return decodeStruct(c, at, v, to)
	case reflect.Slice:
		return decodeSlice(c, at, v, to)
	case reflect.Map:
		return decodeMap(c, at, v, to)
	}
	return decodePrimitive(v, to)
}

// decodePrimitive sets a string, bool or integer from the Terraform value
// of that kind.
func decodePrimitive(v attr.Value, to reflect.Value) error {
	switch x := v.(type) {
	case interface{ ValueString() string }:
		if to.Kind() == reflect.String {
			to.SetString(x.ValueString())
			return nil
		}
	case interface{ ValueBool() bool }:
		if to.Kind() == reflect.Bool {
			to.SetBool(x.ValueBool())
			return nil
		}
	case interface{ ValueInt64() int64 }:
		if to.CanInt() {
			to.SetInt(x.ValueInt64())
			return nil
		}
	}
	return cannotConvert(v, to)
}

func decodeStruct(c *Converter, at []any, v attr.Value, to reflect.Value) error {
	obj, ok := v.(interface{ Attributes() map[string]attr.Value })
	if !ok {
		return cannotConvert(v, to)
	}
	return decodeFields(c, at, obj.Attributes(), to)
}

// decodeFields decodes each attribute into the field of struct to that
// takes it.
func decodeFields(c *Converter, at []any, attrs map[string]attr.Value, to reflect.Value) error {
	fields := fieldsByAttribute(to.Type())
	for name, value := range attrs {
		i, ok := fields[normalName(name)]
		if !ok {
			return fmt.Errorf("tfconv: %s has no field for the attribute %q (name it alike or tag it `tf:%q`)", to.Type(), name, name)
		}
		if err := decodeValue(c, extend(at, name), value, to.FieldByIndex(i)); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

func decodeSlice(c *Converter, at []any, v attr.Value, to reflect.Value) error {
	list, ok := v.(interface{ Elements() []attr.Value })
	if !ok {
		return cannotConvert(v, to)
	}
	elems := list.Elements()
	out := reflect.MakeSlice(to.Type(), len(elems), len(elems))
	for i, e := range elems {
		if err := decodeValue(c, extend(at, i), e, out.Index(i)); err != nil {
			return fmt.Errorf("[%d]: %w", i, err)
		}
	}
	to.Set(out)
	return nil
}

func decodeMap(c *Converter, at []any, v attr.Value, to reflect.Value) error {
	m, ok := v.(types.Map)
	if !ok || to.Type().Key().Kind() != reflect.String {
		return cannotConvert(v, to)
	}
	out := reflect.MakeMapWithSize(to.Type(), len(m.Elements()))
	for k, e := range m.Elements() {
		if e.IsNull() {
			continue // a null value is an absent key, as in the configuration's intent
		}
		elem := reflect.New(to.Type().Elem()).Elem()
		if err := decodeValue(c, extend(at, k), e, elem); err != nil {
			return fmt.Errorf("[%q]: %w", k, err)
		}
		out.SetMapIndex(reflect.ValueOf(k).Convert(to.Type().Key()), elem)
	}
	to.Set(out)
	return nil
}

// fieldIndexes caches fieldsByAttribute per struct type.
var fieldIndexes sync.Map

// fieldsByAttribute indexes a struct's fields by the attribute names they
// take: the tf tag where there is one, otherwise the field's own name. The
// fields of an embedded struct count as the struct's own, so two render
// structs can share their common fields through one embedded type.
func fieldsByAttribute(t reflect.Type) map[string][]int {
	if cached, ok := fieldIndexes.Load(t); ok {
		if index, ok := cached.(map[string][]int); ok {
			return index
		}
	}
	index := make(map[string][]int, t.NumField())
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous && f.Type.Kind() == reflect.Struct || throughPointer(t, f.Index) {
			continue
		}
		name := f.Name
		if tag, ok := f.Tag.Lookup("tf"); ok {
			if tag == "-" {
				continue
			}
			name = tag
		}
		index[normalName(name)] = f.Index
	}
	fieldIndexes.Store(t, index)
	return index
}

// throughPointer: the field at index is promoted from an embedded pointer,
// which may be nil; only embedded struct values are followed.
func throughPointer(t reflect.Type, index []int) bool {
	for _, i := range index[:len(index)-1] {
		f := t.Field(i)
		if f.Type.Kind() != reflect.Struct {
			return true
		}
		t = f.Type
	}
	return false
}

// normalName is how attribute and field names are compared: lower case,
// without underscores.
func normalName(name string) string {
	return strings.ToLower(strings.ReplaceAll(name, "_", ""))
}

func cannotConvert(v attr.Value, to reflect.Value) error {
	return fmt.Errorf("tfconv: cannot convert a %s into %s", v.Type(context.Background()), to.Type())
}

// extend is at with one more step, in a new slice: hooks may keep it.
func extend(at []any, step any) []any {
	return append(append(make([]any, 0, len(at)+1), at...), step)
}
