package protocol

import (
	"context"
	"fmt"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// withDefaults sets each top-level default where the configuration leaves
// the attribute null.
func (d *directSchema) withDefaults(ctx context.Context, config, planned tftypes.Value) (tftypes.Value, diag.Diagnostics) {
	if len(d.defaults) == 0 {
		return planned, nil
	}
	configured, values := objectAttributes(config), objectAttributes(planned)
	var diags diag.Diagnostics
	for name, def := range d.defaults {
		if v, ok := configured[name]; ok && !v.IsNull() {
			continue
		}
		value, defaultDiags := def(ctx)
		if diags.Append(defaultDiags...); defaultDiags.HasError() {
			return planned, diags
		}
		values[name] = value
	}
	return tftypes.NewValue(planned.Type(), values), diags
}

// markComputedNilsAsUnknown marks a computed attribute without a default
// unknown where the configuration leaves it null: the provider decides it
// at apply. The framework's rule, with the attribute found in the index.
func (d *directSchema) markComputedNilsAsUnknown(config tftypes.Value) func(*tftypes.AttributePath, tftypes.Value) (tftypes.Value, error) {
	return func(p *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if len(p.Steps()) == 0 {
			return v, nil
		}
		node, ok := d.node(p)
		if !ok || node.block || !node.computed || node.hasDefault {
			return v, nil
		}
		found, _, err := tftypes.WalkAttributePath(config, p)
		if err != nil && err != tftypes.ErrInvalidStep {
			return v, fmt.Errorf("walking the configuration to %s: %w", p, err)
		}
		configured, ok := found.(tftypes.Value)
		if !ok {
			return v, fmt.Errorf("unexpected type %T in the configuration at %s", found, p)
		}
		if !configured.IsNull() {
			return v, nil
		}
		if node.dynamic {
			return tftypes.NewValue(tftypes.DynamicPseudoType, tftypes.UnknownValue), nil
		}
		return tftypes.NewValue(v.Type(), tftypes.UnknownValue), nil
	}
}

// modify runs the top-level plan modifiers, each on the plan as it was
// before any of them (the framework's order over attributes is a map's).
func (d *directSchema) modify(ctx context.Context, config, prior, planned tftypes.Value) (tftypes.Value, path.Paths, diag.Diagnostics) {
	if len(d.modifiers) == 0 {
		return planned, nil, nil
	}
	configured, planValues, stateValues := objectAttributes(config), objectAttributes(planned), objectAttributes(prior)
	modified := maps.Clone(planValues)
	in := modifierInput{
		config: tfsdk.Config{Raw: config, Schema: d.schema},
		plan:   tfsdk.Plan{Raw: planned, Schema: d.schema},
		state:  tfsdk.State{Raw: prior, Schema: d.schema},
	}
	var replace path.Paths
	var diags diag.Diagnostics
	for name, modifier := range d.modifiers {
		t := d.attributeTypes[name]
		in.configValue, in.planValue, in.stateValue = valueOrNull(configured, name, t), valueOrNull(planValues, name, t), valueOrNull(stateValues, name, t)
		out := modifier(ctx, in)
		diags.Append(out.diags...)
		if out.requiresReplace {
			replace = append(replace, path.Root(name))
		}
		if diags.HasError() {
			return planned, replace, diags
		}
		modified[name] = out.planValue
	}
	return tftypes.NewValue(planned.Type(), modified), replace, diags
}

// nullifyCollectionBlocks turns empty list and set blocks into null, as
// the framework does to every value it reads.
func (d *directSchema) nullifyCollectionBlocks(v tftypes.Value) tftypes.Value {
	out, _ := d.blocks.rewriteCollections(v, emptyToNull)
	return out
}

// reifyNullCollectionBlocks turns null list and set blocks back into empty
// ones, as the framework does to every value it returns.
func (d *directSchema) reifyNullCollectionBlocks(v tftypes.Value) tftypes.Value {
	out, _ := d.blocks.rewriteCollections(v, nullToEmpty)
	return out
}

// objectAttributes are a copy of a known object's attribute values (As
// hands out the value's own map); empty otherwise.
func objectAttributes(v tftypes.Value) map[string]tftypes.Value {
	var values map[string]tftypes.Value
	if v.IsNull() || !v.IsKnown() || v.As(&values) != nil {
		return map[string]tftypes.Value{}
	}
	return maps.Clone(values)
}

func valueOrNull(values map[string]tftypes.Value, name string, t tftypes.Type) tftypes.Value {
	if v, ok := values[name]; ok {
		return v
	}
	return tftypes.NewValue(t, nil)
}

// terraformPath is a framework path in the protocol's terms.
func terraformPath(ctx context.Context, p path.Path) (*tftypes.AttributePath, diag.Diagnostics) {
	var steps []tftypes.AttributePathStep
	for _, step := range p.Steps() {
		switch s := step.(type) {
		case path.PathStepAttributeName:
			steps = append(steps, tftypes.AttributeName(string(s)))
		case path.PathStepElementKeyInt:
			steps = append(steps, tftypes.ElementKeyInt(int64(s)))
		case path.PathStepElementKeyString:
			steps = append(steps, tftypes.ElementKeyString(string(s)))
		case path.PathStepElementKeyValue:
			v, err := s.ToTerraformValue(ctx)
			if err != nil {
				return nil, diag.Diagnostics{diag.NewErrorDiagnostic("Unable to Convert Attribute Path", fmt.Sprintf("%s: %s", p, err))}
			}
			steps = append(steps, tftypes.ElementKeyValue(v))
		}
	}
	return tftypes.NewAttributePathWithSteps(steps), nil
}

// protoDiagnostics are diagnostics in the protocol's terms.
func protoDiagnostics(ctx context.Context, diags diag.Diagnostics) []*tfprotov6.Diagnostic {
	var out []*tfprotov6.Diagnostic
	for _, d := range diags {
		pd := &tfprotov6.Diagnostic{Summary: d.Summary(), Detail: d.Detail(), Severity: protoSeverity(d.Severity())}
		if withPath, ok := d.(diag.DiagnosticWithPath); ok {
			attribute, pathDiags := terraformPath(ctx, withPath.Path())
			if pathDiags.HasError() {
				out = append(out, protoDiagnostics(ctx, pathDiags)...)
			}
			pd.Attribute = attribute
		}
		out = append(out, pd)
	}
	return out
}

func protoSeverity(s diag.Severity) tfprotov6.DiagnosticSeverity {
	switch s {
	case diag.SeverityError:
		return tfprotov6.DiagnosticSeverityError
	case diag.SeverityWarning:
		return tfprotov6.DiagnosticSeverityWarning
	}
	return tfprotov6.DiagnosticSeverityInvalid
}
