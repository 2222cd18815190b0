package refs

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/queue"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// The ids of versions before 0.1.0 carried the policy or the queue
// reference themselves, base64 in the id (formats.md keeps the format).
// State upgrades read them with the functions below and write the refs
// those states now hold.

// PoolStateJSON is the raw-state JSON of the ref a legacy pool id held,
// and the pool's id now.
func PoolStateJSON(legacyID string) (ref any, id string, err error) {
	p, err := pool.DecodeID(legacyID)
	if err != nil {
		return nil, "", err
	}
	obj, err := RefFromPool(p)
	if err != nil {
		return nil, "", err
	}
	ref, err = tfconv.StateJSONFrom(obj)
	return ref, pool.ID(p), err
}

// QueueRefOfLegacyID is the reference a legacy gpu_queue id held; ok is
// false for a value that is not one (a queue name).
func QueueRefOfLegacyID(value string) (*queue.Ref, bool, error) {
	if !queue.IsID(value) {
		return nil, false, nil
	}
	r, err := queue.DecodeID(value)
	if err != nil {
		return nil, true, err
	}
	return &r, true, nil
}

// QueueStateJSON is the raw-state JSON of a queue ref.
func QueueStateJSON(r queue.Ref) (any, error) {
	obj, err := RefFromQueue(r)
	if err != nil {
		return nil, err
	}
	return tfconv.StateJSONFrom(obj)
}

// DynamicStateJSON is the raw-state JSON of a dynamic attribute holding v:
// Terraform stores such a value with its type.
func DynamicStateJSON(ctx context.Context, v attr.Value) (any, error) {
	typ, err := typeJSON(v.Type(ctx))
	if err != nil {
		return nil, err
	}
	value, err := tfconv.StateJSONFrom(v)
	if err != nil {
		return nil, err
	}
	return map[string]any{"value": value, "type": typ}, nil
}

// typeJSON is a type as Terraform writes it in JSON state: "string",
// ["list", <element>], ["object", {<attribute>: <type>}].
func typeJSON(t attr.Type) (any, error) {
	switch t := t.(type) {
	case basetypes.StringType:
		return "string", nil
	case basetypes.BoolType:
		return "bool", nil
	case basetypes.Int64Type, basetypes.NumberType:
		return "number", nil
	case types.ListType:
		elem, err := typeJSON(t.ElemType)
		return []any{"list", elem}, err
	case types.MapType:
		elem, err := typeJSON(t.ElemType)
		return []any{"map", elem}, err
	case types.ObjectType:
		attrs := make(map[string]any, len(t.AttrTypes))
		for name, at := range t.AttrTypes {
			j, err := typeJSON(at)
			if err != nil {
				return nil, err
			}
			attrs[name] = j
		}
		return []any{"object", attrs}, nil
	}
	return nil, fmt.Errorf("no JSON type for %s", t)
}

// UpgradePoolState edits a gpu_node_pool_policy state of version 0: the
// legacy id becomes the name and ref the policy it carried.
func UpgradePoolState(_ context.Context, attrs map[string]any) error {
	attrs["ref"] = nil
	id, _ := attrs["id"].(string)
	if id == "" {
		return nil
	}
	ref, newID, err := PoolStateJSON(id)
	if err != nil {
		return fmt.Errorf("the stored id of this gpu_node_pool_policy: %w", err)
	}
	attrs["id"], attrs["ref"] = newID, ref
	return nil
}

// UpgradePoolReference replaces a legacy pool id stored in attrs[key] (a
// node_pool attribute) with the ref it carried; null stays null.
func UpgradePoolReference(attrs map[string]any, key string) error {
	id, ok := attrs[key].(string)
	if !ok {
		return nil
	}
	ref, _, err := PoolStateJSON(id)
	if err != nil {
		return fmt.Errorf("the stored %s: %w", key, err)
	}
	attrs[key] = ref
	return nil
}

// PoolJSON is the pool's ref as JSON with every attribute present (null
// where unset): what `jsondecode` in a configuration must give for a
// node_pool written without a gpu_node_pool_policy, as the benchmark's
// configurations do.
func PoolJSON(p spec.PoolPolicy) (string, error) {
	obj, err := RefFromPool(p)
	if err != nil {
		return "", err
	}
	v, err := tfconv.StateJSONFrom(obj)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(v)
	return string(b), err
}

// UpgradePoolReferencesIn replaces every legacy pool id stored under a
// node_pool or node_pools key, at any depth of blocks, with its ref.
func UpgradePoolReferencesIn(_ context.Context, attrs map[string]any) error {
	return upgradeNested(attrs)
}

func upgradeNested(v any) error {
	switch t := v.(type) {
	case []any:
		for _, e := range t {
			if err := upgradeNested(e); err != nil {
				return err
			}
		}
	case map[string]any:
		for k, e := range t {
			var err error
			switch k {
			case "node_pool":
				err = UpgradePoolReference(t, k)
			case "node_pools":
				err = upgradePoolList(t, k)
			default:
				err = upgradeNested(e)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

func upgradePoolList(attrs map[string]any, key string) error {
	ids, _ := attrs[key].([]any)
	for i, id := range ids {
		s, ok := id.(string)
		if !ok {
			continue
		}
		ref, _, err := PoolStateJSON(s)
		if err != nil {
			return fmt.Errorf("the stored %s[%d]: %w", key, i, err)
		}
		ids[i] = ref
	}
	return nil
}
