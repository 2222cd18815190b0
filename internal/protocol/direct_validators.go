package protocol

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// validators runs an attribute's validators, as the framework's
// AttributeValidate<Kind> functions do, for the attribute kinds the direct
// path validates (validatable says which).
func (w configWalk) validators(a schema.Attribute, value attr.Value, p path.Path, e path.Expression) {
	switch a := a.(type) {
	case schema.StringAttribute:
		runValidators(w, a.Validators, value, p, e, basetypes.StringValuable.ToStringValue, validator.String.ValidateString, stringRequest)
	case schema.Int64Attribute:
		runValidators(w, a.Validators, value, p, e, basetypes.Int64Valuable.ToInt64Value, validator.Int64.ValidateInt64, int64Request)
	case schema.Float64Attribute:
		runValidators(w, a.Validators, value, p, e, basetypes.Float64Valuable.ToFloat64Value, validator.Float64.ValidateFloat64, float64Request)
	case schema.BoolAttribute:
		runValidators(w, a.Validators, value, p, e, basetypes.BoolValuable.ToBoolValue, validator.Bool.ValidateBool, boolRequest)
	case schema.NumberAttribute:
		runValidators(w, a.Validators, value, p, e, basetypes.NumberValuable.ToNumberValue, validator.Number.ValidateNumber, numberRequest)
	case schema.DynamicAttribute:
		runValidators(w, a.Validators, value, p, e, basetypes.DynamicValuable.ToDynamicValue, validator.Dynamic.ValidateDynamic, dynamicRequest)
	case schema.ListAttribute:
		runValidators(w, a.Validators, value, p, e, basetypes.ListValuable.ToListValue, validator.List.ValidateList, listRequest)
	case schema.ListNestedAttribute:
		runValidators(w, a.Validators, value, p, e, basetypes.ListValuable.ToListValue, validator.List.ValidateList, listRequest)
	case schema.SetAttribute:
		runValidators(w, a.Validators, value, p, e, basetypes.SetValuable.ToSetValue, validator.Set.ValidateSet, setRequest)
	case schema.SetNestedAttribute:
		runValidators(w, a.Validators, value, p, e, basetypes.SetValuable.ToSetValue, validator.Set.ValidateSet, setRequest)
	case schema.MapAttribute:
		runValidators(w, a.Validators, value, p, e, basetypes.MapValuable.ToMapValue, validator.Map.ValidateMap, mapRequest)
	case schema.MapNestedAttribute:
		runValidators(w, a.Validators, value, p, e, basetypes.MapValuable.ToMapValue, validator.Map.ValidateMap, mapRequest)
	case schema.ObjectAttribute:
		w.objectValidators(a.Validators, value, p, e)
	case schema.SingleNestedAttribute:
		w.objectValidators(a.Validators, value, p, e)
	}
}

func (w configWalk) objectValidators(validators []validator.Object, value attr.Value, p path.Path, e path.Expression) {
	runValidators(w, validators, value, p, e, basetypes.ObjectValuable.ToObjectValue, validator.Object.ValidateObject, objectRequest)
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
// with the same fields; request builds one and diagnostics reads one.
func runValidators[Valuable, Value, V, Req, Resp any](w configWalk, validators []V, value attr.Value, p path.Path, e path.Expression,
	convert func(Valuable, context.Context) (Value, diag.Diagnostics), run func(V, context.Context, Req, *Resp),
	request func(validationBase, Value) (Req, func(*Resp) diag.Diagnostics)) {
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
	req, diagnostics := request(validationBase{w: w, path: p, expression: e}, converted)
	for _, v := range validators {
		var resp Resp
		run(v, w.ctx, req, &resp)
		w.diags.Append(diagnostics(&resp)...)
	}
}

// validationBase is what every kind's request holds besides the value.
type validationBase struct {
	w          configWalk
	path       path.Path
	expression path.Expression
}

func stringRequest(b validationBase, v basetypes.StringValue) (validator.StringRequest, func(*validator.StringResponse) diag.Diagnostics) {
	return validator.StringRequest{ClientCapabilities: b.w.caps, Config: b.w.config, ConfigValue: v, Path: b.path, PathExpression: b.expression},
		func(r *validator.StringResponse) diag.Diagnostics { return r.Diagnostics }
}

func int64Request(b validationBase, v basetypes.Int64Value) (validator.Int64Request, func(*validator.Int64Response) diag.Diagnostics) {
	return validator.Int64Request{ClientCapabilities: b.w.caps, Config: b.w.config, ConfigValue: v, Path: b.path, PathExpression: b.expression},
		func(r *validator.Int64Response) diag.Diagnostics { return r.Diagnostics }
}

func float64Request(b validationBase, v basetypes.Float64Value) (validator.Float64Request, func(*validator.Float64Response) diag.Diagnostics) {
	return validator.Float64Request{ClientCapabilities: b.w.caps, Config: b.w.config, ConfigValue: v, Path: b.path, PathExpression: b.expression},
		func(r *validator.Float64Response) diag.Diagnostics { return r.Diagnostics }
}

func boolRequest(b validationBase, v basetypes.BoolValue) (validator.BoolRequest, func(*validator.BoolResponse) diag.Diagnostics) {
	return validator.BoolRequest{ClientCapabilities: b.w.caps, Config: b.w.config, ConfigValue: v, Path: b.path, PathExpression: b.expression},
		func(r *validator.BoolResponse) diag.Diagnostics { return r.Diagnostics }
}

func numberRequest(b validationBase, v basetypes.NumberValue) (validator.NumberRequest, func(*validator.NumberResponse) diag.Diagnostics) {
	return validator.NumberRequest{ClientCapabilities: b.w.caps, Config: b.w.config, ConfigValue: v, Path: b.path, PathExpression: b.expression},
		func(r *validator.NumberResponse) diag.Diagnostics { return r.Diagnostics }
}

func dynamicRequest(b validationBase, v basetypes.DynamicValue) (validator.DynamicRequest, func(*validator.DynamicResponse) diag.Diagnostics) {
	return validator.DynamicRequest{ClientCapabilities: b.w.caps, Config: b.w.config, ConfigValue: v, Path: b.path, PathExpression: b.expression},
		func(r *validator.DynamicResponse) diag.Diagnostics { return r.Diagnostics }
}

func listRequest(b validationBase, v basetypes.ListValue) (validator.ListRequest, func(*validator.ListResponse) diag.Diagnostics) {
	return validator.ListRequest{ClientCapabilities: b.w.caps, Config: b.w.config, ConfigValue: v, Path: b.path, PathExpression: b.expression},
		func(r *validator.ListResponse) diag.Diagnostics { return r.Diagnostics }
}

func setRequest(b validationBase, v basetypes.SetValue) (validator.SetRequest, func(*validator.SetResponse) diag.Diagnostics) {
	return validator.SetRequest{ClientCapabilities: b.w.caps, Config: b.w.config, ConfigValue: v, Path: b.path, PathExpression: b.expression},
		func(r *validator.SetResponse) diag.Diagnostics { return r.Diagnostics }
}

func mapRequest(b validationBase, v basetypes.MapValue) (validator.MapRequest, func(*validator.MapResponse) diag.Diagnostics) {
	return validator.MapRequest{ClientCapabilities: b.w.caps, Config: b.w.config, ConfigValue: v, Path: b.path, PathExpression: b.expression},
		func(r *validator.MapResponse) diag.Diagnostics { return r.Diagnostics }
}

func objectRequest(b validationBase, v basetypes.ObjectValue) (validator.ObjectRequest, func(*validator.ObjectResponse) diag.Diagnostics) {
	return validator.ObjectRequest{ClientCapabilities: b.w.caps, Config: b.w.config, ConfigValue: v, Path: b.path, PathExpression: b.expression},
		func(r *validator.ObjectResponse) diag.Diagnostics { return r.Diagnostics }
}
