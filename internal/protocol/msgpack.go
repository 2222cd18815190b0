package protocol

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/big"
	"reflect"
	"slices"
	"sync"
	"unsafe"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	msgpack "github.com/vmihailenco/msgpack/v5"
	"github.com/vmihailenco/msgpack/v5/msgpcode"
)

// The protocol's msgpack, read and written as tftypes does
// (tftypes.ValueFromMsgPack, Value.MarshalMsgPack) but without the
// attribute path tftypes builds, for its error messages, at every
// attribute, element and map key of every value: a third of the
// allocations of a refresh plan's RPCs (bench/README.md, issue #45). A
// request is read here first; anything this reader refuses is read again
// by tftypes, whose error says where the value is wrong, so errors are
// tftypes' own. TestMsgPack_sameAsTFTypes compares the two on thousands
// of random values of a schema fixture's type and of types nesting every
// kind of value, nulls, unknowns and dynamic values included; the shadow
// server (Shadowed) compares the acceptance tests' validations, plans and
// upgrades with the framework's.

// decodeDynamicValue is dv.Unmarshal(t).
func decodeDynamicValue(dv *tfprotov6.DynamicValue, t tftypes.Type) (tftypes.Value, error) {
	if dv.JSON != nil || dv.MsgPack == nil {
		return dv.Unmarshal(t)
	}
	v, err := readMsgPack(msgpack.NewDecoder(bytes.NewReader(dv.MsgPack)), t)
	if err != nil {
		return dv.Unmarshal(t)
	}
	return v, nil
}

// encodeDynamicValue is tfprotov6.NewDynamicValue(t, v), with a map's keys
// in order (tftypes writes them in Go's map order; msgpack readers take
// either).
func encodeDynamicValue(t tftypes.Type, v tftypes.Value) (tfprotov6.DynamicValue, error) {
	var buf bytes.Buffer
	if err := writeMsgPack(msgpack.NewEncoder(&buf), v, t); err != nil {
		return tfprotov6.NewDynamicValue(t, v)
	}
	return tfprotov6.DynamicValue{MsgPack: buf.Bytes()}, nil
}

var errMsgPackShape = errors.New("value does not have the shape of its type")

func readMsgPack(dec *msgpack.Decoder, t tftypes.Type) (tftypes.Value, error) {
	code, err := dec.PeekCode()
	if err != nil {
		return tftypes.Value{}, err
	}
	if msgpcode.IsExt(code) { // every extension is an unknown value, as in go-cty
		if err := dec.Skip(); err != nil {
			return tftypes.Value{}, err
		}
		return tftypes.NewValue(t, tftypes.UnknownValue), nil
	}
	if t.Is(tftypes.DynamicPseudoType) {
		return readDynamic(dec)
	}
	if code == msgpcode.Nil {
		if err := dec.Skip(); err != nil {
			return tftypes.Value{}, err
		}
		return tftypes.NewValue(t, nil), nil
	}
	switch typ := t.(type) {
	case tftypes.List:
		return readSequence(dec, typ, typ.ElementType, func(e tftypes.Type) tftypes.Type { return tftypes.List{ElementType: e} })
	case tftypes.Set:
		return readSequence(dec, typ, typ.ElementType, func(e tftypes.Type) tftypes.Type { return tftypes.Set{ElementType: e} })
	case tftypes.Tuple:
		return readTuple(dec, typ)
	case tftypes.Map:
		return readKeyed(dec, typ, -1, func(string) (tftypes.Type, bool) { return typ.ElementType, true })
	case tftypes.Object:
		return readKeyed(dec, typ, len(typ.AttributeTypes), func(name string) (tftypes.Type, bool) {
			attribute, ok := typ.AttributeTypes[name]
			return attribute, ok
		})
	}
	return readPrimitive(dec, t, code)
}

func readPrimitive(dec *msgpack.Decoder, t tftypes.Type, code byte) (tftypes.Value, error) {
	switch {
	case t.Is(tftypes.String):
		s, err := dec.DecodeString()
		return tftypes.NewValue(tftypes.String, s), err
	case t.Is(tftypes.Bool):
		b, err := dec.DecodeBool()
		return tftypes.NewValue(tftypes.Bool, b), err
	case t.Is(tftypes.Number):
		n, err := readNumber(dec, code)
		if err != nil {
			return tftypes.Value{}, err
		}
		return tftypes.NewValue(tftypes.Number, n), nil
	}
	return tftypes.Value{}, fmt.Errorf("unsupported type %s", t)
}

func readNumber(dec *msgpack.Decoder, code byte) (*big.Float, error) {
	switch {
	case msgpcode.IsFixedNum(code), code == msgpcode.Int8, code == msgpcode.Int16, code == msgpcode.Int32, code == msgpcode.Int64:
		n, err := dec.DecodeInt64()
		return new(big.Float).SetInt64(n), err
	case code == msgpcode.Uint8, code == msgpcode.Uint16, code == msgpcode.Uint32, code == msgpcode.Uint64:
		n, err := dec.DecodeUint64()
		return new(big.Float).SetUint64(n), err
	case code == msgpcode.Float, code == msgpcode.Double:
		f, err := dec.DecodeFloat64()
		if err != nil || math.IsNaN(f) {
			return nil, errMsgPackShape // big.NewFloat panics on NaN; tftypes says so
		}
		return big.NewFloat(f), nil
	}
	s, err := dec.DecodeString()
	if err != nil {
		return nil, err
	}
	// A number sent as a string: base 10, precision 512, rounding to
	// nearest even, as go-cty and tftypes read it.
	n, _, err := big.ParseFloat(s, 10, 512, big.ToNearestEven)
	return n, err
}

// readElements reads an array of want values (-1: any number), value i of
// type typeAt(i); nil for a nil array.
func readElements(dec *msgpack.Decoder, want int, typeAt func(int) tftypes.Type) ([]tftypes.Value, error) {
	n, err := dec.DecodeArrayLen()
	switch {
	case err != nil || n < 0:
		return nil, err
	case want >= 0 && n != want:
		return nil, errMsgPackShape
	}
	values := make([]tftypes.Value, n)
	for i := range values {
		if values[i], err = readMsgPack(dec, typeAt(i)); err != nil {
			return nil, err
		}
	}
	return values, nil
}

// readSequence reads a list or set t of element values. tftypes types a
// set, and a list of dynamic elements, by the elements it read (typed
// makes the list or set type of an element type).
func readSequence(dec *msgpack.Decoder, t, element tftypes.Type, typed func(tftypes.Type) tftypes.Type) (tftypes.Value, error) {
	values, err := readElements(dec, -1, func(int) tftypes.Type { return element })
	if err != nil || len(values) == 0 || (!t.Is(tftypes.Set{}) && !element.Is(tftypes.DynamicPseudoType)) {
		return tftypes.NewValue(t, values), err
	}
	inferred, err := tftypes.TypeFromElements(values)
	if err != nil {
		return tftypes.Value{}, err
	}
	return tftypes.NewValue(typed(inferred), values), nil
}

func readTuple(dec *msgpack.Decoder, t tftypes.Tuple) (tftypes.Value, error) {
	values, err := readElements(dec, len(t.ElementTypes), func(i int) tftypes.Type { return t.ElementTypes[i] })
	if err != nil {
		return tftypes.Value{}, err
	}
	return tftypes.NewValue(t, values), nil
}

// readKeyed reads a map or an object t: want entries (-1: any number),
// each of type typeOf(key), false for a key t does not have.
func readKeyed(dec *msgpack.Decoder, t tftypes.Type, want int, typeOf func(string) (tftypes.Type, bool)) (tftypes.Value, error) {
	n, err := dec.DecodeMapLen()
	switch {
	case err != nil:
		return tftypes.Value{}, err
	case n < 0:
		return tftypes.NewValue(t, nil), nil
	case want >= 0 && n != want:
		return tftypes.Value{}, errMsgPackShape
	}
	values := make(map[string]tftypes.Value, n)
	for range n {
		key, err := dec.DecodeString()
		if err != nil {
			return tftypes.Value{}, err
		}
		typ, ok := typeOf(key)
		if !ok {
			return tftypes.Value{}, errMsgPackShape
		}
		if values[key], err = readMsgPack(dec, typ); err != nil {
			return tftypes.Value{}, err
		}
	}
	return tftypes.NewValue(t, values), nil
}

// readDynamic reads a value of a dynamic attribute: its type's JSON, then
// the value of that type.
func readDynamic(dec *msgpack.Decoder) (tftypes.Value, error) {
	n, err := dec.DecodeArrayLen()
	switch {
	case err != nil:
		return tftypes.Value{}, err
	case n < 0:
		return tftypes.NewValue(tftypes.DynamicPseudoType, nil), nil
	case n != 2:
		return tftypes.Value{}, errMsgPackShape
	}
	typeJSON, err := dec.DecodeBytes()
	if err != nil {
		return tftypes.Value{}, err
	}
	t, err := tftypes.ParseJSONType(typeJSON) //nolint:staticcheck // the protocol's own encoding of a type
	if err != nil {
		return tftypes.Value{}, err
	}
	return readMsgPack(dec, t)
}

// unknownMsgPack writes an unknown value as the protocol does: extension
// 0 with one zero byte.
type unknownMsgPack struct{}

func (unknownMsgPack) MarshalMsgpack() ([]byte, error) { return []byte{0xd4, 0, 0}, nil }

func writeMsgPack(enc *msgpack.Encoder, v tftypes.Value, t tftypes.Type) error {
	if t.Is(tftypes.DynamicPseudoType) && !v.Type().Is(tftypes.DynamicPseudoType) {
		return writeDynamicValue(enc, v)
	}
	if !v.IsKnown() {
		return enc.Encode(unknownMsgPack{})
	}
	if v.IsNull() {
		return enc.EncodeNil()
	}
	switch typ := t.(type) {
	case tftypes.List:
		return writeArray(enc, v, -1, func(int) tftypes.Type { return typ.ElementType })
	case tftypes.Set:
		return writeArray(enc, v, -1, func(int) tftypes.Type { return typ.ElementType })
	case tftypes.Tuple:
		return writeArray(enc, v, len(typ.ElementTypes), func(i int) tftypes.Type { return typ.ElementTypes[i] })
	case tftypes.Map:
		return writeKeyed(enc, v, nil, func(string) tftypes.Type { return typ.ElementType })
	case tftypes.Object:
		// The attributes in the order of their names, as tftypes writes them.
		return writeKeyed(enc, v, sortedAttributeNames(typ), func(name string) tftypes.Type { return typ.AttributeTypes[name] })
	}
	return writePrimitive(enc, v, t)
}

// writeDynamicValue writes a value of a dynamic attribute: its type's
// JSON, then the value.
func writeDynamicValue(enc *msgpack.Encoder, v tftypes.Value) error {
	if err := writeDynamicType(enc, v.Type()); err != nil {
		return err
	}
	return writeMsgPack(enc, v, v.Type())
}

// writeDynamicType begins a dynamic value as the protocol writes it: an
// array of two, its type's JSON first.
func writeDynamicType(enc *msgpack.Encoder, t tftypes.Type) error {
	typeJSON, err := t.MarshalJSON() //nolint:staticcheck // the protocol's own encoding of a type
	if err != nil {
		return err
	}
	if err := enc.EncodeArrayLen(2); err != nil {
		return err
	}
	return enc.EncodeBytes(typeJSON)
}

func writePrimitive(enc *msgpack.Encoder, v tftypes.Value, t tftypes.Type) error {
	switch {
	case t.Is(tftypes.String):
		var s string
		if err := v.As(&s); err != nil {
			return err
		}
		return enc.EncodeString(s)
	case t.Is(tftypes.Bool):
		var b bool
		if err := v.As(&b); err != nil {
			return err
		}
		return enc.EncodeBool(b)
	case t.Is(tftypes.Number):
		var n big.Float
		if err := v.As(&n); err != nil {
			return err
		}
		return writeNumberValue(enc, &n)
	}
	return fmt.Errorf("unsupported type %s", t)
}

// writeNumberValue writes an integer as an integer, a float64 that is not
// an integer as a float, and any other number as its decimal string, as
// tftypes does.
func writeNumberValue(enc *msgpack.Encoder, n *big.Float) error {
	if n.IsInf() {
		return enc.EncodeFloat64(math.Inf(n.Sign()))
	}
	if i, accuracy := n.Int64(); accuracy == big.Exact {
		return enc.EncodeInt(i)
	}
	if f, accuracy := n.Float64(); accuracy == big.Exact && !n.IsInt() {
		return enc.EncodeFloat64(f)
	}
	return enc.EncodeString(n.Text('f', -1))
}

// writeArray writes a list, set or tuple: want elements (-1: any number),
// element i of type typeAt(i).
func writeArray(enc *msgpack.Encoder, v tftypes.Value, want int, typeAt func(int) tftypes.Type) error {
	var values []tftypes.Value
	if err := v.As(&values); err != nil {
		return err
	}
	if want >= 0 && len(values) != want {
		return errMsgPackShape
	}
	if err := enc.EncodeArrayLen(len(values)); err != nil {
		return err
	}
	for i, e := range values {
		if err := writeMsgPack(enc, e, typeAt(i)); err != nil {
			return err
		}
	}
	return nil
}

// writeKeyed writes a map or an object: the entries named by keys (nil:
// every key of the map), in that order, each of type typeOf(key).
func writeKeyed(enc *msgpack.Encoder, v tftypes.Value, keys []string, typeOf func(string) tftypes.Type) error {
	var values map[string]tftypes.Value
	if err := v.As(&values); err != nil {
		return err
	}
	if keys == nil {
		keys = slices.Sorted(maps.Keys(values))
	}
	if err := enc.EncodeMapLen(len(keys)); err != nil {
		return err
	}
	for _, key := range keys {
		value, ok := values[key]
		if !ok {
			return errMsgPackShape
		}
		if err := enc.EncodeString(key); err != nil {
			return err
		}
		if err := writeMsgPack(enc, value, typeOf(key)); err != nil {
			return err
		}
	}
	return nil
}

// attributeNames remembers the sorted attribute names of object types by
// the identity of their attribute map: a schema's type is built once, so
// its objects are the same maps in every request. The key is a pointer, so
// a remembered map stays alive and its address is never another map's;
// were the names ever not the type's, writeKeyed would miss an attribute
// and the caller fall back to tftypes, so a wrong entry could cost time,
// never a wrong value. Types made per request (a dynamic value's) would
// fill it, so it stops growing at attributeNamesLimit.
var attributeNames = struct {
	sync.RWMutex
	byMap map[unsafe.Pointer][]string
}{byMap: map[unsafe.Pointer][]string{}}

const attributeNamesLimit = 4096

func sortedAttributeNames(t tftypes.Object) []string {
	key := reflect.ValueOf(t.AttributeTypes).UnsafePointer()
	attributeNames.RLock()
	names, ok := attributeNames.byMap[key]
	attributeNames.RUnlock()
	if ok && len(names) == len(t.AttributeTypes) {
		return names
	}
	names = slices.Sorted(maps.Keys(t.AttributeTypes))
	attributeNames.Lock()
	if len(attributeNames.byMap) < attributeNamesLimit {
		attributeNames.byMap[key] = names
	}
	attributeNames.Unlock()
	return names
}
