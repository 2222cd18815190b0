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

// modifyString runs a string attribute's plan modifiers in order.
func modifyString(ctx context.Context, name string, modifiers []planmodifier.String, in modifierInput) modifierOutput {
	return runModifiers(ctx, name, types.StringType, in, modifiers, planmodifier.String.PlanModifyString)
}

// modifyMap runs a map attribute's plan modifiers in order.
func modifyMap(ctx context.Context, name string, elementType attr.Type, modifiers []planmodifier.Map, in modifierInput) modifierOutput {
	return runModifiers(ctx, name, types.MapType{ElemType: elementType}, in, modifiers, planmodifier.Map.PlanModifyMap)
}

// runModifiers runs an attribute's modifiers of one value type V in order,
// as the framework does: each sees the configuration and state values and
// the plan value the one before planned; the first that fails ends them.
// The framework has one request and response type per kind, all of the
// layouts modifierRequest and modifierResponse spell out.
func runModifiers[V attr.Value, M, Private any, Req ~modifierRequest[V, Private], Resp ~modifierResponse[V, Private]](
	ctx context.Context, name string, t attr.Type, in modifierInput, modifiers []M, modify func(M, context.Context, Req, *Resp)) modifierOutput {
	out := modifierOutput{planValue: in.planValue}
	values, diags := typedValues[V](ctx, t, in)
	if out.diags.Append(diags...); diags.HasError() {
		return out
	}
	planned := values[1]
	for _, m := range modifiers {
		req := Req(modifierRequest[V, Private]{Path: path.Root(name), Config: in.config, Plan: in.plan, State: in.state,
			ConfigValue: values[0], PlanValue: planned, StateValue: values[2]})
		resp := Resp(modifierResponse[V, Private]{PlanValue: planned})
		modify(m, ctx, req, &resp)
		result := modifierResponse[V, Private](resp)
		if !out.record(ctx, result.Diagnostics, result.RequiresReplace, result.PlanValue) {
			return out
		}
		planned = result.PlanValue
	}
	return out
}

// modifierRequest is the layout of every kind's plan modifier request
// (planmodifier.StringRequest, planmodifier.MapRequest, ...): the same
// fields, with the kind's value. Converting one such struct builds the
// request of any kind without reflection, checked by the compiler. Private
// is the framework's private state, of a type it does not export: the
// type parameter is inferred from the request type, and the direct path
// leaves it nil, as it serves only resources without private state.
type modifierRequest[V, Private any] = struct {
	Path           path.Path
	PathExpression path.Expression
	Config         tfsdk.Config
	ConfigValue    V
	Plan           tfsdk.Plan
	PlanValue      V
	State          tfsdk.State
	StateValue     V
	Private        Private
}

// modifierResponse is the layout of every kind's plan modifier response.
type modifierResponse[V, Private any] = struct {
	PlanValue       V
	RequiresReplace bool
	Private         Private
	Diagnostics     diag.Diagnostics
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
