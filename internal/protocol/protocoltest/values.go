package protocoltest

import (
	"maps"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Protocol values for tests of the protocol layer and of the provider's
// resources through it.

// DynamicValue encodes v for a request.
func DynamicValue(t testing.TB, typ tftypes.Type, v tftypes.Value) *tfprotov6.DynamicValue {
	t.Helper()
	dv, err := tfprotov6.NewDynamicValue(typ, v)
	if err != nil {
		t.Fatal(err)
	}
	return &dv
}

// Decode decodes a response's value, failing the test otherwise.
func Decode(t testing.TB, objType tftypes.Object, dv *tfprotov6.DynamicValue) tftypes.Value {
	t.Helper()
	v, err := dv.Unmarshal(objType)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Attributes is a copy of an object's attributes (As hands out the value's
// own map).
func Attributes(object tftypes.Value) map[string]tftypes.Value {
	var values map[string]tftypes.Value
	_ = object.As(&values)
	return maps.Clone(values)
}

// WithAttributes is every attribute of an object type, null but those set.
func WithAttributes(t tftypes.Object, set map[string]tftypes.Value) map[string]tftypes.Value {
	values := make(map[string]tftypes.Value, len(t.AttributeTypes))
	for name, typ := range t.AttributeTypes {
		values[name] = tftypes.NewValue(typ, nil)
		if v, ok := set[name]; ok {
			values[name] = v
		}
	}
	return values
}

// WithValue is an object with one attribute replaced.
func WithValue(object tftypes.Value, name string, v tftypes.Value) tftypes.Value {
	values := Attributes(object)
	values[name] = v
	return tftypes.NewValue(object.Type(), values)
}

// ProposedNew is Terraform's proposed new state for a change from prior to
// config: the configuration, with what it leaves null taken from the prior
// state (close enough for the attributes the tests set).
func ProposedNew(config, prior tftypes.Value) tftypes.Value {
	values, priorValues := Attributes(config), Attributes(prior)
	for name, v := range values {
		if v.IsNull() && !priorValues[name].IsNull() {
			values[name] = priorValues[name]
		}
	}
	return tftypes.NewValue(config.Type(), values)
}
