package tfconv

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func StringList(items []string) types.List {
	values := make([]attr.Value, len(items))
	for i, s := range items {
		values[i] = types.StringValue(s)
	}
	return types.ListValueMust(types.StringType, values)
}
