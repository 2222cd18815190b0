package provider

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/defaults"
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
	nodes     map[string]schemaNode
	defaults  map[string]topDefault
	modifiers map[string]topModifier
}

// schemaNode is one attribute or block.
type schemaNode struct {
	block           bool // a block: never marked unknown
	collectionBlock bool // a list or set block: the framework passes empty as null
	computed        bool
	hasDefault      bool
	dynamic         bool
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
	_, dynamic := a.GetType().(basetypes.DynamicTypable)
	d.nodes[shape] = schemaNode{computed: a.IsComputed(), hasDefault: hasField(a, "Default"), dynamic: dynamic}
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
		d.nodes[shape] = schemaNode{block: true, collectionBlock: true}
		return d.addBlockContent(shape+"[]", n.NestedObject.Attributes, n.NestedObject.Blocks, n.NestedObject)
	case schema.SetNestedBlock:
		d.nodes[shape] = schemaNode{block: true, collectionBlock: true}
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
	if hasField(object, "PlanModifiers") {
		return fmt.Errorf("nested object plan modifiers are not supported")
	}
	return nil
}

// hasPlanBehaviour says whether a schema element has a default or plan
// modifiers. Every attribute and block type of the framework keeps them in
// fields of these names; reading them once here spares a case per type.
func hasPlanBehaviour(element any) bool {
	return hasField(element, "Default") || hasField(element, "PlanModifiers")
}

// hasSemanticEquality says whether values of a type (or of its elements)
// compare semantically, which the framework checks after every read: a
// method named like the framework's StringSemanticEquals and its siblings.
func hasSemanticEquality(t attr.Type) bool {
	if withElements, ok := t.(attr.TypeWithElementType); ok && hasSemanticEquality(withElements.ElementType()) {
		return true
	}
	v := reflect.TypeOf(t.ValueType(context.Background()))
	for i := range v.NumMethod() {
		if strings.HasSuffix(v.Method(i).Name, "SemanticEquals") {
			return true
		}
	}
	return false
}

// hasField says whether a struct has a non-empty field of that name.
func hasField(element any, name string) bool {
	v := reflect.ValueOf(element)
	if v.Kind() != reflect.Struct {
		return false
	}
	f := v.FieldByName(name)
	if !f.IsValid() {
		return false
	}
	switch f.Kind() {
	case reflect.Slice, reflect.Map:
		return f.Len() > 0
	case reflect.Interface, reflect.Pointer:
		return !f.IsNil()
	}
	return false
}

// defaultOf is a top-level attribute's default, for the kinds the
// provider's schemas use.
func defaultOf(a schema.Attribute) (topDefault, bool, error) {
	switch t := a.(type) {
	case schema.StringAttribute:
		if t.Default == nil {
			return nil, false, nil
		}
		return func(ctx context.Context) (tftypes.Value, diag.Diagnostics) {
			var resp defaults.StringResponse
			t.Default.DefaultString(ctx, defaults.StringRequest{}, &resp)
			return defaultValue(ctx, resp.PlanValue, resp.Diagnostics)
		}, true, nil
	case schema.BoolAttribute:
		if t.Default == nil {
			return nil, false, nil
		}
		return func(ctx context.Context) (tftypes.Value, diag.Diagnostics) {
			var resp defaults.BoolResponse
			t.Default.DefaultBool(ctx, defaults.BoolRequest{}, &resp)
			return defaultValue(ctx, resp.PlanValue, resp.Diagnostics)
		}, true, nil
	case schema.Int64Attribute:
		if t.Default == nil {
			return nil, false, nil
		}
		return func(ctx context.Context) (tftypes.Value, diag.Diagnostics) {
			var resp defaults.Int64Response
			t.Default.DefaultInt64(ctx, defaults.Int64Request{}, &resp)
			return defaultValue(ctx, resp.PlanValue, resp.Diagnostics)
		}, true, nil
	}
	if hasField(a, "Default") {
		return nil, false, fmt.Errorf("a default on %T is not supported", a)
	}
	return nil, false, nil
}

// modifierOf runs a top-level attribute's plan modifiers, for the kinds the
// provider's schemas use.
func modifierOf(name string, a schema.Attribute) (topModifier, bool, error) {
	switch t := a.(type) {
	case schema.StringAttribute:
		if len(t.PlanModifiers) == 0 {
			return nil, false, nil
		}
		if t.CustomType != nil {
			return nil, false, fmt.Errorf("plan modifiers on a custom type are not supported")
		}
		return func(ctx context.Context, in modifierInput) modifierOutput {
			return modifyString(ctx, name, t.PlanModifiers, in)
		}, true, nil
	case schema.MapAttribute:
		if len(t.PlanModifiers) == 0 {
			return nil, false, nil
		}
		if t.CustomType != nil {
			return nil, false, fmt.Errorf("plan modifiers on a custom type are not supported")
		}
		return func(ctx context.Context, in modifierInput) modifierOutput {
			return modifyMap(ctx, name, t.ElementType, t.PlanModifiers, in)
		}, true, nil
	}
	if hasField(a, "PlanModifiers") {
		return nil, false, fmt.Errorf("plan modifiers on %T are not supported", a)
	}
	return nil, false, nil
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
