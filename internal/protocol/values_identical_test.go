package protocol

import (
	"math/rand/v2"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// equalValues answers as tftypes' Equal does: for a value and its copy,
// for two random values, for a value and the same with one part changed,
// and for a set written in another order (not identical, still equal).
// The types hold no dynamic value inside a set: tftypes' Equal fails to
// walk a set whose elements hold dynamic values of different types, and
// says such a value differs from itself.
func TestEqualValues_sameAsTFTypes(t *testing.T) {
	leaf := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"s": tftypes.String, "n": tftypes.Number, "b": tftypes.Bool}}
	typ := tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"list": tftypes.List{ElementType: leaf}, "set": tftypes.Set{ElementType: leaf},
		"map":     tftypes.Map{ElementType: tftypes.List{ElementType: tftypes.Number}},
		"tuple":   tftypes.Tuple{ElementTypes: []tftypes.Type{tftypes.String, leaf}},
		"dynamic": tftypes.DynamicPseudoType, "leaf": leaf,
	}}
	r := rand.New(rand.NewPCG(45, 7))
	for i := range 3000 {
		a := randomValue(r, typ, 0)
		for _, b := range []tftypes.Value{a.Copy(), randomValue(r, typ, 0), withOneChange(r, a), withSetReversed(a)} {
			if got, want := equalValues(a, b), a.Equal(b); got != want {
				t.Fatalf("pair %d: equalValues says %v, tftypes %v:\n%v\n%v", i, got, want, a, b)
			}
		}
	}
}

// withOneChange is v with one string, number or bool changed, or v when
// it has none known.
func withOneChange(r *rand.Rand, v tftypes.Value) tftypes.Value {
	var primitives []*tftypes.AttributePath
	_ = tftypes.Walk(v, func(p *tftypes.AttributePath, e tftypes.Value) (bool, error) {
		if e.IsKnown() && !e.IsNull() && (e.Type().Is(tftypes.String) || e.Type().Is(tftypes.Bool) || e.Type().Is(tftypes.Number)) {
			primitives = append(primitives, p)
		}
		return true, nil
	})
	if len(primitives) == 0 {
		return v
	}
	target := primitives[r.IntN(len(primitives))]
	changed, _ := tftypes.Transform(v, func(p *tftypes.AttributePath, e tftypes.Value) (tftypes.Value, error) {
		if !p.Equal(target) {
			return e, nil
		}
		switch {
		case e.Type().Is(tftypes.String):
			var s string
			_ = e.As(&s)
			return tftypes.NewValue(e.Type(), s+"x"), nil
		case e.Type().Is(tftypes.Bool):
			var b bool
			_ = e.As(&b)
			return tftypes.NewValue(e.Type(), !b), nil
		}
		return tftypes.NewValue(e.Type(), randomNumbers[1]()), nil
	})
	return changed
}

// withSetReversed is v with the elements of its set attribute reversed.
func withSetReversed(v tftypes.Value) tftypes.Value {
	reversed, _ := tftypes.Transform(v, func(_ *tftypes.AttributePath, e tftypes.Value) (tftypes.Value, error) {
		if !e.Type().Is(tftypes.Set{}) || !e.IsKnown() || e.IsNull() {
			return e, nil
		}
		var elements []tftypes.Value
		if err := e.As(&elements); err != nil {
			return e, err
		}
		out := make([]tftypes.Value, len(elements))
		for i, el := range elements {
			out[len(elements)-1-i] = el
		}
		return tftypes.NewValue(e.Type(), out), nil
	})
	return reversed
}
