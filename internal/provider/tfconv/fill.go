package tfconv

import (
	"fmt"
	"reflect"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Fill copies a block's model (a struct of Terraform values) into render's
// struct of the same field names, each field converted by its render type:
// string, bool, int64 and int32 take the value, *bool, *int32 and *int64
// stay nil while null, []string, []int32 and map[string]string convert the
// collection. The model's field names are the one mapping: a model field
// without a render field of the same name and a convertible type is a
// programming error and panics, so a test of the block finds it. Render
// fields the model lacks are left as they are.
func Fill(c *Converter, model, target any) {
	from := reflect.ValueOf(model)
	to := reflect.ValueOf(target).Elem()
	for _, f := range fieldPlan(from.Type(), to.Type()) {
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

func fieldPlan(model, target reflect.Type) []fieldCopy {
	key := [2]reflect.Type{model, target}
	if cached, ok := fieldPlans.Load(key); ok {
		if plan, ok := cached.([]fieldCopy); ok {
			return plan
		}
	}
	plan := make([]fieldCopy, 0, model.NumField())
	for i := range model.NumField() {
		field := model.Field(i)
		dest, ok := target.FieldByName(field.Name)
		if !ok || len(dest.Index) != 1 {
			panic(fmt.Sprintf("tfconv.Fill: %s has no field %s", target, field.Name))
		}
		convert := converterFor(field.Type, dest.Type)
		if convert == nil {
			panic(fmt.Sprintf("tfconv.Fill: cannot convert %s.%s (%s) into %s", model, field.Name, field.Type, dest.Type))
		}
		plan = append(plan, fieldCopy{from: i, to: dest.Index[0], convert: convert})
	}
	fieldPlans.Store(key, plan)
	return plan
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

func converterFor(from, to reflect.Type) func(c *Converter, from, to reflect.Value) {
	return converters[[2]reflect.Type{from, to}]
}
