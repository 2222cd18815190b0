package tfconv

import (
	"context"
	"fmt"
	"reflect"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Fill copies a block's model (a struct of Terraform values) into render's
// struct of the same field names, each field converted by its render type:
// string, bool, int64 and int32 take the value, *bool, *int32 and *int64
// stay nil while null, []string, []int32 and map[string]string convert the
// collection. The model's field names are the one mapping: a model field
// without a render field of the same name and a convertible type is a
// provider bug, reported as an error diagnostic (never a panic: the plan
// fails with the reason, and a test of the block finds it). Render fields
// the model lacks are left as they are.
func Fill(c *Converter, model, target any) {
	from := reflect.ValueOf(model)
	to := reflect.ValueOf(target).Elem()
	plan, err := fieldPlan(from.Type(), to.Type(), from.Type(), converters)
	if err != nil {
		c.Diags.AddError("Provider bug: block conversion", err.Error())
		return
	}
	for _, f := range plan {
		f.convert(c, from.Field(f.from), to.Field(f.to))
	}
}

// FillObject decodes a nested block into its model M and fills a new T from
// it; nil when the block is null or unknown (unknown marks the conversion).
func FillObject[M, T any](c *Converter, v types.Object) *T {
	var m M
	if !c.Object(v, &m) {
		return nil
	}
	var out T
	Fill(c, m, &out)
	return &out
}

type fieldCopy struct {
	from, to int
	convert  func(c *Converter, from, to reflect.Value)
}

// fieldPlans caches fieldPlan per (model, target) pair: the plan is found by
// reflection once, not on every plan of every resource.
var fieldPlans sync.Map

// fieldPlan pairs each field of model with the field of target's render
// struct of the same name; from is the struct the copy reads (model or
// render), and conversions converts by (read type, written type).
func fieldPlan(model, target, from reflect.Type, conversions map[[2]reflect.Type]func(c *Converter, from, to reflect.Value)) ([]fieldCopy, error) {
	key := [3]reflect.Type{model, target, from}
	if cached, ok := fieldPlans.Load(key); ok {
		if plan, ok := cached.([]fieldCopy); ok {
			return plan, nil
		}
	}
	plan := make([]fieldCopy, 0, model.NumField())
	for i := range model.NumField() {
		field := model.Field(i)
		dest, ok := target.FieldByName(field.Name)
		if !ok || len(dest.Index) != 1 {
			return nil, fmt.Errorf("tfconv: %s has no field %s", target, field.Name)
		}
		copyField := fieldCopy{from: i, to: dest.Index[0]}
		pair := [2]reflect.Type{field.Type, dest.Type}
		if from != model {
			copyField.from, copyField.to, pair = dest.Index[0], i, [2]reflect.Type{dest.Type, field.Type}
		}
		if copyField.convert = conversions[pair]; copyField.convert == nil {
			return nil, fmt.Errorf("tfconv: cannot convert %s.%s between %s and %s", model, field.Name, field.Type, dest.Type)
		}
		plan = append(plan, copyField)
	}
	fieldPlans.Store(key, plan)
	return plan, nil
}

// converters are Fill's conversions by (Terraform type, render type).
var converters = indexConversions(
	conversion((*Converter).Str),
	conversion((*Converter).Boolean),
	conversion((*Converter).OptBool),
	conversion((*Converter).Int64),
	conversion(func(c *Converter, v types.Int64) int32 { return int32(c.Int64(v)) }),
	conversion((*Converter).OptInt32),
	conversion((*Converter).OptInt64),
	conversion((*Converter).Strings),
	conversion((*Converter).Int32s),
	conversion((*Converter).StringMap),
)

type fieldConversion struct {
	types   [2]reflect.Type
	convert func(c *Converter, from, to reflect.Value)
}

// conversion lifts a Converter method onto reflected fields.
func conversion[From, To any](convert func(*Converter, From) To) fieldConversion {
	return fieldConversion{
		types: [2]reflect.Type{reflect.TypeFor[From](), reflect.TypeFor[To]()},
		convert: func(c *Converter, from, to reflect.Value) {
			v, _ := reflect.TypeAssert[From](from) // the plan matched the type
			to.Set(reflect.ValueOf(convert(c, v)))
		},
	}
}

func indexConversions(all ...fieldConversion) map[[2]reflect.Type]func(c *Converter, from, to reflect.Value) {
	out := make(map[[2]reflect.Type]func(c *Converter, from, to reflect.Value), len(all))
	for _, f := range all {
		out[f.types] = f.convert
	}
	return out
}

// ModelOf is Fill's inverse, for import: the model of render's struct v
// (a pointer), each field from v's field of the same name, a zero value
// null as in a configuration that leaves the attribute out. A model field
// render lacks is a provider bug, an error in diags.
func ModelOf[M any](v any, diags *diag.Diagnostics) M {
	var m M
	from := reflect.ValueOf(v).Elem()
	to := reflect.ValueOf(&m).Elem()
	plan, err := fieldPlan(to.Type(), from.Type(), from.Type(), nullables)
	if err != nil {
		diags.AddError("Provider bug: block conversion", err.Error())
		return m
	}
	for _, f := range plan {
		f.convert(nil, from.Field(f.from), to.Field(f.to))
	}
	return m
}

// BlockOf is the block a of render's struct v (a pointer, nil for no
// block), through its model M: ModelOf for import.
func BlockOf[M any](ctx context.Context, a Typed, v any, diags *diag.Diagnostics) types.Object {
	if rv := reflect.ValueOf(v); rv.IsNil() {
		return types.ObjectNull(AttrTypesOf(a))
	}
	m := ModelOf[M](v, diags)
	if diags.HasError() {
		return types.ObjectNull(AttrTypesOf(a))
	}
	return ObjectFrom(ctx, a, m, diags)
}

// nullables are ModelOf's conversions by (render type, Terraform type).
var nullables = indexConversions(
	nullable(NullableString),
	nullable(NullableBool),
	nullable(func(b *bool) types.Bool { return types.BoolPointerValue(b) }),
	nullable(NullableInt64Of),
	nullable(func(n int32) types.Int64 { return NullableInt64Of(int64(n)) }),
	nullable(NullableInt32),
	nullable(NullableInt64),
	nullable(NullableStrings),
	nullable(NullableInt32s),
	nullable(NullableMap),
)

// nullable lifts a Nullable function onto reflected fields.
func nullable[From, To any](convert func(From) To) fieldConversion {
	return conversion(func(_ *Converter, v From) To { return convert(v) })
}
