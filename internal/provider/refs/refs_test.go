package refs

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/queue"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

func policies() []spec.PoolPolicy {
	no := false
	return []spec.PoolPolicy{
		{Name: "a100", Cloud: "gke", Accelerator: "a100-40gb", GPUsPerNode: 8},
		{Name: "mig", Cloud: "generic", Accelerator: "a100-40gb", GPUsPerNode: 8, Partition: "all-balanced", MIGStrategy: "mixed"},
		{Name: "shared", Cloud: "aks", Accelerator: "t4", GPUsPerNode: 4, Sharing: "mps", Replicas: 8, Spot: true, Dedicated: &no,
			Labels: map[string]string{"example.com/team": "ml", "tier": ""},
			Taints: []spec.Taint{{Key: "b", Effect: "NoSchedule"}, {Key: "a", Value: "x", Effect: "NoExecute"}}},
		{Name: "tas", Cloud: "eks", Accelerator: "h100-80gb", GPUsPerNode: 8, GPUAllocation: spec.GPUAllocationDRA,
			Topology: &spec.PoolTopology{Levels: []string{"block", "host"}, NodesPerDomain: map[string]int64{"block": 4}}},
	}
}

// A pool's ref reads back as the canonical policy, whatever it holds: an
// empty label value, a dedicated = false, sorted taints, a topology.
func TestPoolRefRoundTrip(t *testing.T) {
	for _, p := range policies() {
		v, err := RefFromPool(p)
		if err != nil {
			t.Fatal(err)
		}
		c := &tfconv.Converter{Ctx: context.Background()}
		got := Pool(c, v)
		if c.Diags.HasError() || c.Unknown || got == nil {
			t.Fatalf("%s: %v unknown=%v", p.Name, c.Diags, c.Unknown)
		}
		if want := pool.CanonicalPool(p); !reflect.DeepEqual(*got, want) {
			t.Errorf("%s: read back\n%+v\nwant\n%+v", p.Name, *got, want)
		}
	}
}

// A legacy pool id upgrades into the JSON of the ref its policy gives.
func TestUpgradePoolReference(t *testing.T) {
	attrs := map[string]any{"node_pool": "gke/a100-40gb/a100:eyJ2IjoxLCJuYW1lIjoiYTEwMCIsImNsb3VkIjoiZ2tlIiwiYWNjZWxlcmF0b3IiOiJhMTAwLTQwZ2IiLCJncHVzX3Blcl9ub2RlIjo4fQ"}
	if err := UpgradePoolReference(attrs, "node_pool"); err != nil {
		t.Fatal(err)
	}
	ref, ok := attrs["node_pool"].(map[string]any)
	if !ok || ref["name"] != "a100" || ref["gpus_per_node"] != int64(8) || len(ref) != len(PoolType.AttrTypes) {
		t.Fatalf("upgraded to %#v", attrs["node_pool"])
	}
	if err := UpgradePoolReference(map[string]any{"node_pool": "edited:AAAA"}, "node_pool"); err == nil {
		t.Error("a stored id that does not decode upgraded silently")
	}
}

// queue takes a gpu_queue's ref or a queue's name; any other object is
// refused with what it is not.
func TestQueueFromDynamic(t *testing.T) {
	ctx := context.Background()
	ref := queue.Ref{Name: "team-a", LocalQueue: "lq", Flavors: []queue.FlavorRef{{Name: "a100", Quota: 8}}}
	obj, err := RefFromQueue(ref)
	if err != nil {
		t.Fatal(err)
	}
	c := &tfconv.Converter{Ctx: ctx}
	name, got, err := queueFromDynamic(c, types.DynamicValue(obj))
	if err != nil || name != "lq" || got == nil || got.Flavors[0].Quota != 8 {
		t.Fatalf("ref: %q %+v %v", name, got, err)
	}
	name, got, err = queueFromDynamic(c, types.DynamicValue(types.StringValue("elsewhere")))
	if err != nil || name != "elsewhere" || got != nil {
		t.Fatalf("name: %q %+v %v", name, got, err)
	}
	other := types.ObjectValueMust(map[string]attr.Type{"x": types.StringType}, map[string]attr.Value{"x": types.StringValue("y")})
	if _, _, err = queueFromDynamic(c, types.DynamicValue(other)); err == nil || !strings.Contains(err.Error(), "gpu_queue's ref") {
		t.Fatalf("another object: %v", err)
	}
	if _, _, err = queueFromDynamic(c, types.DynamicUnknown()); err != nil || !c.Unknown {
		t.Fatalf("unknown: %v, marked %v", err, c.Unknown)
	}
}
