package resourcekit

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
)

// ModelCodec moves a resource's model struct in and out of the Terraform
// object value, for the resources whose every RPC converts the whole model.
// A field tagged tfsdk holds its attribute (an attr.Value of the
// attribute's type); one field of type tfconv.Attributes holds every
// attribute no tagged field takes, the ones only render reads. The fields
// of an embedded struct without a tag count as the model's own, as
// encoding/json promotes them: attributes several models share
// (RenderedAttributes) are declared once.
//
// The framework's Get and Set cannot hold such a field, and they cost more:
// their reflection looks every field's tag up again on every call and
// compiles a regular expression for each (internal/reflect
// isValidFieldName in terraform-plugin-framework v1.19): with
// gpu_workload's 81 attributes that was about a tenth of the provider's CPU
// in an apply or a destroy (bench/README.md). The codec reads the tags once
// per model type and converts each attribute with its own type's
// ValueFromTerraform and ToTerraformValue, which is what the framework ends
// up calling too (through tfconv.AttrValueFrom and TerraformValueFrom,
// which do not build the schema's types again at every level). What it does not expect (a tag the schema lacks, a value
// of another Go type than its field) is a provider bug: an error
// diagnostic, never a panic.
type ModelCodec struct {
	once   sync.Once
	fields []codecField
	// rest is the index of the tfconv.Attributes field (reflect's
	// FieldByIndex) and restTypes the attributes it holds; rest is nil
	// without one.
	rest      []int
	restTypes map[string]attr.Type
	// objType is the schema's object type, from the first call.
	objType tftypes.Object
	err     error
}

type codecField struct {
	name string
	// index is the field's, through embedded structs (FieldByIndex).
	index []int
	typ   attr.Type
}

// schemaTyped is what tfsdk.Config, Plan and State say about their schema.
type schemaTyped interface {
	Type() attr.Type
}

// prepare reads model's tags against the schema once; its error says why
// the two do not line up.
func (c *ModelCodec) prepare(ctx context.Context, schema schemaTyped, model reflect.Type) error {
	c.once.Do(func() { c.err = c.index(ctx, schema, model) })
	return c.err
}

func (c *ModelCodec) index(ctx context.Context, schema schemaTyped, model reflect.Type) error {
	objType, isObject := schema.Type().(attr.TypeWithAttributeTypes)
	tf, isTF := schema.Type().TerraformType(ctx).(tftypes.Object)
	if !isObject || !isTF || model.Kind() != reflect.Struct {
		return fmt.Errorf("model codec: %s is not a struct or the schema not an object", model)
	}
	c.restTypes = maps.Clone(objType.AttributeTypes())
	if err := c.indexFields(model, nil); err != nil {
		return err
	}
	if c.rest == nil && len(c.restTypes) > 0 {
		return fmt.Errorf("model codec: %s has no field for the attributes %v", model, slices.Sorted(maps.Keys(c.restTypes)))
	}
	c.objType = tf
	return nil
}

// indexFields indexes the fields of struct t, which stands at index in the
// model (nil for the model itself), and those of the structs it embeds.
func (c *ModelCodec) indexFields(t reflect.Type, index []int) error {
	for i := range t.NumField() {
		f := t.Field(i)
		at := append(slices.Clone(index), i)
		tag, _, _ := strings.Cut(f.Tag.Get("tfsdk"), ",")
		switch {
		case f.Type == tfconv.AttributesType:
			c.rest = at
			continue
		case f.Anonymous && tag == "" && f.Type.Kind() == reflect.Struct:
			if err := c.indexFields(f.Type, at); err != nil {
				return err
			}
			continue
		case tag == "-" || tag == "":
			continue // not an attribute, as for the framework
		}
		typ, found := c.restTypes[tag]
		if !found {
			return fmt.Errorf("model codec: %s.%s is tagged %q, which the schema does not have", t, f.Name, tag)
		}
		delete(c.restTypes, tag)
		c.fields = append(c.fields, codecField{name: tag, index: at, typ: typ})
	}
	return nil
}

// AttributesTypes is the type of each attribute model's tfconv.Attributes
// field holds.
func (c *ModelCodec) AttributesTypes(ctx context.Context, schema schemaTyped, model any) (map[string]attr.Type, diag.Diagnostics) {
	if err := c.prepare(ctx, schema, reflect.TypeOf(model)); err != nil {
		return nil, codecDiags(err)
	}
	return c.restTypes, nil
}

// Get decodes raw into the model into points to.
func (c *ModelCodec) Get(ctx context.Context, raw tftypes.Value, schema schemaTyped, into any) diag.Diagnostics {
	target := reflect.ValueOf(into).Elem()
	err := c.prepare(ctx, schema, target.Type())
	if err == nil {
		err = c.decode(ctx, raw, target)
	}
	return codecDiags(err)
}

func (c *ModelCodec) decode(ctx context.Context, raw tftypes.Value, target reflect.Value) error {
	var values map[string]tftypes.Value
	if err := raw.As(&values); err != nil {
		return err
	}
	decoded := reflect.New(target.Type()).Elem()
	for _, f := range c.fields {
		v, err := tfconv.AttrValueFrom(ctx, f.typ, values[f.name])
		if err != nil {
			return err
		}
		value := reflect.ValueOf(v)
		field := decoded.FieldByIndex(f.index)
		if !value.Type().AssignableTo(field.Type()) {
			return fmt.Errorf("%s: %s is not a %s", f.name, value.Type(), field.Type())
		}
		field.Set(value)
	}
	if c.rest != nil {
		rest := make(tfconv.Attributes, len(c.restTypes))
		for name, typ := range c.restTypes {
			v, err := tfconv.AttrValueFrom(ctx, typ, values[name])
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			rest[name] = v
		}
		decoded.FieldByIndex(c.rest).Set(reflect.ValueOf(rest))
	}
	target.Set(decoded)
	return nil
}

// Encode is the model from points to as the schema's object value.
func (c *ModelCodec) Encode(ctx context.Context, schema schemaTyped, from any) (tftypes.Value, diag.Diagnostics) {
	source := reflect.ValueOf(from).Elem()
	if err := c.prepare(ctx, schema, source.Type()); err != nil {
		return tftypes.Value{}, codecDiags(err)
	}
	values := make(map[string]tftypes.Value, len(c.objType.AttributeTypes))
	for _, f := range c.fields {
		field := source.FieldByIndex(f.index)
		v, isValue := field.Interface().(attr.Value)
		if !isValue {
			return tftypes.Value{}, codecDiags(fmt.Errorf("%s: %s is not an attr.Value", f.name, field.Type()))
		}
		if err := c.put(ctx, values, f.name, v); err != nil {
			return tftypes.Value{}, codecDiags(err)
		}
	}
	if c.rest != nil {
		rest, _ := source.FieldByIndex(c.rest).Interface().(tfconv.Attributes)
		for name := range c.restTypes {
			if err := c.put(ctx, values, name, rest[name]); err != nil {
				return tftypes.Value{}, codecDiags(err)
			}
		}
	}
	if err := tftypes.ValidateValue(c.objType, values); err != nil {
		return tftypes.Value{}, codecDiags(err)
	}
	return tftypes.NewValue(c.objType, values), nil
}

// put sets values[name] to v's Terraform value, checking its type.
func (c *ModelCodec) put(ctx context.Context, values map[string]tftypes.Value, name string, v attr.Value) error {
	if v == nil {
		return fmt.Errorf("%s: no value", name)
	}
	tv, err := tfconv.TerraformValueFrom(ctx, v, c.objType.AttributeTypes[name])
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if want := c.objType.AttributeTypes[name]; !tv.Type().UsableAs(want) {
		return fmt.Errorf("%s: a %s is not a %s", name, tv.Type(), want)
	}
	values[name] = tv
	return nil
}

func codecDiags(err error) diag.Diagnostics {
	if err == nil {
		return nil
	}
	return diag.Diagnostics{diag.NewErrorDiagnostic("Provider bug: model conversion", err.Error())}
}

// codecs holds one ModelCodec per model type.
var codecs sync.Map

// CodecOf is the codec of model type M.
func CodecOf[M any]() *ModelCodec {
	t := reflect.TypeFor[M]()
	if c, ok := codecs.Load(t); ok {
		return c.(*ModelCodec) //nolint:forcetypeassert // only CodecOf stores, and only *ModelCodec
	}
	c, _ := codecs.LoadOrStore(t, &ModelCodec{})
	return c.(*ModelCodec) //nolint:forcetypeassert // as above
}

// Source is what a resource's model is read from.
type Source interface {
	tfsdk.Config | tfsdk.Plan | tfsdk.State
}

// Get decodes a configuration, plan or state into a model of type M (its
// codec's rules), appending what went wrong to diags; false once diags hold
// an error, when the method returns and the framework reports them.
func Get[M any, D Source](ctx context.Context, from D, diags *diag.Diagnostics) (M, bool) {
	var m M
	var raw tftypes.Value
	var schema schemaTyped
	switch d := any(from).(type) {
	case tfsdk.Config:
		raw, schema = d.Raw, d.Schema
	case tfsdk.Plan:
		raw, schema = d.Raw, d.Schema
	case tfsdk.State:
		raw, schema = d.Raw, d.Schema
	}
	diags.Append(CodecOf[M]().Get(ctx, raw, schema, &m)...)
	return m, !diags.HasError()
}

// SetState writes the model m points to into state; on an error the state
// stays as it was.
func SetState[M any](ctx context.Context, state *tfsdk.State, m *M) diag.Diagnostics {
	return set(ctx, state.Schema, &state.Raw, m)
}

// SetPlan writes the model m points to into plan, as SetState.
func SetPlan[M any](ctx context.Context, plan *tfsdk.Plan, m *M) diag.Diagnostics {
	return set(ctx, plan.Schema, &plan.Raw, m)
}

func set[M any](ctx context.Context, schema schemaTyped, raw *tftypes.Value, m *M) diag.Diagnostics {
	v, diags := CodecOf[M]().Encode(ctx, schema, m)
	if !diags.HasError() {
		*raw = v
	}
	return diags
}
