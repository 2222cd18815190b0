package nodepoolpolicy

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// A state written before kubernetes_v1_affinity existed (the attribute
// null) gets it on refresh, equal to what a plan computes from the same
// configuration, so upgrading the provider plans no change.
func TestNodePoolPolicy_refreshFillsKubernetesV1Affinity(t *testing.T) {
	ctx := context.Background()
	policy := spec.PoolPolicy{Name: "a100", Cloud: "aks", Accelerator: "a100-80gb", GPUsPerNode: 1}
	rendered, diags := pool.Render(policy)
	if diags.HasError() || rendered.Affinity == nil {
		t.Fatalf("render: %v (affinity %v): the case needs a pool with an affinity", diags, rendered)
	}
	var planned nodePoolPolicyModel
	if d := setPoolOutputs(ctx, &planned, policy, rendered); d.HasError() {
		t.Fatal(d)
	}
	r := NewResource()
	old := oldPoolState(ctx, t, r, map[string]any{"name": policy.Name, "cloud": policy.Cloud,
		"accelerator": policy.Accelerator, "gpus_per_node": policy.GPUsPerNode, "affinity": planned.Affinity})
	resp := resource.ReadResponse{State: old}
	r.Read(ctx, resource.ReadRequest{State: old}, &resp)
	if resp.Diagnostics.HasError() {
		t.Fatal(resp.Diagnostics)
	}
	var refreshed types.Object
	if d := resp.State.GetAttribute(ctx, path.Root("kubernetes_v1_affinity"), &refreshed); d.HasError() {
		t.Fatal(d)
	}
	if !refreshed.Equal(planned.K8sV1Affinity) {
		t.Errorf("refresh gave\n%v\nplan computes\n%v", refreshed, planned.K8sV1Affinity)
	}
}

// oldPoolState is a gpu_node_pool_policy state with only the given
// attributes set, as an older release without the others wrote it.
func oldPoolState(ctx context.Context, t *testing.T, r resource.Resource, attrs map[string]any) tfsdk.State {
	t.Helper()
	var schemaResp resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &schemaResp)
	s := schemaResp.Schema
	state := tfsdk.State{Schema: s, Raw: tftypes.NewValue(s.Type().TerraformType(ctx), nil)}
	for name, v := range attrs {
		if d := state.SetAttribute(ctx, path.Root(name), v); d.HasError() {
			t.Fatalf("%s: %v", name, d)
		}
	}
	var before types.Object
	if d := state.GetAttribute(ctx, path.Root("kubernetes_v1_affinity"), &before); d.HasError() || !before.IsNull() {
		t.Fatalf("the old state must lack kubernetes_v1_affinity, has %v %v", before, d)
	}
	return state
}
