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
// tftypes' own. TestMsgPack_sameAsTFTypes compares the two on every
// schema of the provider.

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
		return readList(dec, typ)
	case tftypes.Set:
		return readSet(dec, typ)
	case tftypes.Map:
		return readMap(dec, typ)
	case tftypes.Tuple:
		return readTuple(dec, typ)
	case tftypes.Object:
		return readObject(dec, typ)
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

// readElements reads an array of n values of type element, nil for a nil
// array.
func readElements(dec *msgpack.Decoder, element tftypes.Type) ([]tftypes.Value, error) {
	n, err := dec.DecodeArrayLen()
	if err != nil || n < 0 {
		return nil, err
	}
	values := make([]tftypes.Value, n)
	for i := range values {
		if values[i], err = readMsgPack(dec, element); err != nil {
			return nil, err
		}
	}
	return values, nil
}

func readList(dec *msgpack.Decoder, t tftypes.List) (tftypes.Value, error) {
	values, err := readElements(dec, t.ElementType)
	if err != nil || values == nil || len(values) == 0 || !t.ElementType.Is(tftypes.DynamicPseudoType) {
		return tftypes.NewValue(t, values), err
	}
	element, err := tftypes.TypeFromElements(values)
	if err != nil {
		return tftypes.Value{}, err
	}
	return tftypes.NewValue(tftypes.List{ElementType: element}, values), nil
}

func readSet(dec *msgpack.Decoder, t tftypes.Set) (tftypes.Value, error) {
	values, err := readElements(dec, t.ElementType)
	if err != nil || values == nil || len(values) == 0 {
		return tftypes.NewValue(t, values), err
	}
	element, err := tftypes.TypeFromElements(values)
	if err != nil {
		return tftypes.Value{}, err
	}
	return tftypes.NewValue(tftypes.Set{ElementType: element}, values), nil
}

func readTuple(dec *msgpack.Decoder, t tftypes.Tuple) (tftypes.Value, error) {
	n, err := dec.DecodeArrayLen()
	switch {
	case err != nil:
		return tftypes.Value{}, err
	case n < 0:
		return tftypes.NewValue(t, nil), nil
	case n != len(t.ElementTypes):
		return tftypes.Value{}, errMsgPackShape
	}
	values := make([]tftypes.Value, n)
	for i, element := range t.ElementTypes {
		if values[i], err = readMsgPack(dec, element); err != nil {
			return tftypes.Value{}, err
		}
	}
	return tftypes.NewValue(t, values), nil
}

func readMap(dec *msgpack.Decoder, t tftypes.Map) (tftypes.Value, error) {
	n, err := dec.DecodeMapLen()
	if err != nil || n < 0 {
		return tftypes.NewValue(t, nil), err
	}
	values := make(map[string]tftypes.Value, n)
	for range n {
		key, err := dec.DecodeString()
		if err != nil {
			return tftypes.Value{}, err
		}
		if values[key], err = readMsgPack(dec, t.ElementType); err != nil {
			return tftypes.Value{}, err
		}
	}
	return tftypes.NewValue(t, values), nil
}

func readObject(dec *msgpack.Decoder, t tftypes.Object) (tftypes.Value, error) {
	n, err := dec.DecodeMapLen()
	switch {
	case err != nil:
		return tftypes.Value{}, err
	case n < 0:
		return tftypes.NewValue(t, nil), nil
	case n != len(t.AttributeTypes):
		return tftypes.Value{}, errMsgPackShape
	}
	values := make(map[string]tftypes.Value, n)
	for range n {
		key, err := dec.DecodeString()
		if err != nil {
			return tftypes.Value{}, err
		}
		attribute, ok := t.AttributeTypes[key]
		if !ok {
			return tftypes.Value{}, errMsgPackShape
		}
		if values[key], err = readMsgPack(dec, attribute); err != nil {
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
		return writeSequence(enc, v, typ.ElementType)
	case tftypes.Set:
		return writeSequence(enc, v, typ.ElementType)
	case tftypes.Tuple:
		return writeTupleValue(enc, v, typ)
	case tftypes.Map:
		return writeMapValue(enc, v, typ)
	case tftypes.Object:
		return writeObjectValue(enc, v, typ)
	}
	return writePrimitive(enc, v, t)
}

// writeDynamicValue writes a value of a dynamic attribute: its type's
// JSON, then the value.
func writeDynamicValue(enc *msgpack.Encoder, v tftypes.Value) error {
	typeJSON, err := v.Type().MarshalJSON() //nolint:staticcheck // the protocol's own encoding of a type
	if err != nil {
		return err
	}
	if err := enc.EncodeArrayLen(2); err != nil {
		return err
	}
	if err := enc.EncodeBytes(typeJSON); err != nil {
		return err
	}
	return writeMsgPack(enc, v, v.Type())
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

func writeSequence(enc *msgpack.Encoder, v tftypes.Value, element tftypes.Type) error {
	var values []tftypes.Value
	if err := v.As(&values); err != nil {
		return err
	}
	if err := enc.EncodeArrayLen(len(values)); err != nil {
		return err
	}
	for _, e := range values {
		if err := writeMsgPack(enc, e, element); err != nil {
			return err
		}
	}
	return nil
}

func writeTupleValue(enc *msgpack.Encoder, v tftypes.Value, t tftypes.Tuple) error {
	var values []tftypes.Value
	if err := v.As(&values); err != nil {
		return err
	}
	if len(values) != len(t.ElementTypes) {
		return errMsgPackShape
	}
	if err := enc.EncodeArrayLen(len(values)); err != nil {
		return err
	}
	for i, e := range values {
		if err := writeMsgPack(enc, e, t.ElementTypes[i]); err != nil {
			return err
		}
	}
	return nil
}

func writeMapValue(enc *msgpack.Encoder, v tftypes.Value, t tftypes.Map) error {
	var values map[string]tftypes.Value
	if err := v.As(&values); err != nil {
		return err
	}
	if err := enc.EncodeMapLen(len(values)); err != nil {
		return err
	}
	for _, key := range slices.Sorted(maps.Keys(values)) {
		if err := enc.EncodeString(key); err != nil {
			return err
		}
		if err := writeMsgPack(enc, values[key], t.ElementType); err != nil {
			return err
		}
	}
	return nil
}

// writeObjectValue writes the attributes in the order of their names.
func writeObjectValue(enc *msgpack.Encoder, v tftypes.Value, t tftypes.Object) error {
	var values map[string]tftypes.Value
	if err := v.As(&values); err != nil {
		return err
	}
	names := sortedAttributeNames(t)
	if err := enc.EncodeMapLen(len(names)); err != nil {
		return err
	}
	for _, name := range names {
		value, ok := values[name]
		if !ok {
			return errMsgPackShape
		}
		if err := enc.EncodeString(name); err != nil {
			return err
		}
		if err := writeMsgPack(enc, value, t.AttributeTypes[name]); err != nil {
			return err
		}
	}
	return nil
}

// attributeNames remembers the sorted attribute names of object types by
// the identity of their attribute map: a schema's type is built once, so
// its objects are the same maps in every request. A map freed and another
// made at its address may find names that are not its own; writeObjectValue
// then misses an attribute and the caller falls back to tftypes, so a stale
// entry costs time, never a wrong value. Types made per request (a dynamic
// value's) would fill it, so it stops growing at attributeNamesLimit.
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
