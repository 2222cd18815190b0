package gpuworkload

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// modelCodec moves a resource's model struct (fields tagged tfsdk, each an
// attr.Value of its attribute's type) in and out of the Terraform object
// value, for the resources whose every RPC converts the whole model.
//
// The framework's Get and Set do the same through its reflection, which
// looks every field's tag up again on every call and compiles a regular
// expression for each (internal/reflect isValidFieldName in
// terraform-plugin-framework v1.19): with gpu_workload's 81 attributes that
// was about a tenth of the provider's CPU in an apply or a destroy
// (bench/README.md). The codec reads the tags once per model type and
// converts each attribute with its own type's ValueFromTerraform and
// ToTerraformValue, which is what the framework ends up calling too.
//
// Anything it does not expect (a value of another Go type than the field,
// a type mismatch) makes it fall back to the framework's Get or Set, so its
// answer is the framework's or the framework's own diagnostics.
type ModelCodec struct {
	once   sync.Once
	fields []codecField
	// objType is the schema's object type, from the first call.
	objType tftypes.Object
	ok      bool
}

type codecField struct {
	name  string
	index int
	typ   attr.Type
}

// schemaTyped is what tfsdk.Config, Plan and State say about their schema.
type schemaTyped interface {
	Type() attr.Type
}

// prepare reads model's tags against the schema once; ok is false (and the
// codec always falls back) when they do not line up one to one.
func (c *ModelCodec) prepare(ctx context.Context, schema schemaTyped, model reflect.Type) bool {
	c.once.Do(func() {
		objType, isObject := schema.Type().(attr.TypeWithAttributeTypes)
		if !isObject || model.Kind() != reflect.Struct {
			return
		}
		types := objType.AttributeTypes()
		tf, isTF := objType.TerraformType(ctx).(tftypes.Object)
		if !isTF {
			return
		}
		for i := range model.NumField() {
			name, _, _ := strings.Cut(model.Field(i).Tag.Get("tfsdk"), ",")
			if name == "-" {
				continue // not an attribute, as for the framework
			}
			typ, found := types[name]
			if !found {
				return
			}
			c.fields = append(c.fields, codecField{name: name, index: i, typ: typ})
		}
		if len(c.fields) != len(types) {
			c.fields = nil
			return
		}
		c.objType, c.ok = tf, true
	})
	return c.ok
}

// get decodes raw into the model into points to, or calls fallback.
func (c *ModelCodec) Get(ctx context.Context, raw tftypes.Value, schema schemaTyped, into any, fallback func() diag.Diagnostics) diag.Diagnostics {
	target := reflect.ValueOf(into).Elem()
	if !c.prepare(ctx, schema, target.Type()) || c.decode(ctx, raw, target) != nil {
		return fallback()
	}
	return nil
}

func (c *ModelCodec) decode(ctx context.Context, raw tftypes.Value, target reflect.Value) error {
	var values map[string]tftypes.Value
	if err := raw.As(&values); err != nil {
		return err
	}
	decoded := reflect.New(target.Type()).Elem()
	for _, f := range c.fields {
		v, err := f.typ.ValueFromTerraform(ctx, values[f.name])
		if err != nil {
			return err
		}
		value := reflect.ValueOf(v)
		field := decoded.Field(f.index)
		if !value.Type().AssignableTo(field.Type()) {
			return fmt.Errorf("%s: %s is not a %s", f.name, value.Type(), field.Type())
		}
		field.Set(value)
	}
	target.Set(decoded)
	return nil
}

// encode is the model from points to as the schema's object value; ok is
// false when the codec cannot (the caller then uses the framework's Set).
func (c *ModelCodec) Encode(ctx context.Context, schema schemaTyped, from any) (tftypes.Value, bool) {
	source := reflect.ValueOf(from).Elem()
	if !c.prepare(ctx, schema, source.Type()) {
		return tftypes.Value{}, false
	}
	values := make(map[string]tftypes.Value, len(c.fields))
	for _, f := range c.fields {
		v, isValue := source.Field(f.index).Interface().(attr.Value)
		if !isValue {
			return tftypes.Value{}, false
		}
		tv, err := v.ToTerraformValue(ctx)
		if err != nil || !tv.Type().UsableAs(c.objType.AttributeTypes[f.name]) {
			return tftypes.Value{}, false
		}
		values[f.name] = tv
	}
	if err := tftypes.ValidateValue(c.objType, values); err != nil {
		return tftypes.Value{}, false
	}
	return tftypes.NewValue(c.objType, values), true
}

// workloadCodec converts gpu_workload's model, on every RPC.
var WorkloadCodec ModelCodec

// getWorkload reads a gpu_workload configuration, plan or state.
func GetWorkload(ctx context.Context, data interface {
	schemaData
	Get(context.Context, any) diag.Diagnostics
}, into *WorkloadModel) diag.Diagnostics {
	raw, schema := data.raw()
	diags := WorkloadCodec.Get(ctx, raw, schema, into, func() diag.Diagnostics { return data.Get(ctx, into) })
	into.Manifest = resourcekit.JoinManifests(into.Manifests)
	return diags
}

// setWorkloadState writes a gpu_workload state.
func setWorkloadState(ctx context.Context, state *tfsdk.State, m *WorkloadModel) diag.Diagnostics {
	return setWorkload(ctx, state.Schema, &state.Raw, state.Set, m)
}

// setWorkloadPlan writes a gpu_workload plan.
func setWorkloadPlan(ctx context.Context, plan *tfsdk.Plan, m *WorkloadModel) diag.Diagnostics {
	return setWorkload(ctx, plan.Schema, &plan.Raw, plan.Set, m)
}

// setWorkload writes m into a plan's or state's raw value through the
// codec, or with set (the framework's reflection) where the codec cannot.
func setWorkload(ctx context.Context, schema schemaTyped, raw *tftypes.Value, set func(context.Context, any) diag.Diagnostics,
	m *WorkloadModel) diag.Diagnostics {
	m.WithManifests()
	if v, ok := WorkloadCodec.Encode(ctx, schema, m); ok {
		*raw = v
		return nil
	}
	return set(ctx, m)
}

// schemaData is a tfsdk.Config, Plan or State as the codec reads it.
type schemaData interface {
	raw() (tftypes.Value, schemaTyped)
}

type configData struct{ tfsdk.Config }
type planData struct{ tfsdk.Plan }
type StateData struct{ tfsdk.State }

func (d configData) raw() (tftypes.Value, schemaTyped) { return d.Raw, d.Schema }
func (d planData) raw() (tftypes.Value, schemaTyped)   { return d.Raw, d.Schema }
func (d StateData) raw() (tftypes.Value, schemaTyped)  { return d.Raw, d.Schema }
