package tfconv

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Helpers that turn Go values into Terraform values, with zero values as
// null: what a configuration that leaves an attribute out produces.

// Typed is a schema attribute or block: both know their value type.
type Typed interface{ GetType() attr.Type }

// BlockType adapts a block, whose type method has another name.
type BlockType struct{ schema.Block }

func (b BlockType) GetType() attr.Type { return b.Type() }

func NullableString(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

func NullableBool(b bool) types.Bool {
	if !b {
		return types.BoolNull()
	}
	return types.BoolValue(true)
}

func NullableInt64Of(n int64) types.Int64 {
	if n == 0 {
		return types.Int64Null()
	}
	return types.Int64Value(n)
}

func NullableMap(m map[string]string) types.Map {
	if m == nil {
		return types.MapNull(types.StringType)
	}
	values := make(map[string]attr.Value, len(m))
	for k, v := range m {
		values[k] = types.StringValue(v)
	}
	return types.MapValueMust(types.StringType, values)
}

// AttrTypesOf returns the attribute types of a nested object attribute.
func AttrTypesOf(a Typed) map[string]attr.Type {
	if obj, ok := a.GetType().(types.ObjectType); ok {
		return obj.AttrTypes
	}
	return nil
}

func StringList(items []string) types.List {
	values := make([]attr.Value, len(items))
	for i, s := range items {
		values[i] = types.StringValue(s)
	}
	return types.ListValueMust(types.StringType, values)
}

// AttributeSet reports whether block v is set and its attribute name is not
// null (known or not): what a check of one attribute needs, without
// decoding the block.
func AttributeSet(v types.Object, name string) bool {
	a, ok := v.Attributes()[name]
	return !v.IsNull() && !v.IsUnknown() && ok && !a.IsNull()
}
