package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Helpers that turn Go values into Terraform values, with zero values as
// null: what a configuration that leaves an attribute out produces.

// typed is a schema attribute or block: both know their value type.
type typed interface{ GetType() attr.Type }

// blockType adapts a block, whose type method has another name.
type blockType struct{ schema.Block }

func (b blockType) GetType() attr.Type { return b.Type() }

func nullableString(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

func nullableBool(b bool) types.Bool {
	if !b {
		return types.BoolNull()
	}
	return types.BoolValue(true)
}

func nullableInt32(n *int32) types.Int64 {
	if n == nil {
		return types.Int64Null()
	}
	return types.Int64Value(int64(*n))
}

func nullableInt64(n *int64) types.Int64 {
	if n == nil {
		return types.Int64Null()
	}
	return types.Int64Value(*n)
}

func nullableInt64Of(n int64) types.Int64 {
	if n == 0 {
		return types.Int64Null()
	}
	return types.Int64Value(n)
}

func nullableStrings(items []string) types.List {
	if items == nil {
		return types.ListNull(types.StringType)
	}
	return stringList(items)
}

func nullableInt32s(items []int32) types.List {
	if items == nil {
		return types.ListNull(types.Int64Type)
	}
	values := make([]attr.Value, len(items))
	for i, n := range items {
		values[i] = types.Int64Value(int64(n))
	}
	return types.ListValueMust(types.Int64Type, values)
}

func nullableMap(m map[string]string) types.Map {
	if m == nil {
		return types.MapNull(types.StringType)
	}
	values := make(map[string]attr.Value, len(m))
	for k, v := range m {
		values[k] = types.StringValue(v)
	}
	return types.MapValueMust(types.StringType, values)
}

// attrTypesOf returns the attribute types of a nested object attribute.
func attrTypesOf(a typed) map[string]attr.Type {
	if obj, ok := a.GetType().(types.ObjectType); ok {
		return obj.AttrTypes
	}
	return nil
}

// nestedAttrType returns the attribute types of the object attribute name
// nested in a.
func nestedAttrType(a typed, name string) map[string]attr.Type {
	if obj, ok := attrTypesOf(a)[name].(types.ObjectType); ok {
		return obj.AttrTypes
	}
	return nil
}

func objectFrom(ctx context.Context, a typed, value any, diags *diag.Diagnostics) types.Object {
	obj, d := types.ObjectValueFrom(ctx, attrTypesOf(a), value)
	diags.Append(d...)
	return obj
}

func nullableObject(ctx context.Context, a typed, present bool, build func() any, diags *diag.Diagnostics) types.Object {
	if !present {
		return types.ObjectNull(attrTypesOf(a))
	}
	return objectFrom(ctx, a, build(), diags)
}
