package tfconv

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"math/big"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// DynamicFrom converts a Kubernetes object (any JSON-serialisable value, e.g.
// a corev1.Affinity) into a Terraform dynamic value holding objects and
// tuples, so configurations can pass it on as an object (affinity = ...)
// rather than a JSON string. nil becomes a null dynamic.
func DynamicFrom(v any) (types.Dynamic, error) {
	if v == nil {
		return types.DynamicNull(), nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return types.DynamicNull(), err
	}
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return types.DynamicNull(), err
	}
	if generic == nil {
		return types.DynamicNull(), nil
	}
	value, err := terraformValue(generic)
	if err != nil {
		return types.DynamicNull(), err
	}
	return types.DynamicValue(value), nil
}

func terraformValue(v any) (attr.Value, error) {
	switch x := v.(type) {
	case nil:
		return types.DynamicNull(), nil
	case string:
		return types.StringValue(x), nil
	case bool:
		return types.BoolValue(x), nil
	case float64:
		return types.NumberValue(big.NewFloat(x)), nil
	case []any:
		return tupleValue(x)
	case map[string]any:
		return objectValue(x)
	default:
		return nil, fmt.Errorf("unsupported value %T", v)
	}
}

func tupleValue(items []any) (attr.Value, error) {
	elemTypes := make([]attr.Type, len(items))
	elems := make([]attr.Value, len(items))
	err := dynamicElements(slices.All(items), func(i int, v attr.Value) {
		elems[i], elemTypes[i] = v, v.Type(context.Background())
	})
	if err != nil {
		return nil, err
	}
	return checked(types.TupleValue(elemTypes, elems))
}

func objectValue(m map[string]any) (attr.Value, error) {
	attrTypes := make(map[string]attr.Type, len(m))
	attrs := make(map[string]attr.Value, len(m))
	err := dynamicElements(maps.All(m), func(k string, v attr.Value) {
		attrs[k], attrTypes[k] = v, v.Type(context.Background())
	})
	if err != nil {
		return nil, err
	}
	return checked(types.ObjectValue(attrTypes, attrs))
}

// dynamicElements converts a tuple's or object's elements, each to the
// type its value has, handing each to set.
func dynamicElements[K comparable](all iter.Seq2[K, any], set func(K, attr.Value)) error {
	for k, item := range all {
		v, err := terraformValue(item)
		if err != nil {
			return fmt.Errorf("[%v]: %w", k, err)
		}
		set(k, v)
	}
	return nil
}
