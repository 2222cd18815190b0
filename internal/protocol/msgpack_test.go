package protocol

import (
	"bytes"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	msgpack "github.com/vmihailenco/msgpack/v5"
)

// msgPackFixtureTypes are the schema fixture's type and types that nest
// every kind of value in every other, dynamic ones included.
func msgPackFixtureTypes(t *testing.T) map[string]tftypes.Type {
	leaf := tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"s": tftypes.String, "n": tftypes.Number, "b": tftypes.Bool, "d": tftypes.DynamicPseudoType,
	}}
	return map[string]tftypes.Type{
		"schema fixture": upgradeFixture(t).tfType,
		"nested": tftypes.Object{AttributeTypes: map[string]tftypes.Type{
			"list":    tftypes.List{ElementType: leaf},
			"set":     tftypes.Set{ElementType: leaf},
			"map":     tftypes.Map{ElementType: tftypes.List{ElementType: tftypes.Number}},
			"tuple":   tftypes.Tuple{ElementTypes: []tftypes.Type{tftypes.String, leaf, tftypes.Map{ElementType: tftypes.Bool}}},
			"dynamic": tftypes.DynamicPseudoType,
			"dlist":   tftypes.List{ElementType: tftypes.DynamicPseudoType},
			"leaf":    leaf,
		}},
		"a bare list":    tftypes.List{ElementType: tftypes.Set{ElementType: tftypes.String}},
		"a bare dynamic": tftypes.DynamicPseudoType,
	}
}

// The reader gives the value tftypes' reader gives, and what the writer
// writes, tftypes reads as the value written: for thousands of random
// values of every kind, nulls and unknowns at every level included.
// Without a map, the bytes are tftypes' own.
func TestMsgPack_sameAsTFTypes(t *testing.T) {
	r := rand.New(rand.NewPCG(45, 2026))
	for name, typ := range msgPackFixtureTypes(t) {
		t.Run(name, func(t *testing.T) {
			for i := range 2000 {
				v := randomValue(r, typ, 0)
				want, err := v.MarshalMsgPack(typ) //nolint:staticcheck // the reference
				if err != nil {
					t.Fatalf("value %d: tftypes cannot write %v: %v", i, v, err)
				}
				wantValue, err := tftypes.ValueFromMsgPack(want, typ) //nolint:staticcheck // the reference
				if err != nil {
					t.Fatalf("value %d: tftypes cannot read back %v: %v", i, v, err)
				}
				got, err := readMsgPack(msgpack.NewDecoder(bytes.NewReader(want)), typ)
				if err != nil {
					t.Fatalf("value %d: the reader refused what tftypes wrote for %v: %v", i, v, err)
				}
				if !identicalValues(got, wantValue, typ) {
					t.Fatalf("value %d: read\n got %v\nwant %v", i, got, wantValue)
				}
				written, err := encodeDynamicValue(typ, v)
				if err != nil {
					t.Fatalf("value %d: %v", i, err)
				}
				if back, err := tftypes.ValueFromMsgPack(written.MsgPack, typ); err != nil || !identicalValues(back, wantValue, typ) { //nolint:staticcheck // the reference
					t.Fatalf("value %d: tftypes reads what was written as\n got %v (%v)\nwant %v", i, back, err, wantValue)
				}
				if !containsMap(v) && !bytes.Equal(written.MsgPack, want) {
					t.Fatalf("value %d: bytes differ from tftypes' for %v:\n got %x\nwant %x", i, v, written.MsgPack, want)
				}
			}
		})
	}
}

// What tftypes refuses to read, the reader refuses too, and
// decodeDynamicValue then returns tftypes' own error.
func TestMsgPack_refusesWhatTFTypesRefuses(t *testing.T) {
	pair := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"a": tftypes.String, "n": tftypes.Number}}
	encode := func(v any) []byte {
		b, err := msgpack.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for name, c := range map[string]struct {
		typ tftypes.Type
		raw []byte
	}{
		"an attribute missing":     {pair, encode(map[string]any{"a": "x"})},
		"an attribute not in type": {pair, encode(map[string]any{"a": "x", "z": 1})},
		"a string for a number":    {pair, encode(map[string]any{"a": "x", "n": "many"})},
		"a number for a string":    {pair, encode(map[string]any{"a": 1, "n": 1})},
		"a list for an object":     {pair, encode([]any{"x"})},
		"a tuple too short":        {tftypes.Tuple{ElementTypes: []tftypes.Type{tftypes.String, tftypes.String}}, encode([]any{"x"})},
		"a dynamic of three":       {tftypes.DynamicPseudoType, encode([]any{`"string"`, "x", "y"})},
		"a dynamic's bad type":     {tftypes.DynamicPseudoType, encode([]any{[]byte(`"strung"`), "x"})},
		"truncated":                {pair, encode(map[string]any{"a": "x", "n": 1})[:5]},
		"nothing":                  {pair, nil},
	} {
		t.Run(name, func(t *testing.T) {
			_, wantErr := tftypes.ValueFromMsgPack(c.raw, c.typ) //nolint:staticcheck // the reference
			if wantErr == nil {
				t.Fatal("tftypes reads it; the case tests nothing")
			}
			if _, err := readMsgPack(msgpack.NewDecoder(bytes.NewReader(c.raw)), c.typ); err == nil {
				t.Error("the reader accepted what tftypes refuses")
			}
			if c.raw == nil {
				return
			}
			_, err := decodeDynamicValue(&tfprotov6.DynamicValue{MsgPack: c.raw}, c.typ)
			if err == nil || err.Error() != wantErr.Error() {
				t.Errorf("decodeDynamicValue's error is %v, want tftypes' %v", err, wantErr)
			}
		})
	}
}

// A value whose type the writer does not take (a dynamic that is still
// dynamic) is written by tftypes, with its error.
func TestEncodeDynamicValue_fallsBackToTFTypes(t *testing.T) {
	typ := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"a": tftypes.String}}
	v := tftypes.NewValue(typ, map[string]tftypes.Value{"a": tftypes.NewValue(tftypes.String, "x")})
	got, err := encodeDynamicValue(typ, v)
	want, wantErr := tfprotov6.NewDynamicValue(typ, v)
	if err != nil || wantErr != nil || !bytes.Equal(got.MsgPack, want.MsgPack) {
		t.Fatalf("got %x (%v), want %x (%v)", got.MsgPack, err, want.MsgPack, wantErr)
	}
	missing := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"a": tftypes.String, "b": tftypes.String}}
	if _, err := encodeDynamicValue(missing, v); err == nil {
		t.Error("a value without one of its type's attributes was written")
	}
}

func containsMap(v tftypes.Value) bool {
	found := false
	_ = tftypes.Walk(v, func(_ *tftypes.AttributePath, v tftypes.Value) (bool, error) {
		if v.Type().Is(tftypes.Map{}) && v.IsKnown() && !v.IsNull() {
			found = true
		}
		return !found, nil
	})
	return found
}

var randomNumbers = []func() *big.Float{
	func() *big.Float { return big.NewFloat(0) },
	func() *big.Float { return big.NewFloat(7) },
	func() *big.Float { return big.NewFloat(-300) },
	func() *big.Float { return new(big.Float).SetInt64(math.MaxInt64) },
	func() *big.Float { return new(big.Float).SetUint64(math.MaxUint64) },
	func() *big.Float { return big.NewFloat(0.25) },
	func() *big.Float { return big.NewFloat(1e-7) },
	func() *big.Float { return big.NewFloat(math.Inf(-1)) },
	func() *big.Float {
		n, _, _ := big.ParseFloat("0.1", 10, 512, big.ToNearestEven)
		return n
	},
	func() *big.Float {
		n, _, _ := big.ParseFloat("123456789012345678901234567890", 10, 512, big.ToNearestEven)
		return n
	},
}

var randomStrings = []string{"", "a", "gpu-000", "nvidia.com/gpu", "é✓", "line\nbreak", string(make([]byte, 300))}

var dynamicTypes = []tftypes.Type{
	tftypes.String, tftypes.Number, tftypes.Bool,
	tftypes.List{ElementType: tftypes.String},
	tftypes.Object{AttributeTypes: map[string]tftypes.Type{"name": tftypes.String, "flavors": tftypes.List{ElementType: tftypes.String}}},
}

// randomValue is a value of type t, null or unknown one time in ten at
// every level.
func randomValue(r *rand.Rand, t tftypes.Type, depth int) tftypes.Value {
	switch r.IntN(10) {
	case 0:
		return tftypes.NewValue(t, nil)
	case 1:
		return tftypes.NewValue(t, tftypes.UnknownValue)
	}
	switch typ := t.(type) {
	case tftypes.List:
		return tftypes.NewValue(t, randomElements(r, typ.ElementType, depth))
	case tftypes.Set:
		return tftypes.NewValue(t, randomElements(r, typ.ElementType, depth))
	case tftypes.Tuple:
		values := make([]tftypes.Value, len(typ.ElementTypes))
		for i, e := range typ.ElementTypes {
			values[i] = randomValue(r, e, depth+1)
		}
		return tftypes.NewValue(t, values)
	case tftypes.Map:
		values := map[string]tftypes.Value{}
		for range r.IntN(4) {
			values[randomStrings[r.IntN(len(randomStrings))]] = randomValue(r, typ.ElementType, depth+1)
		}
		return tftypes.NewValue(t, values)
	case tftypes.Object:
		values := make(map[string]tftypes.Value, len(typ.AttributeTypes))
		for name, a := range typ.AttributeTypes {
			values[name] = randomValue(r, a, depth+1)
		}
		return tftypes.NewValue(t, values)
	}
	switch {
	case t.Is(tftypes.DynamicPseudoType):
		return randomValue(r, dynamicTypes[r.IntN(len(dynamicTypes))], depth+1)
	case t.Is(tftypes.String):
		return tftypes.NewValue(t, randomStrings[r.IntN(len(randomStrings))])
	case t.Is(tftypes.Number):
		return tftypes.NewValue(t, randomNumbers[r.IntN(len(randomNumbers))]())
	case t.Is(tftypes.Bool):
		return tftypes.NewValue(t, r.IntN(2) == 0)
	}
	panic("no random value of " + t.String())
}

// randomElements are up to three elements, fewer deeper down. A
// dynamic element type takes one concrete type for all of them, as a list
// must.
func randomElements(r *rand.Rand, element tftypes.Type, depth int) []tftypes.Value {
	if element.Is(tftypes.DynamicPseudoType) {
		element = dynamicTypes[r.IntN(len(dynamicTypes))]
	}
	values := make([]tftypes.Value, r.IntN(max(1, 4-depth)))
	for i := range values {
		values[i] = randomValue(r, element, depth+1)
	}
	return values
}
