// Package refs is how one resource hands another what it needs at plan
// time. gpu_node_pool_policy's `ref` is its policy and gpu_queue's `ref`
// what a workload checks against the queue, both as readable objects
// (docs/design/formats.md): a gpu_workload given `node_pool =
// gpu_node_pool_policy.a100.ref` is checked against the pool without state
// or a cluster, and every value in its plan is one a person can read. The
// objects' shapes are render's structs (spec.PoolPolicy, queue.Ref), read
// from their JSON encoding, so each is declared once.
package refs

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/queue"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// PoolType is the type of gpu_node_pool_policy.ref and of every node_pool
// attribute that takes it.
var PoolType = tfconv.JSONObjectType(reflect.TypeFor[spec.PoolPolicy]())

// QueueType is the type of gpu_queue.ref.
var QueueType = tfconv.JSONObjectType(reflect.TypeFor[queue.Ref]())

// RefFromPool is the pool's ref: its canonical policy (defaults dropped,
// taints sorted), so two configurations that mean the same give the same
// value and a workload's plan does not change with the spelling.
func RefFromPool(p spec.PoolPolicy) (types.Object, error) {
	return tfconv.ObjectFromJSON(pool.CanonicalPool(p))
}

// RefFromQueue is the queue's ref.
func RefFromQueue(r queue.Ref) (types.Object, error) {
	return tfconv.ObjectFromJSON(r)
}

// Pool is the policy a node_pool value holds, nil while it is null or
// unknown (unknown marks c, as every Converter value does).
func Pool(c *tfconv.Converter, v types.Object) *spec.PoolPolicy {
	p := tfconv.Decode[spec.PoolPolicy](c, v)
	if p == nil {
		return nil
	}
	canonical := pool.CanonicalPool(*p)
	return &canonical
}

// PoolAttribute is an attribute taking a gpu_node_pool_policy's ref.
func PoolAttribute(description string, required bool) schema.ObjectAttribute {
	return schema.ObjectAttribute{
		MarkdownDescription: description + " Set it to the `ref` of a `gpu_node_pool_policy`, e.g. " +
			"`gpu_node_pool_policy.a100.ref`: an object with the pool's settings, so the plan can check against the " +
			"pool without a cluster.",
		AttributeTypes: PoolType.AttrTypes,
		Required:       required,
		Optional:       !required,
	}
}

// QueueAttribute reads a resource's queue attribute as render needs it
// (queueFromDynamic): the queue's name, the gpu_queue's reference when the
// value is its ref, and what is wrong with the value, as an error at
// queue. A gpu_queue id of a version before 0.1.0, which carried the
// queue, is wrong too: the id is now the queue's name. elsewhere is what a
// name may name ("LocalQueue" where only Kueue admits).
func QueueAttribute(c *tfconv.Converter, v types.Dynamic, elsewhere string) (string, *queue.Ref, gpudiag.Diagnostics) {
	name, ref, err := queueFromDynamic(c, v)
	if err == nil && queue.IsID(name) {
		err = errors.New("this is a gpu_queue id of a version before 0.1.0, which carried the queue; the id is now the queue's name")
	}
	if err != nil {
		return name, ref, gpudiag.Diagnostics{{Severity: gpudiag.SeverityError, Path: []any{"queue"}, Summary: "Invalid queue",
			Detail: err.Error() + ". Allowed: the ref of a gpu_queue, e.g. gpu_queue.team_a.ref, or the name of a " +
				elsewhere + " managed elsewhere."}}
	}
	return name, ref, nil
}

// queueFromDynamic reads a queue attribute that takes either a gpu_queue's
// ref or the name of a queue managed elsewhere: the LocalQueue name and,
// for a ref, the reference. An unknown value marks c.
func queueFromDynamic(c *tfconv.Converter, v types.Dynamic) (string, *queue.Ref, error) {
	if v.IsUnknown() || v.IsUnderlyingValueUnknown() {
		c.Unknown = true
		return "", nil, nil
	}
	if v.IsNull() || v.IsUnderlyingValueNull() {
		return "", nil, nil
	}
	switch u := v.UnderlyingValue().(type) {
	case types.String:
		return u.ValueString(), nil, nil
	case types.Object:
		obj, err := asType(c.Ctx, u, QueueType)
		if err != nil {
			return "", nil, err
		}
		ref := tfconv.Decode[queue.Ref](c, obj)
		if ref == nil {
			return "", nil, nil
		}
		return ref.LocalQueue, ref, nil
	}
	return "", nil, fmt.Errorf("queue is a %s", v.UnderlyingValue().Type(c.Ctx))
}

// asType converts an object that came through a dynamic attribute (whose
// numbers are plain numbers) into t, refusing any other shape.
func asType(ctx context.Context, v types.Object, t types.ObjectType) (types.Object, error) {
	tf, err := v.ToTerraformValue(ctx)
	if err != nil {
		return types.Object{}, err
	}
	if !tf.Type().Equal(t.TerraformType(ctx)) {
		return types.Object{}, fmt.Errorf("the object does not have the attributes of a gpu_queue's ref")
	}
	converted, err := t.ValueFromTerraform(ctx, tf)
	if err != nil {
		return types.Object{}, err
	}
	obj, ok := converted.(types.Object)
	if !ok {
		return types.Object{}, fmt.Errorf("a %T is not an object", converted)
	}
	return obj, nil
}

// DynamicQueue is the value of a dynamic queue attribute for a ref (import,
// state upgrades).
func DynamicQueue(r *queue.Ref, name string) (types.Dynamic, error) {
	if r == nil {
		if name == "" {
			return types.DynamicNull(), nil
		}
		return types.DynamicValue(types.StringValue(name)), nil
	}
	obj, err := RefFromQueue(*r)
	return types.DynamicValue(obj), err
}

// PoolCloudUnknown reports whether the cloud of a node_pool value is not
// known yet: the whole ref or its cloud comes from values known at apply.
func PoolCloudUnknown(v types.Object) bool {
	if v.IsUnknown() {
		return true
	}
	cloud, ok := v.Attributes()["cloud"]
	return ok && cloud.IsUnknown()
}
