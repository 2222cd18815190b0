package protocol

import (
	"context"
	"fmt"
	"math/big"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// The configuration checks: two checks of the raw configuration, for
// mistakes the framework turns into errors that blame the provider and
// point at no line:
//   - a fraction in an integer attribute: Terraform types integer
//     attributes as numbers, so `count = 1.5` reaches the provider, and the
//     framework's conversion fails with "This is always an error in the
//     provider";
//   - a null element in a list, set or map (`labels = { team = null }`),
//     which the framework's conversion would otherwise turn into "" or an
//     empty object without a word.
//
// Both answer with the attribute and what is allowed.

// typedSchema is what the check needs of a resource, data source or
// provider schema.
type typedSchema interface {
	Type() attr.Type
	TypeAtTerraformPath(context.Context, *tftypes.AttributePath) (attr.Type, error)
}

// configProblems walks the configuration once for both checks.
func configProblems(ctx context.Context, schema typedSchema, config *tfprotov6.DynamicValue) []*tfprotov6.Diagnostic {
	if schema == nil || config == nil {
		return nil
	}
	value, err := config.Unmarshal(schema.Type().TerraformType(ctx))
	if err != nil {
		return nil // the framework reports what is wrong with it
	}
	return configProblemsIn(ctx, schema, value)
}

// configProblemsIn is configProblems on a configuration already read.
func configProblemsIn(ctx context.Context, schema typedSchema, value tftypes.Value) []*tfprotov6.Diagnostic {
	var diags []*tfprotov6.Diagnostic
	// Walk fails only when the callback does (this one never does) or a
	// value does not hold what its type says, which Unmarshal never builds.
	_ = tftypes.Walk(value, func(p *tftypes.AttributePath, v tftypes.Value) (bool, error) {
		if d := nullElement(ctx, schema, p, v); d != nil {
			diags = append(diags, d)
		}
		if d := fraction(ctx, schema, p, v); d != nil {
			diags = append(diags, d)
		}
		return true, nil
	})
	return diags
}

// fraction reports a known number that is not a whole number, or does not
// fit in 64 bits, where the schema has an integer attribute or element.
func fraction(ctx context.Context, schema typedSchema, p *tftypes.AttributePath, v tftypes.Value) *tfprotov6.Diagnostic {
	if !v.Type().Is(tftypes.Number) || !v.IsKnown() || v.IsNull() || !isIntegerAttribute(ctx, schema, p) {
		return nil
	}
	var n big.Float
	if err := v.As(&n); err != nil || isInt64(&n) {
		return nil
	}
	return &tfprotov6.Diagnostic{
		Severity:  tfprotov6.DiagnosticSeverityError,
		Summary:   "Not a whole number",
		Detail:    fmt.Sprintf("%s takes a whole number, got %s.", readablePath(p), n.Text('g', -1)),
		Attribute: p,
	}
}

// nullElement reports a null element of a list, set or map attribute.
// Dynamic attributes (Helm values, where null means "delete this key") are
// left alone: their paths do not resolve to a collection type.
func nullElement(ctx context.Context, schema typedSchema, p *tftypes.AttributePath, v tftypes.Value) *tfprotov6.Diagnostic {
	if !v.IsNull() || len(p.Steps()) == 0 {
		return nil
	}
	if _, isName := p.LastStep().(tftypes.AttributeName); isName {
		return nil
	}
	parent, err := schema.TypeAtTerraformPath(ctx, p.WithoutLastStep())
	if _, collection := parent.(attr.TypeWithElementType); err != nil || !collection {
		return nil
	}
	return &tfprotov6.Diagnostic{
		Severity: tfprotov6.DiagnosticSeverityError,
		Summary:  "Null element",
		Detail: fmt.Sprintf("%s is null, which this attribute does not take. Allowed: a value, or leave the element out, "+
			"e.g. with a for expression: [for x in local.xs : x if x != null] or { for k, v in local.m : k => v if v != null }.",
			readablePath(p)),
		Attribute: p,
	}
}

// isIntegerAttribute reports whether the schema types the path as an int64
// attribute or element; a path it cannot resolve (dynamic values) is not.
func isIntegerAttribute(ctx context.Context, schema typedSchema, p *tftypes.AttributePath) bool {
	t, err := schema.TypeAtTerraformPath(ctx, p)
	return err == nil && t.Equal(types.Int64Type)
}

// readablePath writes a path as configurations do: gpu.count, ports[1].
func readablePath(p *tftypes.AttributePath) string {
	var b strings.Builder
	for _, step := range p.Steps() {
		switch s := step.(type) {
		case tftypes.AttributeName:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(string(s))
		case tftypes.ElementKeyInt:
			fmt.Fprintf(&b, "[%d]", int64(s))
		case tftypes.ElementKeyString:
			fmt.Fprintf(&b, "[%q]", string(s))
		}
	}
	return b.String()
}

func isInt64(n *big.Float) bool {
	if !n.IsInt() {
		return false
	}
	_, accuracy := n.Int64()
	return accuracy == big.Exact
}
