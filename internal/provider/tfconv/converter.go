package tfconv

import (
	"context"
	"reflect"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// Converter turns Terraform values into render inputs, collecting
// diagnostics. Unknown values become zero values: render skips rules that
// need them, and the manifest stays unknown until they are known.
type Converter struct {
	Ctx     context.Context
	Diags   diag.Diagnostics
	Unknown bool
	// Hooks decode the Go types Decode cannot by name alone, by type.
	Hooks map[reflect.Type]DecodeHook
}

func (c *Converter) Str(v types.String) string {
	if v.IsUnknown() {
		c.Unknown = true
	}
	return v.ValueString()
}

func (c *Converter) Int64(v types.Int64) int64 {
	if v.IsUnknown() {
		c.Unknown = true
	}
	return v.ValueInt64()
}

// Strings converts a list element by element: an unknown element (a value
// from another resource) makes the whole list unknown rather than failing
// the conversion, so plans stay possible.
func (c *Converter) Strings(v types.List) []string {
	return convertList(c, v, func(s types.String) string { return s.ValueString() })
}

// convertList converts a list's elements with convert; an unknown list or
// element marks the conversion unknown and gives nil.
func convertList[E attr.Value, T any](c *Converter, v types.List, convert func(E) T) []T {
	if c.unknownOrNull(v) {
		return nil
	}
	out := make([]T, 0, len(v.Elements()))
	for _, e := range v.Elements() {
		typed, ok := known[E](c, e)
		if !ok {
			return nil
		}
		out = append(out, convert(typed))
	}
	return out
}

// unknownOrNull: a null collection converts to nil; an unknown one too, and
// marks the conversion unknown.
func (c *Converter) unknownOrNull(v attr.Value) bool {
	if v.IsUnknown() {
		c.Unknown = true
	}
	return v.IsUnknown() || v.IsNull()
}

// known is an element as its value type; false (and the conversion marked
// unknown) for an unknown element or one of another type.
func known[E attr.Value](c *Converter, e attr.Value) (E, bool) {
	typed, ok := e.(E)
	if !ok || typed.IsUnknown() {
		c.Unknown = true
		return typed, false
	}
	return typed, true
}

// Object decodes a nested object; it reports false when null or unknown.
func (c *Converter) Object(v types.Object, target any) bool {
	if v.IsUnknown() {
		c.Unknown = true
		return false
	}
	if v.IsNull() {
		return false
	}
	c.Diags.Append(v.As(c.Ctx, target, basetypes.ObjectAsOptions{UnhandledUnknownAsEmpty: true})...)
	return true
}
