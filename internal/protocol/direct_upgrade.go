package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	msgpack "github.com/vmihailenco/msgpack/v5"
)

// stateJSONToMsgPack is UpgradeResourceState of a state of the current
// version in one pass: the state's JSON, read once, written as the
// protocol's msgpack with the schema's type, the values as tftypes reads
// them from JSON (ValueFromJSONWithOpts, attributes the schema lacks
// ignored) and writes them to msgpack (Value.MarshalMsgPack), null list and
// set blocks as empty ones (reifyNullCollectionBlocks). tftypes reads JSON
// by decoding every nested value again from its raw bytes and checks each
// value it builds: that was about an eighth of the provider's CPU in a
// refresh plan (bench/README.md, issue #45). Anything it does not expect
// is an error, and the caller then takes tftypes' path, which says what is
// wrong; TestStateJSONToMsgPack_sameAsTFTypes compares the two.
func (d *directSchema) stateJSONToMsgPack(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	if err := writeValue(enc, v, d.tfType, d.blocks); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeValue writes v, decoded from JSON, as a value of type t; blocks are
// the blocks of t when it is an object of the schema's block tree (of its
// elements, for a list or set block).
func writeValue(enc *msgpack.Encoder, v any, t tftypes.Type, blocks blockLevel) error {
	if v == nil {
		return enc.EncodeNil()
	}
	switch typ := t.(type) {
	case tftypes.List:
		return writeElements(enc, v, typ.ElementType, blocks)
	case tftypes.Set:
		return writeElements(enc, v, typ.ElementType, blocks)
	case tftypes.Map:
		return writeMap(enc, v, typ.ElementType)
	case tftypes.Object:
		return writeObject(enc, v, typ, blocks)
	case tftypes.Tuple:
		return writeTuple(enc, v, typ)
	}
	switch {
	case t.Is(tftypes.String):
		return writeString(enc, v)
	case t.Is(tftypes.Number):
		return writeNumber(enc, v)
	case t.Is(tftypes.Bool):
		return writeBool(enc, v)
	case t.Is(tftypes.DynamicPseudoType):
		return writeDynamic(enc, v)
	}
	return fmt.Errorf("type %s is not supported", t)
}

func writeElements(enc *msgpack.Encoder, v any, element tftypes.Type, blocks blockLevel) error {
	list, ok := v.([]any)
	if !ok {
		return fmt.Errorf("%T is not a JSON array", v)
	}
	if err := enc.EncodeArrayLen(len(list)); err != nil {
		return err
	}
	for _, e := range list {
		if err := writeValue(enc, e, element, blocks); err != nil {
			return err
		}
	}
	return nil
}

func writeTuple(enc *msgpack.Encoder, v any, t tftypes.Tuple) error {
	list, ok := v.([]any)
	if !ok || len(list) != len(t.ElementTypes) {
		return fmt.Errorf("%T is not a JSON array of %d", v, len(t.ElementTypes))
	}
	if err := enc.EncodeArrayLen(len(list)); err != nil {
		return err
	}
	for i, e := range list {
		if err := writeValue(enc, e, t.ElementTypes[i], nil); err != nil {
			return err
		}
	}
	return nil
}

func writeMap(enc *msgpack.Encoder, v any, element tftypes.Type) error {
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("%T is not a JSON object", v)
	}
	if err := enc.EncodeMapLen(len(m)); err != nil {
		return err
	}
	for k, e := range m {
		if err := enc.EncodeString(k); err != nil {
			return err
		}
		if err := writeValue(enc, e, element, nil); err != nil {
			return err
		}
	}
	return nil
}

// writeObject writes every attribute of t in name order, as tftypes does:
// one missing from the JSON is null, one t lacks is left out.
func writeObject(enc *msgpack.Encoder, v any, t tftypes.Object, blocks blockLevel) error {
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("%T is not a JSON object", v)
	}
	names := make([]string, 0, len(t.AttributeTypes))
	for name := range t.AttributeTypes {
		names = append(names, name)
	}
	slices.Sort(names)
	if err := enc.EncodeMapLen(len(names)); err != nil {
		return err
	}
	for _, name := range names {
		if err := enc.EncodeString(name); err != nil {
			return err
		}
		block, isBlock := blocks[name]
		if isBlock && block.collection && m[name] == nil {
			if err := enc.EncodeArrayLen(0); err != nil {
				return err
			}
			continue
		}
		if err := writeValue(enc, m[name], t.AttributeTypes[name], block.nested); err != nil {
			return err
		}
	}
	return nil
}

func writeString(enc *msgpack.Encoder, v any) error {
	switch s := v.(type) {
	case string:
		return enc.EncodeString(s)
	case json.Number:
		return enc.EncodeString(string(s))
	case bool:
		if s {
			return enc.EncodeString("true")
		}
		return enc.EncodeString("false")
	}
	return fmt.Errorf("%T is not a string", v)
}

// writeNumber parses as tftypes does (512 bits, to nearest even) and
// writes an integer, a float or the decimal text, in that order, as it
// does.
func writeNumber(enc *msgpack.Encoder, v any) error {
	var text string
	switch n := v.(type) {
	case json.Number:
		text = string(n)
	case string:
		text = n
	default:
		return fmt.Errorf("%T is not a number", v)
	}
	n, _, err := big.ParseFloat(text, 10, 512, big.ToNearestEven)
	if err != nil {
		return err
	}
	switch {
	case n.IsInf():
		return enc.EncodeFloat64(math.Inf(n.Sign()))
	case isExactInt64(n):
		i, _ := n.Int64()
		return enc.EncodeInt(i)
	case isExactFraction(n):
		f, _ := n.Float64()
		return enc.EncodeFloat64(f)
	}
	return enc.EncodeString(n.Text('f', -1))
}

func isExactInt64(n *big.Float) bool {
	_, acc := n.Int64()
	return acc == big.Exact
}

func isExactFraction(n *big.Float) bool {
	_, acc := n.Float64()
	return acc == big.Exact && !n.IsInt()
}

func writeBool(enc *msgpack.Encoder, v any) error {
	switch b := v.(type) {
	case bool:
		return enc.EncodeBool(b)
	case string:
		switch b {
		case "true", "1":
			return enc.EncodeBool(true)
		case "false", "0":
			return enc.EncodeBool(false)
		}
	case json.Number:
		switch b {
		case "1":
			return enc.EncodeBool(true)
		case "0":
			return enc.EncodeBool(false)
		}
	}
	return fmt.Errorf("%v is not a bool", v)
}

// writeDynamic writes a dynamic value, {"type": ..., "value": ...} in JSON,
// as msgpack's [type JSON, value].
func writeDynamic(enc *msgpack.Encoder, v any) error {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 2 || m["type"] == nil {
		return fmt.Errorf("%T is not a dynamic value", v)
	}
	value, hasValue := m["value"]
	if !hasValue {
		return fmt.Errorf("a dynamic value without its value")
	}
	rawType, err := json.Marshal(m["type"])
	if err != nil {
		return err
	}
	t, err := tftypes.ParseJSONType(rawType) //nolint:staticcheck // the protocol's own type encoding, as tftypes reads it
	if err != nil {
		return err
	}
	if err := writeDynamicType(enc, t); err != nil {
		return err
	}
	return writeValue(enc, value, t, nil)
}
