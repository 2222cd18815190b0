package queue

import (
	"strings"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// A DRA pool is not a flavor yet: Kueue counts its claims only through
// deviceClassMappings in Kueue's own configuration, so the queue says so
// on the flavor's node_pool instead of planning a quota that admits nothing.
func TestDRAPoolIsRefusedAsFlavor(t *testing.T) {
	id := pool.EncodeID(spec.PoolPolicy{Name: "dra-h100", Cloud: "generic", Accelerator: "h100-80gb", GPUsPerNode: 8,
		GPUAllocation: spec.GPUAllocationDRA})
	diags := Validate(spec.Queue{Name: "team", Flavors: []spec.QueueFlavor{{NodePool: id}}}, false)
	if len(diags) != 1 || diags[0].PathString() != "flavor[0].node_pool" || !strings.Contains(diags[0].Detail, "deviceClassMappings") {
		t.Fatalf("want one error at flavor[0].node_pool naming deviceClassMappings, got %v", diags)
	}
}
