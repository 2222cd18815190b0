package resourcekit

import (
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
)

// The attributes of a data source's result: every one computed and
// described, and converted from render's values by tfconv.EncodeOutput.

// ComputedString is a computed string of a data source's result.
func ComputedString(description string) schema.StringAttribute {
	return schema.StringAttribute{Computed: true, MarkdownDescription: description}
}

// ComputedInt64 is a computed number of a data source's result.
func ComputedInt64(description string) schema.Int64Attribute {
	return schema.Int64Attribute{Computed: true, MarkdownDescription: description}
}

// ComputedStrings is a computed list of strings of a data source's result.
func ComputedStrings(description string) schema.ListAttribute {
	return schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: description}
}

// ComputedObjects is a computed list of objects of a data source's result,
// each with attributes.
func ComputedObjects(description string, attributes map[string]schema.Attribute) schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		Computed:            true,
		MarkdownDescription: description,
		NestedObject:        schema.NestedAttributeObject{Attributes: attributes},
	}
}

// DataCloudAttribute is a data source's `cloud`: one of clouds.Names, listed in
// the description between before and after, validated as a resource's
// (CloudAttribute).
func DataCloudAttribute(before, after string) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: before + tfconv.MarkdownList(clouds.Names()) + after,
		Optional:            true,
		Validators:          cloudValidators(clouds.Names()),
	}
}
