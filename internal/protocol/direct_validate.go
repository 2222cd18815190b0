package protocol

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/attr/xattr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// servesValidate says whether the direct path validates this request
// exactly as the framework would.
func (r *directResource) servesValidate(req *tfprotov6.ValidateResourceConfigRequest) bool {
	return r != nil && r.schema.validateRefusal == nil && req.Config != nil
}

// validate is ValidateResourceConfig for one resource: the framework's
// steps (fwserver.ValidateResourceConfig, docs/design/framework.md) on
// the configuration as the framework reads it. Terraform asks for it for
// every resource instance of every plan, and the framework looks every
// attribute's value up from the schema's root (framework#775): about half
// of the provider's CPU in a plan of 300 workloads (docs/design/framework.md
// has the figures). Here each value is taken from its parent as the schema
// is walked once.
func (r *directResource) validate(ctx context.Context, config tftypes.Value, caps *tfprotov6.ValidateResourceConfigClientCapabilities, providerData any) []*tfprotov6.Diagnostic {
	var diags diag.Diagnostics
	res := r.newResource()
	if !configure(ctx, res, providerData, &diags) {
		return protoDiagnostics(ctx, diags)
	}
	req := resource.ValidateConfigRequest{
		ClientCapabilities: resource.ValidateConfigClientCapabilities{WriteOnlyAttributesAllowed: caps != nil && caps.WriteOnlyAttributesAllowed},
		Config:             tfsdk.Config{Raw: r.schema.nullifyCollectionBlocks(config), Schema: r.schema.schema},
	}
	if withValidators, ok := res.(resource.ResourceWithConfigValidators); ok {
		for _, v := range withValidators.ConfigValidators(ctx) {
			var resp resource.ValidateConfigResponse
			v.ValidateResource(ctx, req, &resp)
			diags.Append(resp.Diagnostics...)
		}
	}
	if withValidate, ok := res.(resource.ResourceWithValidateConfig); ok {
		var resp resource.ValidateConfigResponse
		withValidate.ValidateConfig(ctx, req, &resp)
		diags.Append(resp.Diagnostics...)
	}
	w := configWalk{ctx: ctx, config: req.Config, diags: &diags,
		caps: validator.ValidateSchemaClientCapabilities{WriteOnlyAttributesAllowed: req.ClientCapabilities.WriteOnlyAttributesAllowed}}
	w.object(req.Config.Raw, r.schema.schema.Attributes, r.schema.schema.Blocks, path.Empty(), path.MatchRoot(""))
	if message := r.schema.schema.GetDeprecationMessage(); message != "" {
		diags.AddWarning("Deprecated", message)
	}
	return protoDiagnostics(ctx, diags)
}

// configWalk validates a configuration's values attribute by attribute,
// as fwserver.SchemaValidate does.
type configWalk struct {
	ctx    context.Context
	config tfsdk.Config
	caps   validator.ValidateSchemaClientCapabilities
	diags  *diag.Diagnostics
}

// child is a walk of its own diagnostics, for one attribute or block: the
// framework gives each its own response, appended to its parent's when
// done, and skips what is nested in it when that response already holds
// an error.
func (w configWalk) child() configWalk {
	w.diags = &diag.Diagnostics{}
	return w
}

// done appends a child's diagnostics to w's.
func (w configWalk) done(child configWalk) {
	w.diags.Append(*child.diags...)
}

// object validates the attributes and blocks of an object value (the
// configuration itself, a block, a nested attribute's object) at p; a
// child of a null or unknown object is null, as the framework reads it.
func (w configWalk) object(v tftypes.Value, attrs map[string]schema.Attribute, blocks map[string]schema.Block, p path.Path, e path.Expression) {
	var values map[string]tftypes.Value
	if v.IsNull() || !v.IsKnown() || v.As(&values) != nil {
		values = nil // read only: As hands out the value's own map
	}
	for name, a := range attrs {
		c := w.child()
		c.attribute(a, childValue(values, name), childPath(p, name), childExpression(p, e, name))
		w.done(c)
	}
	for name, b := range blocks {
		c := w.child()
		c.block(b, childValue(values, name), childPath(p, name), childExpression(p, e, name))
		w.done(c)
	}
}

// childValue is an object's attribute, the zero value (read as null) when
// the object is null or unknown.
func childValue(values map[string]tftypes.Value, name string) tftypes.Value {
	if v, ok := values[name]; ok {
		return v
	}
	return tftypes.Value{}
}

func childPath(p path.Path, name string) path.Path {
	if len(p.Steps()) == 0 {
		return path.Root(name)
	}
	return p.AtName(name)
}

func childExpression(p path.Path, e path.Expression, name string) path.Expression {
	if len(p.Steps()) == 0 {
		return path.MatchRoot(name)
	}
	return e.AtName(name)
}

// attribute is fwserver.AttributeValidate.
func (w configWalk) attribute(a schema.Attribute, raw tftypes.Value, p path.Path, e path.Expression) {
	if !a.IsRequired() && !a.IsOptional() && !a.IsComputed() {
		w.diags.AddAttributeError(p, "Invalid Attribute Definition",
			"Attribute missing Required, Optional, or Computed definition. This is always a problem with the provider and should be reported to the provider developer.")
		return
	}
	value, ok := w.value(a.GetType(), raw, p)
	if !ok {
		return
	}
	null, unknown := value.IsNull(), value.IsUnknown()
	if dynamic, isDynamic := value.(basetypes.DynamicValuable); isDynamic && !null && !unknown {
		d, diags := dynamic.ToDynamicValue(w.ctx)
		if w.diags.Append(diags...); diags.HasError() {
			return
		}
		null, unknown = d.IsUnderlyingValueNull(), d.IsUnderlyingValueUnknown()
	}
	if a.IsComputed() && !a.IsOptional() && !null {
		w.diags.AddAttributeError(p, "Invalid Configuration for Read-Only Attribute",
			"Cannot set value for this attribute as the provider has marked it as read-only. Remove the configuration line setting the value.\n\n"+
				"Refer to the provider documentation or contact the provider developers for additional information about configurable and read-only attributes that are supported.")
	}
	if a.IsRequired() && null {
		w.diags.AddAttributeError(p, "Missing Configuration for Required Attribute",
			fmt.Sprintf("Must set a configuration value for the %s attribute as the provider has marked it as required.\n\n", p.String())+
				"Refer to the provider documentation or contact the provider developers for additional information about configurable attributes that are required.")
	}
	w.validators(a, value, p, e)
	w.nestedAttributes(a, value, raw, p, e)
	if message := a.GetDeprecationMessage(); message != "" && !null && !unknown {
		w.diags.AddAttributeWarning(p, "Attribute Deprecated", message)
	}
}

// value is the attribute's value as the framework's ValueAtPath gives it:
// converted to its type, and checked by the type or value where they
// validate themselves. false when that failed (the diagnostics say why).
func (w configWalk) value(t attr.Type, raw tftypes.Value, p path.Path) (attr.Value, bool) {
	if raw.Type() == nil {
		raw = tftypes.NewValue(t.TerraformType(w.ctx), nil)
	}
	value, err := t.ValueFromTerraform(w.ctx, raw)
	if err != nil {
		w.diags.AddAttributeError(p, "Configuration Read Error",
			"An unexpected error was encountered trying to convert an attribute value from the configuration. This is always an error in the provider. Please report the following to the provider developer:\n\n"+
				"Error: "+err.Error())
		return nil, false
	}
	var diags diag.Diagnostics
	switch typed := value.(type) {
	case xattr.ValidateableAttribute:
		var resp xattr.ValidateAttributeResponse
		typed.ValidateAttribute(w.ctx, xattr.ValidateAttributeRequest{Path: p}, &resp)
		diags = resp.Diagnostics
	default:
		//nolint:staticcheck // deprecated, but the framework still calls it
		if withValidate, ok := t.(xattr.TypeWithValidate); ok {
			diags = withValidate.Validate(w.ctx, raw, p)
		}
	}
	w.diags.Append(diags...)
	return value, !diags.HasError()
}

// nestedAttributes is fwserver.AttributeValidateNestedAttributes: each
// element's (or the single object's) attributes, and the nested object's
// own validators.
func (w configWalk) nestedAttributes(a schema.Attribute, value attr.Value, raw tftypes.Value, p path.Path, e path.Expression) {
	var object schema.NestedAttributeObject
	switch n := a.(type) {
	case schema.ListNestedAttribute:
		object = n.NestedObject
	case schema.SetNestedAttribute:
		object = n.NestedObject
	case schema.MapNestedAttribute:
		object = n.NestedObject
	case schema.SingleNestedAttribute:
		if w.diags.HasError() || value.IsNull() || value.IsUnknown() {
			return
		}
		// GetNestedObject is the attribute's attributes and validators.
		w.nestedObject(schema.NestedAttributeObject{Attributes: n.Attributes, Validators: n.Validators}, value, raw, p, e)
		return
	default:
		return
	}
	w.elements(value, raw, p, e, func(element attr.Value, rawElement tftypes.Value, ep path.Path, ee path.Expression) {
		w.nestedObject(object, element, rawElement, ep, ee)
	})
}

func (w configWalk) nestedObject(o schema.NestedAttributeObject, value attr.Value, raw tftypes.Value, p path.Path, e path.Expression) {
	w.objectValidators(o.Validators, value, p, e)
	w.object(raw, o.Attributes, nil, p, e)
}

// block is fwserver.BlockValidate.
func (w configWalk) block(b schema.Block, raw tftypes.Value, p path.Path, e path.Expression) {
	value, ok := w.value(b.Type(), raw, p)
	if !ok {
		return
	}
	switch n := b.(type) {
	case schema.ListNestedBlock:
		runValidators(w, n.Validators, value, p, e, basetypes.ListValuable.ToListValue, validator.List.ValidateList)
		w.elements(value, raw, p, e, func(element attr.Value, rawElement tftypes.Value, ep path.Path, ee path.Expression) {
			w.nestedBlockObject(n.NestedObject, element, rawElement, ep, ee)
		})
	case schema.SetNestedBlock:
		runValidators(w, n.Validators, value, p, e, basetypes.SetValuable.ToSetValue, validator.Set.ValidateSet)
		w.elements(value, raw, p, e, func(element attr.Value, rawElement tftypes.Value, ep path.Path, ee path.Expression) {
			w.nestedBlockObject(n.NestedObject, element, rawElement, ep, ee)
		})
	case schema.SingleNestedBlock:
		w.objectValidators(n.Validators, value, p, e)
		// The framework runs a single block's validators again as its
		// nested object's, when they passed the first time: they pass
		// again, and Append would keep one of each diagnostic anyway.
		if !w.diags.HasError() {
			w.object(raw, n.Attributes, n.Blocks, p, e)
		}
	}
	if message := b.GetDeprecationMessage(); message != "" && !value.IsNull() && !value.IsUnknown() {
		w.diags.AddAttributeWarning(p, "Block Deprecated", message)
	}
}

func (w configWalk) nestedBlockObject(o schema.NestedBlockObject, value attr.Value, raw tftypes.Value, p path.Path, e path.Expression) {
	w.objectValidators(o.Validators, value, p, e)
	w.object(raw, o.Attributes, o.Blocks, p, e)
}

// elements visits each element of a list, set or map value with its path
// and expression as the framework builds them.
func (w configWalk) elements(value attr.Value, raw tftypes.Value, p path.Path, e path.Expression,
	visit func(element attr.Value, rawElement tftypes.Value, ep path.Path, ee path.Expression)) {
	if w.diags.HasError() || value.IsNull() || value.IsUnknown() {
		return
	}
	switch collection := value.(type) {
	case basetypes.ListValuable:
		var rawElements []tftypes.Value
		if w.as(raw, &rawElements, p) {
			for i, element := range w.listElements(collection) {
				visit(element, rawElements[i], p.AtListIndex(i), e.AtListIndex(i))
			}
		}
	case basetypes.SetValuable:
		var rawElements []tftypes.Value
		if w.as(raw, &rawElements, p) {
			for i, element := range w.setElements(collection) {
				visit(element, rawElements[i], p.AtSetValue(element), e.AtSetValue(element))
			}
		}
	case basetypes.MapValuable:
		var rawElements map[string]tftypes.Value
		if w.as(raw, &rawElements, p) {
			for key, element := range w.mapElements(collection) {
				visit(element, rawElements[key], p.AtMapKey(key), e.AtMapKey(key))
			}
		}
	}
}

func (w configWalk) as(raw tftypes.Value, into any, p path.Path) bool {
	if err := raw.As(into); err != nil {
		w.diags.AddAttributeError(p, "Configuration Read Error", "Reading the collection's elements: "+err.Error())
		return false
	}
	return true
}

func (w configWalk) listElements(v basetypes.ListValuable) []attr.Value {
	l, diags := v.ToListValue(w.ctx)
	w.diags.Append(diags...)
	return l.Elements()
}

// setElements are a set's elements in the order Terraform sent them,
// which is the order the framework reads them in.
func (w configWalk) setElements(v basetypes.SetValuable) []attr.Value {
	s, diags := v.ToSetValue(w.ctx)
	w.diags.Append(diags...)
	return s.Elements()
}

func (w configWalk) mapElements(v basetypes.MapValuable) map[string]attr.Value {
	m, diags := v.ToMapValue(w.ctx)
	w.diags.Append(diags...)
	return m.Elements()
}
