package protocol

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/defaults"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// directSchema is what the direct planner needs of one resource schema,
// worked out once per server instead of on every attribute of every plan
// (the framework walks the schema from its root for each value it visits,
// copying the attribute map at every step): which paths are attributes and
// blocks, which attributes are computed or have a default, and the
// top-level defaults and plan modifiers.
type directSchema struct {
	schema         schema.Schema
	tfType         tftypes.Type
	attributeTypes map[string]tftypes.Type
	// nodes holds every attribute and block by its shape: attribute names
	// joined by ".", with "[]" for an element step (`gpu[].count`). A path
	// whose shape is missing is inside an attribute that has no schema of
	// its own (an element of a list attribute, anything in a dynamic one).
	nodes map[string]schemaNode
	// blocks are the schema's blocks, which the framework's empty-to-null
	// rule for list and set blocks walks (direct_blocks.go).
	blocks    blockLevel
	defaults  map[string]topDefault
	modifiers map[string]topModifier
	// validateRefusal says why the direct path leaves validation to the
	// framework (validatable); nil when it validates.
	validateRefusal error
}

// schemaNode is one attribute or block.
type schemaNode struct {
	block      bool // a block: never marked unknown
	computed   bool
	hasDefault bool
	dynamic    bool
}

// topDefault computes a top-level attribute's default value.
type topDefault func(ctx context.Context) (tftypes.Value, diag.Diagnostics)

// topModifier runs a top-level attribute's plan modifiers.
type topModifier func(ctx context.Context, in modifierInput) modifierOutput

// newDirectSchema indexes a schema, or says why the direct planner cannot
// serve it: it supports what the provider's resources use (defaults and
// plan modifiers on top-level string, bool, int64 and map attributes, no
// write-only attributes), and anything else stays with the framework.
func newDirectSchema(ctx context.Context, s schema.Schema) (*directSchema, error) {
	object, ok := s.Type().TerraformType(ctx).(tftypes.Object)
	if !ok {
		return nil, fmt.Errorf("the schema's type is not an object")
	}
	d := &directSchema{
		schema:         s,
		tfType:         object,
		attributeTypes: object.AttributeTypes,
		nodes:          map[string]schemaNode{},
		blocks:         blockLevelOf(s.Blocks),
		defaults:       map[string]topDefault{},
		modifiers:      map[string]topModifier{},
	}
	for name, a := range s.Attributes {
		if err := d.addTopAttribute(name, a); err != nil {
			return nil, fmt.Errorf("attribute %s: %w", name, err)
		}
	}
	for name, b := range s.Blocks {
		if hasPlanBehaviour(b) {
			return nil, fmt.Errorf("block %s has plan modifiers", name)
		}
		if err := d.addBlock(name, b); err != nil {
			return nil, fmt.Errorf("block %s: %w", name, err)
		}
	}
	return d, nil
}

func (d *directSchema) addTopAttribute(name string, a schema.Attribute) error {
	if err := d.addAttribute(name, a, true); err != nil {
		return err
	}
	if def, ok, err := defaultOf(a); err != nil {
		return err
	} else if ok {
		d.defaults[name] = def
	}
	if mod, ok, err := modifierOf(name, a); err != nil {
		return err
	} else if ok {
		d.modifiers[name] = mod
	}
	return nil
}

// addAttribute indexes an attribute and what is nested in it. Below the
// top level, defaults and plan modifiers are not supported.
func (d *directSchema) addAttribute(shape string, a schema.Attribute, top bool) error {
	if a.IsWriteOnly() {
		return fmt.Errorf("write-only attributes are not supported")
	}
	if !top && hasPlanBehaviour(a) {
		return fmt.Errorf("%s: nested defaults and plan modifiers are not supported", shape)
	}
	if hasSemanticEquality(a.GetType()) {
		return fmt.Errorf("%s: a type with semantic equality is not supported", shape)
	}
	if err := validatable(a); err != nil && d.validateRefusal == nil {
		d.validateRefusal = fmt.Errorf("%s: %w", shape, err)
	}
	_, dynamic := a.GetType().(basetypes.DynamicTypable)
	d.nodes[shape] = schemaNode{computed: a.IsComputed(), hasDefault: attributeHasDefault(a), dynamic: dynamic}
	nested, elements, err := nestedAttributes(a)
	if err != nil {
		return err
	}
	if elements {
		shape += "[]"
	}
	for name, n := range nested {
		if err := d.addAttribute(shape+"."+name, n, false); err != nil {
			return err
		}
	}
	return nil
}

// nestedAttributes are the attributes inside a nested attribute, and
// whether they sit below an element step (list, set, map) or directly
// (single).
func nestedAttributes(a schema.Attribute) (map[string]schema.Attribute, bool, error) {
	switch n := a.(type) {
	case schema.ListNestedAttribute:
		return n.NestedObject.Attributes, true, checkObject(n.NestedObject)
	case schema.SetNestedAttribute:
		return n.NestedObject.Attributes, true, checkObject(n.NestedObject)
	case schema.MapNestedAttribute:
		return n.NestedObject.Attributes, true, checkObject(n.NestedObject)
	case schema.SingleNestedAttribute:
		return n.Attributes, false, nil
	case schema.StringAttribute, schema.BoolAttribute, schema.Int64Attribute, schema.Int32Attribute,
		schema.Float64Attribute, schema.Float32Attribute, schema.NumberAttribute, schema.ListAttribute,
		schema.SetAttribute, schema.MapAttribute, schema.ObjectAttribute, schema.DynamicAttribute:
		return nil, false, nil
	}
	return nil, false, fmt.Errorf("attribute type %T is not supported", a)
}

func (d *directSchema) addBlock(shape string, b schema.Block) error {
	if hasSemanticEquality(b.Type()) {
		return fmt.Errorf("%s: a type with semantic equality is not supported", shape)
	}
	switch n := b.(type) {
	case schema.ListNestedBlock:
		d.nodes[shape] = schemaNode{block: true}
		return d.addBlockContent(shape+"[]", n.NestedObject.Attributes, n.NestedObject.Blocks, n.NestedObject)
	case schema.SetNestedBlock:
		d.nodes[shape] = schemaNode{block: true}
		return d.addBlockContent(shape+"[]", n.NestedObject.Attributes, n.NestedObject.Blocks, n.NestedObject)
	case schema.SingleNestedBlock:
		d.nodes[shape] = schemaNode{block: true}
		return d.addBlockContent(shape, n.Attributes, n.Blocks, nil)
	}
	return fmt.Errorf("block type %T is not supported", b)
}

func (d *directSchema) addBlockContent(shape string, attrs map[string]schema.Attribute, blocks map[string]schema.Block, object any) error {
	if object != nil {
		if err := checkObject(object); err != nil {
			return err
		}
	}
	for name, a := range attrs {
		if err := d.addAttribute(shape+"."+name, a, false); err != nil {
			return err
		}
	}
	for name, b := range blocks {
		if hasPlanBehaviour(b) {
			return fmt.Errorf("%s.%s: nested plan modifiers are not supported", shape, name)
		}
		if err := d.addBlock(shape+"."+name, b); err != nil {
			return err
		}
	}
	return nil
}

// checkObject refuses a nested object with plan modifiers of its own.
func checkObject(object any) error {
	if _, modifiers := planBehaviour(object); modifiers {
		return fmt.Errorf("nested object plan modifiers are not supported")
	}
	return nil
}

// attributeHasDefault says whether an attribute has a default.
func attributeHasDefault(a any) bool {
	hasDefault, _ := planBehaviour(a)
	return hasDefault
}

// hasPlanBehaviour says whether a schema element has a default or plan
// modifiers.
func hasPlanBehaviour(element any) bool {
	hasDefault, modifiers := planBehaviour(element)
	return hasDefault || modifiers
}

// planBehaviour reads an element's default and plan modifiers through the
// accessors every attribute, block and nested object type of the framework
// has, one per value kind. An element of a kind not listed here has
// neither.
func planBehaviour(e any) (hasDefault, hasModifiers bool) {
	if d, ok := defaultOfKind(e); ok {
		hasDefault = d
	}
	return hasDefault, modifiersOfKind(e)
}

func defaultOfKind(e any) (bool, bool) {
	switch t := e.(type) {
	case interface{ StringDefaultValue() defaults.String }:
		return t.StringDefaultValue() != nil, true
	case interface{ BoolDefaultValue() defaults.Bool }:
		return t.BoolDefaultValue() != nil, true
	case interface{ Int64DefaultValue() defaults.Int64 }:
		return t.Int64DefaultValue() != nil, true
	case interface{ Int32DefaultValue() defaults.Int32 }:
		return t.Int32DefaultValue() != nil, true
	case interface{ Float64DefaultValue() defaults.Float64 }:
		return t.Float64DefaultValue() != nil, true
	case interface{ Float32DefaultValue() defaults.Float32 }:
		return t.Float32DefaultValue() != nil, true
	case interface{ NumberDefaultValue() defaults.Number }:
		return t.NumberDefaultValue() != nil, true
	case interface{ ListDefaultValue() defaults.List }:
		return t.ListDefaultValue() != nil, true
	case interface{ SetDefaultValue() defaults.Set }:
		return t.SetDefaultValue() != nil, true
	case interface{ MapDefaultValue() defaults.Map }:
		return t.MapDefaultValue() != nil, true
	case interface{ ObjectDefaultValue() defaults.Object }:
		return t.ObjectDefaultValue() != nil, true
	case interface{ DynamicDefaultValue() defaults.Dynamic }:
		return t.DynamicDefaultValue() != nil, true
	}
	return false, false
}

func modifiersOfKind(e any) bool {
	switch t := e.(type) {
	case interface{ StringPlanModifiers() []planmodifier.String }:
		return len(t.StringPlanModifiers()) > 0
	case interface{ BoolPlanModifiers() []planmodifier.Bool }:
		return len(t.BoolPlanModifiers()) > 0
	case interface{ Int64PlanModifiers() []planmodifier.Int64 }:
		return len(t.Int64PlanModifiers()) > 0
	case interface{ Int32PlanModifiers() []planmodifier.Int32 }:
		return len(t.Int32PlanModifiers()) > 0
	case interface{ Float64PlanModifiers() []planmodifier.Float64 }:
		return len(t.Float64PlanModifiers()) > 0
	case interface{ Float32PlanModifiers() []planmodifier.Float32 }:
		return len(t.Float32PlanModifiers()) > 0
	case interface{ NumberPlanModifiers() []planmodifier.Number }:
		return len(t.NumberPlanModifiers()) > 0
	case interface{ ListPlanModifiers() []planmodifier.List }:
		return len(t.ListPlanModifiers()) > 0
	case interface{ SetPlanModifiers() []planmodifier.Set }:
		return len(t.SetPlanModifiers()) > 0
	case interface{ MapPlanModifiers() []planmodifier.Map }:
		return len(t.MapPlanModifiers()) > 0
	case interface{ ObjectPlanModifiers() []planmodifier.Object }:
		return len(t.ObjectPlanModifiers()) > 0
	case interface{ DynamicPlanModifiers() []planmodifier.Dynamic }:
		return len(t.DynamicPlanModifiers()) > 0
	}
	return false
}

// hasSemanticEquality says whether values of a type (or of its elements)
// compare semantically, which the framework checks after every read: the
// value type implements one of the framework's ...ValuableWithSemanticEquals
// interfaces.
func hasSemanticEquality(t attr.Type) bool {
	if withElements, ok := t.(attr.TypeWithElementType); ok && hasSemanticEquality(withElements.ElementType()) {
		return true
	}
	switch t.ValueType(context.Background()).(type) {
	case basetypes.StringValuableWithSemanticEquals, basetypes.BoolValuableWithSemanticEquals,
		basetypes.Int64ValuableWithSemanticEquals, basetypes.Int32ValuableWithSemanticEquals,
		basetypes.Float64ValuableWithSemanticEquals, basetypes.Float32ValuableWithSemanticEquals,
		basetypes.NumberValuableWithSemanticEquals, basetypes.ListValuableWithSemanticEquals,
		basetypes.SetValuableWithSemanticEquals, basetypes.MapValuableWithSemanticEquals,
		basetypes.ObjectValuableWithSemanticEquals, basetypes.DynamicValuableWithSemanticEquals:
		return true
	}
	return false
}

// defaultOf is a top-level attribute's default, for the kinds the
// provider's schemas use.
func defaultOf(a schema.Attribute) (topDefault, bool, error) {
	switch t := a.(type) {
	case schema.StringAttribute:
		return defaultBy(t.Default, defaults.String.DefaultString, func(r *defaults.StringResponse) (attr.Value, diag.Diagnostics) { return r.PlanValue, r.Diagnostics })
	case schema.BoolAttribute:
		return defaultBy(t.Default, defaults.Bool.DefaultBool, func(r *defaults.BoolResponse) (attr.Value, diag.Diagnostics) { return r.PlanValue, r.Diagnostics })
	case schema.Int64Attribute:
		return defaultBy(t.Default, defaults.Int64.DefaultInt64, func(r *defaults.Int64Response) (attr.Value, diag.Diagnostics) { return r.PlanValue, r.Diagnostics })
	}
	if hasDefault, _ := planBehaviour(a); hasDefault {
		return nil, false, fmt.Errorf("a default on %T is not supported", a)
	}
	return nil, false, nil
}

// defaultBy is defaultOf for one attribute kind: the framework gives each
// kind its own default interface, method, request and response, so the
// kind's method and the way to read its response are passed in. A nil D is
// no default.
func defaultBy[D, Req, Resp any](d D, run func(D, context.Context, Req, *Resp),
	result func(*Resp) (attr.Value, diag.Diagnostics)) (topDefault, bool, error) {
	if any(d) == nil {
		return nil, false, nil
	}
	return func(ctx context.Context) (tftypes.Value, diag.Diagnostics) {
		var req Req
		var resp Resp
		run(d, ctx, req, &resp)
		v, diags := result(&resp)
		return defaultValue(ctx, v, diags)
	}, true, nil
}

// modifierOf runs a top-level attribute's plan modifiers, for the kinds the
// provider's schemas use.
func modifierOf(name string, a schema.Attribute) (topModifier, bool, error) {
	switch t := a.(type) {
	case schema.StringAttribute:
		return modifierBy(t.PlanModifiers, t.CustomType != nil, func(ctx context.Context, in modifierInput) modifierOutput {
			return modifyString(ctx, name, t.PlanModifiers, in)
		})
	case schema.MapAttribute:
		return modifierBy(t.PlanModifiers, t.CustomType != nil, func(ctx context.Context, in modifierInput) modifierOutput {
			return modifyMap(ctx, name, t.ElementType, t.PlanModifiers, in)
		})
	}
	if _, modifiers := planBehaviour(a); modifiers {
		return nil, false, fmt.Errorf("plan modifiers on %T are not supported", a)
	}
	return nil, false, nil
}

// modifierBy is modifierOf for one attribute kind: run applies its
// modifiers; none is no modifier, and a custom type is refused.
func modifierBy[M any](modifiers []M, customType bool, run topModifier) (topModifier, bool, error) {
	if len(modifiers) == 0 {
		return nil, false, nil
	}
	if customType {
		return nil, false, errors.New("plan modifiers on a custom type are not supported")
	}
	return run, true, nil
}

// node finds the attribute or block at a path.
func (d *directSchema) node(p *tftypes.AttributePath) (schemaNode, bool) {
	var shape strings.Builder
	for i, step := range p.Steps() {
		switch s := step.(type) {
		case tftypes.AttributeName:
			if i > 0 {
				shape.WriteByte('.')
			}
			shape.WriteString(string(s))
		default:
			shape.WriteString("[]")
		}
	}
	n, ok := d.nodes[shape.String()]
	return n, ok
}
