package protocol

import (
	"math/big"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// equalValues is a.Equal(b). tftypes' Equal walks both values and looks
// every step up again from the root, building an attribute path per
// value: 7% of the allocations of a refresh plan's RPCs, where the plan
// compares each resource's planned state with its prior one and nearly
// all are the same (bench/README.md, issue #45). Values identical in every
// part are Equal, so that is checked first; any difference, however
// small, is left to Equal, which knows when two differently written
// values are still equal (a set's elements in another order).
func equalValues(a, b tftypes.Value) bool {
	if a.Type() != nil && b.Type() != nil && a.Type().Equal(b.Type()) && identicalValues(a, b, a.Type()) {
		return true
	}
	return a.Equal(b)
}

// identicalValues reports whether a and b, both of type t (the schema's:
// a dynamic part holds a type of its own), are written the same: known,
// null, each primitive, and every element in order.
func identicalValues(a, b tftypes.Value, t tftypes.Type) bool {
	if t.Is(tftypes.DynamicPseudoType) {
		if !a.Type().Equal(b.Type()) {
			return false
		}
		t = a.Type()
	}
	if a.IsKnown() != b.IsKnown() || a.IsNull() != b.IsNull() {
		return false
	}
	if !a.IsKnown() || a.IsNull() {
		return true
	}
	switch typ := t.(type) {
	case tftypes.List:
		return identicalElements(a, b, func(int) tftypes.Type { return typ.ElementType })
	case tftypes.Set:
		return identicalElements(a, b, func(int) tftypes.Type { return typ.ElementType })
	case tftypes.Tuple:
		return identicalElements(a, b, func(i int) tftypes.Type { return typ.ElementTypes[i] })
	case tftypes.Map:
		return identicalAttributes(a, b, func(string) tftypes.Type { return typ.ElementType })
	case tftypes.Object:
		return identicalAttributes(a, b, func(name string) tftypes.Type { return typ.AttributeTypes[name] })
	}
	return identicalPrimitives(a, b, t)
}

func identicalElements(a, b tftypes.Value, typeAt func(int) tftypes.Type) bool {
	var x, y []tftypes.Value
	if a.As(&x) != nil || b.As(&y) != nil || len(x) != len(y) {
		return false
	}
	for i := range x {
		if !identicalValues(x[i], y[i], typeAt(i)) {
			return false
		}
	}
	return true
}

func identicalAttributes(a, b tftypes.Value, typeOf func(string) tftypes.Type) bool {
	var x, y map[string]tftypes.Value
	if a.As(&x) != nil || b.As(&y) != nil || len(x) != len(y) {
		return false
	}
	for name, v := range x {
		w, ok := y[name]
		if !ok || !identicalValues(v, w, typeOf(name)) {
			return false
		}
	}
	return true
}

func identicalPrimitives(a, b tftypes.Value, t tftypes.Type) bool {
	switch {
	case t.Is(tftypes.String):
		var x, y string
		return a.As(&x) == nil && b.As(&y) == nil && x == y
	case t.Is(tftypes.Bool):
		var x, y bool
		return a.As(&x) == nil && b.As(&y) == nil && x == y
	case t.Is(tftypes.Number):
		var x, y big.Float
		return a.As(&x) == nil && b.As(&y) == nil && x.Cmp(&y) == 0
	}
	return false
}
