package tfconv

import (
	"reflect"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// Attributes holds the top-level attributes of a resource that only render
// reads: a model keeps them here, by attribute name, instead of a field
// each, and DecodeInto hands them to render's struct by Decode's name rules.
// A new attribute of that kind is then its schema entry and its render
// field, with no model field and no conversion line; the attributes the
// provider's own logic reads keep their model fields.
//
// The model codec (resourcekit.ModelCodec) fills it with every attribute no
// tagged field takes, so the model and the schema cannot drift apart.
type Attributes map[string]attr.Value

// DecodeInto converts every attribute into the field of *target that
// Decode would fill; an attribute with no field is a provider bug (an
// error in c.Diags), unknown ones mark c unknown.
func (a Attributes) DecodeInto(c *Converter, target any) {
	if err := decodeFields(c, nil, a, reflect.ValueOf(target).Elem()); err != nil {
		c.Diags.AddError("Provider bug: attribute conversion", err.Error())
	}
}

// EncodeAttributes is DecodeInto's inverse, for import: the attributes of
// attrTypes from render's struct v, zero values null (as in a configuration
// that leaves them out).
func EncodeAttributes(attrTypes map[string]attr.Type, v any, diags *diag.Diagnostics) Attributes {
	obj, err := forImport.object(attrTypes, reflect.Indirect(reflect.ValueOf(v)))
	if err != nil {
		diags.AddError("Provider bug: attribute conversion", err.Error())
		return nil
	}
	return obj.Attributes()
}

// AttributesType is the Go type of Attributes, which the model codec
// recognises.
var AttributesType = reflect.TypeFor[Attributes]()
