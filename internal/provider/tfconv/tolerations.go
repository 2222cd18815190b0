package tfconv

import (
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	corev1 "k8s.io/api/core/v1"
)

// The tolerations render derives, as the computed attribute every resource
// that places pods reports them in (a workload's pods, a pool's workloads).

// TolerationAttrTypes is one toleration's object type.
var TolerationAttrTypes = StringObjectTypes(tolerationFields)

var tolerationFields = map[string]string{
	"key": "Taint key.", "operator": "`Equal` or `Exists`.", "value": "Taint value.", "effect": "Taint effect.",
}

// TolerationsAttribute is the computed list of tolerations, described.
func TolerationsAttribute(description string) schema.ListNestedAttribute {
	return ComputedStringObjects(description, tolerationFields)
}

// TolerationList is TolerationsAttribute's value.
func TolerationList(tolerations []corev1.Toleration, diags *diag.Diagnostics) types.List {
	rows := make([]map[string]string, 0, len(tolerations))
	for _, t := range tolerations {
		rows = append(rows, map[string]string{"key": t.Key, "operator": string(t.Operator), "value": t.Value, "effect": string(t.Effect)})
	}
	return StringObjectList(TolerationAttrTypes, rows, diags)
}

// ComputedStringObjects is a computed list of objects whose attributes are
// all strings: fields maps each attribute's name to its description.
func ComputedStringObjects(description string, fields map[string]string) schema.ListNestedAttribute {
	attributes := make(map[string]schema.Attribute, len(fields))
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		attributes[name] = schema.StringAttribute{Computed: true, MarkdownDescription: fields[name]}
	}
	return schema.ListNestedAttribute{
		Computed:            true,
		MarkdownDescription: description,
		NestedObject:        schema.NestedAttributeObject{Attributes: attributes},
	}
}

// StringObjectTypes is the object type of ComputedStringObjects' elements.
func StringObjectTypes(fields map[string]string) map[string]attr.Type {
	out := make(map[string]attr.Type, len(fields))
	for name := range fields {
		out[name] = types.StringType
	}
	return out
}

// StringObjectList is ComputedStringObjects' value: one object per row,
// each attribute of attrTypes from the row's entry ("" when it has none).
func StringObjectList(attrTypes map[string]attr.Type, rows []map[string]string, diags *diag.Diagnostics) types.List {
	values := make([]attr.Value, 0, len(rows))
	for _, row := range rows {
		attrs := make(map[string]attr.Value, len(attrTypes))
		for name := range attrTypes {
			attrs[name] = types.StringValue(row[name])
		}
		obj, d := types.ObjectValue(attrTypes, attrs)
		diags.Append(d...)
		values = append(values, obj)
	}
	list, d := types.ListValue(types.ObjectType{AttrTypes: attrTypes}, values)
	diags.Append(d...)
	return list
}
