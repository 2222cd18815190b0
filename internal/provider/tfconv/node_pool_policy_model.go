package tfconv

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	corev1 "k8s.io/api/core/v1"
)

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
