package protocol

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// validators runs an attribute's validators, as the framework's
// AttributeValidate<Kind> functions do, for the attribute kinds the direct
// path validates (validatable says which).
func (w configWalk) validators(a schema.Attribute, value attr.Value, p path.Path, e path.Expression) {
	switch a := a.(type) {
	case schema.StringAttribute:
		runValidators(w, a.Validators, value, p, e, basetypes.StringValuable.ToStringValue, validator.String.ValidateString)
	case schema.Int64Attribute:
		runValidators(w, a.Validators, value, p, e, basetypes.Int64Valuable.ToInt64Value, validator.Int64.ValidateInt64)
	case schema.Float64Attribute:
		runValidators(w, a.Validators, value, p, e, basetypes.Float64Valuable.ToFloat64Value, validator.Float64.ValidateFloat64)
	case schema.BoolAttribute:
		runValidators(w, a.Validators, value, p, e, basetypes.BoolValuable.ToBoolValue, validator.Bool.ValidateBool)
	case schema.NumberAttribute:
		runValidators(w, a.Validators, value, p, e, basetypes.NumberValuable.ToNumberValue, validator.Number.ValidateNumber)
	case schema.DynamicAttribute:
		runValidators(w, a.Validators, value, p, e, basetypes.DynamicValuable.ToDynamicValue, validator.Dynamic.ValidateDynamic)
	case schema.ListAttribute:
		runValidators(w, a.Validators, value, p, e, basetypes.ListValuable.ToListValue, validator.List.ValidateList)
	case schema.ListNestedAttribute:
		runValidators(w, a.Validators, value, p, e, basetypes.ListValuable.ToListValue, validator.List.ValidateList)
	case schema.SetAttribute:
		runValidators(w, a.Validators, value, p, e, basetypes.SetValuable.ToSetValue, validator.Set.ValidateSet)
	case schema.SetNestedAttribute:
		runValidators(w, a.Validators, value, p, e, basetypes.SetValuable.ToSetValue, validator.Set.ValidateSet)
	case schema.MapAttribute:
		runValidators(w, a.Validators, value, p, e, basetypes.MapValuable.ToMapValue, validator.Map.ValidateMap)
	case schema.MapNestedAttribute:
		runValidators(w, a.Validators, value, p, e, basetypes.MapValuable.ToMapValue, validator.Map.ValidateMap)
	case schema.ObjectAttribute:
		w.objectValidators(a.Validators, value, p, e)
	case schema.SingleNestedAttribute:
		w.objectValidators(a.Validators, value, p, e)
	}
}

func (w configWalk) objectValidators(validators []validator.Object, value attr.Value, p path.Path, e path.Expression) {
	runValidators(w, validators, value, p, e, basetypes.ObjectValuable.ToObjectValue, validator.Object.ValidateObject)
}

// validatable says why the direct path cannot validate an attribute, nil
// when it can: validators and runValidators cover every kind but Int32
// and Float32, which no resource of the provider uses.
func validatable(a schema.Attribute) error {
	switch a.(type) {
	case schema.Int32Attribute, schema.Float32Attribute:
		return fmt.Errorf("%T is not validated directly", a)
	}
	return nil
}

// runValidators converts the value to the validators' kind (Valuable's
// method, as the framework does), builds the kind's request and runs each
// validator. The framework has one request and response type per kind,
// all of the layouts validatorRequest and validatorResponse spell out.
func runValidators[Valuable, Value, V any, Req ~validatorRequest[Value], Resp ~validatorResponse](
	w configWalk, validators []V, value attr.Value, p path.Path, e path.Expression,
	convert func(Valuable, context.Context) (Value, diag.Diagnostics), run func(V, context.Context, Req, *Resp)) {
	if len(validators) == 0 {
		return
	}
	valuable, ok := value.(Valuable)
	if !ok {
		var want *Valuable
		kind := fmt.Sprintf("%T", want)[len("*basetypes."):]
		kind = kind[:len(kind)-len("Valuable")]
		w.diags.AddAttributeError(p, "Invalid "+kind+" Attribute Validator Value Type",
			"An unexpected value type was encountered while attempting to perform "+kind+" attribute validation. "+
				"The value type must implement the basetypes."+kind+"Valuable interface. "+
				"Please report this to the provider developers.\n\n"+fmt.Sprintf("Incoming Value Type: %T", value))
		return
	}
	converted, diags := convert(valuable, w.ctx)
	if w.diags.Append(diags...); diags.HasError() {
		return
	}
	req := Req(validatorRequest[Value]{ClientCapabilities: w.caps, Config: w.config, ConfigValue: converted, Path: p, PathExpression: e})
	for _, v := range validators {
		var resp Resp
		run(v, w.ctx, req, &resp)
		w.diags.Append(validatorResponse(resp).Diagnostics...)
	}
}

// validatorRequest is the layout of every kind's validator request
// (validator.StringRequest, validator.Int64Request, ...): the same fields,
// with the kind's value. Converting one such struct builds the request of
// any kind without reflection; were the framework to change one layout,
// the provider would no longer build, rather than fail at run time.
type validatorRequest[Value any] = struct {
	Path               path.Path
	PathExpression     path.Expression
	Config             tfsdk.Config
	ConfigValue        Value
	ClientCapabilities validator.ValidateSchemaClientCapabilities
}

// validatorResponse is the layout of every kind's validator response.
type validatorResponse = struct {
	Diagnostics diag.Diagnostics
}
