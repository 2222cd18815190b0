package protocol

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// modifierInput is what a top-level attribute's plan modifiers see: the
// whole configuration, plan and prior state, and the attribute's value in
// each.
type modifierInput struct {
	config                             tfsdk.Config
	plan                               tfsdk.Plan
	state                              tfsdk.State
	configValue, planValue, stateValue tftypes.Value
}

// modifierOutput is the attribute's planned value after its modifiers.
type modifierOutput struct {
	planValue       tftypes.Value
	requiresReplace bool
	diags           diag.Diagnostics
}

// modifyString runs a string attribute's plan modifiers in order, each
// seeing the value the one before planned, as the framework does.
func modifyString(ctx context.Context, name string, modifiers []planmodifier.String, in modifierInput) modifierOutput {
	return runModifiers(ctx, types.StringType, in, modifiers,
		func(m planmodifier.String, values [3]basetypes.StringValue) modified[basetypes.StringValue] {
			req := planmodifier.StringRequest{Path: path.Root(name), Config: in.config, Plan: in.plan, State: in.state,
				ConfigValue: values[0], PlanValue: values[1], StateValue: values[2]}
			resp := &planmodifier.StringResponse{PlanValue: values[1]}
			m.PlanModifyString(ctx, req, resp)
			return modified[basetypes.StringValue]{resp.Diagnostics, resp.RequiresReplace, resp.PlanValue}
		})
}

// modifyMap runs a map attribute's plan modifiers in order.
func modifyMap(ctx context.Context, name string, elementType attr.Type, modifiers []planmodifier.Map, in modifierInput) modifierOutput {
	return runModifiers(ctx, types.MapType{ElemType: elementType}, in, modifiers,
		func(m planmodifier.Map, values [3]basetypes.MapValue) modified[basetypes.MapValue] {
			req := planmodifier.MapRequest{Path: path.Root(name), Config: in.config, Plan: in.plan, State: in.state,
				ConfigValue: values[0], PlanValue: values[1], StateValue: values[2]}
			resp := &planmodifier.MapResponse{PlanValue: values[1]}
			m.PlanModifyMap(ctx, req, resp)
			return modified[basetypes.MapValue]{resp.Diagnostics, resp.RequiresReplace, resp.PlanValue}
		})
}

// modified is one plan modifier's response.
type modified[V attr.Value] struct {
	diags           diag.Diagnostics
	requiresReplace bool
	planValue       V
}

// runModifiers runs an attribute's modifiers of one value type V in order:
// each sees the configuration and state values and the plan value the one
// before planned (values[1]); the first that fails ends them.
func runModifiers[V attr.Value, M any](ctx context.Context, t attr.Type, in modifierInput, modifiers []M,
	modify func(m M, values [3]V) modified[V]) modifierOutput {
	out := modifierOutput{planValue: in.planValue}
	values, diags := typedValues[V](ctx, t, in)
	if out.diags.Append(diags...); diags.HasError() {
		return out
	}
	for _, m := range modifiers {
		resp := modify(m, values)
		if !out.record(ctx, resp.diags, resp.requiresReplace, resp.planValue) {
			return out
		}
		values[1] = resp.planValue
	}
	return out
}

// record keeps one modifier's result; false when it failed, which ends the
// attribute's modifiers as in the framework.
func (out *modifierOutput) record(ctx context.Context, diags diag.Diagnostics, requiresReplace bool, planned attr.Value) bool {
	out.diags.Append(diags...)
	out.requiresReplace = out.requiresReplace || requiresReplace
	if diags.HasError() {
		return false
	}
	value, err := planned.ToTerraformValue(ctx)
	if err != nil {
		out.diags.AddError("Plan modifier returned an unusable value", err.Error())
		return false
	}
	out.planValue = value
	return true
}

// typedValues converts the attribute's configuration, plan and state values
// to the framework's value type.
func typedValues[T attr.Value](ctx context.Context, t attr.Type, in modifierInput) ([3]T, diag.Diagnostics) {
	var out [3]T
	var diags diag.Diagnostics
	for i, v := range []tftypes.Value{in.configValue, in.planValue, in.stateValue} {
		value, err := t.ValueFromTerraform(ctx, v)
		typed, ok := value.(T)
		if err != nil || !ok {
			diags.AddError("Cannot read an attribute for its plan modifiers", fmt.Sprintf("%s: %T %v", t, value, err))
			return out, diags
		}
		out[i] = typed
	}
	return out, diags
}

// defaultValue is a default's value in Terraform's terms.
func defaultValue(ctx context.Context, v attr.Value, diags diag.Diagnostics) (tftypes.Value, diag.Diagnostics) {
	if diags.HasError() {
		return tftypes.Value{}, diags
	}
	value, err := v.ToTerraformValue(ctx)
	if err != nil {
		diags.AddError("Default returned an unusable value", err.Error())
	}
	return value, diags
}
