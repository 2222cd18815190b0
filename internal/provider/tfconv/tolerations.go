package tfconv

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	corev1 "k8s.io/api/core/v1"
)

// The tolerations render derives, as the computed attribute every resource
// that places pods reports them in (a workload's pods, a pool's workloads).

// TolerationAttrTypes is one toleration's object type.
var TolerationAttrTypes = map[string]attr.Type{
	"key": types.StringType, "operator": types.StringType, "value": types.StringType, "effect": types.StringType,
}

// TolerationsAttribute is the computed list of tolerations, described.
func TolerationsAttribute(description string) schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		Computed:            true,
		MarkdownDescription: description,
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"key":      schema.StringAttribute{Computed: true, MarkdownDescription: "Taint key."},
			"operator": schema.StringAttribute{Computed: true, MarkdownDescription: "`Equal` or `Exists`."},
			"value":    schema.StringAttribute{Computed: true, MarkdownDescription: "Taint value."},
			"effect":   schema.StringAttribute{Computed: true, MarkdownDescription: "Taint effect."},
		}},
	}
}

// TolerationList is TolerationsAttribute's value.
func TolerationList(tolerations []corev1.Toleration, diags *diag.Diagnostics) types.List {
	values := make([]attr.Value, 0, len(tolerations))
	for _, t := range tolerations {
		obj, d := types.ObjectValue(TolerationAttrTypes, map[string]attr.Value{
			"key": types.StringValue(t.Key), "operator": types.StringValue(string(t.Operator)),
			"value": types.StringValue(t.Value), "effect": types.StringValue(string(t.Effect)),
		})
		diags.Append(d...)
		values = append(values, obj)
	}
	list, d := types.ListValue(types.ObjectType{AttrTypes: TolerationAttrTypes}, values)
	diags.Append(d...)
	return list
}
