package provider

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/nodepoolpolicy"
	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// kubernetes_v1_affinity is known at plan time, with no cluster: for whole-GPU
// A100 pools on EKS and AKS it holds exactly the node affinity of
// `affinity`, including the requirement that keeps their pods off MIG
// nodes; for an EKS Auto Mode pool, whose node selector says everything, it
// is null. The apply stores it and the refresh after it changes nothing.
func TestNodePoolPolicy_kubernetesV1AffinityPlanned(t *testing.T) {
	clearClusterEnv(t)
	planned := map[string]map[string]any{}
	addresses := []string{"gpu_node_pool_policy.eks_a100", "gpu_node_pool_policy.aks_a100", "gpu_node_pool_policy.eks_auto"}
	var checks []plancheck.PlanCheck
	for _, address := range addresses {
		checks = append(checks, acctest.CapturePlanned{Address: address, Into: planned})
	}
	tfresource.UnitTest(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []tfresource.TestStep{{
			Config: `
resource "gpu_node_pool_policy" "eks_a100" {
  name          = "a100"
  cloud         = "eks"
  accelerator   = "a100-40gb"
  gpus_per_node = 8
}

resource "gpu_node_pool_policy" "aks_a100" {
  name          = "a100"
  cloud         = "aks"
  accelerator   = "a100-80gb"
  gpus_per_node = 1
}

resource "gpu_node_pool_policy" "eks_auto" {
  name          = "l40s"
  cloud         = "eks-auto"
  accelerator   = "l40s"
  gpus_per_node = 4
}
`,
			ConfigPlanChecks: tfresource.ConfigPlanChecks{PreApply: checks},
		}},
	})
	for _, address := range addresses[:2] {
		after := planned[address]
		api := apiAffinity(t, after["affinity"])
		if api == nil {
			t.Fatalf("%s: no affinity planned; the case needs a pool that has one", address)
		}
		v1 := affinityFromV1Plain(t, after["kubernetes_v1_affinity"])
		assertSameAffinity(t, api, v1)
		if !excludesLabel(v1, spec.LabelMIGConfig) {
			t.Errorf("%s: kubernetes_v1_affinity does not keep the pods off MIG nodes (NotIn %s): %v",
				address, spec.LabelMIGConfig, after["kubernetes_v1_affinity"])
		}
	}
	eksAuto := planned["gpu_node_pool_policy.eks_auto"]
	if v, known := eksAuto["kubernetes_v1_affinity"]; !known || v != nil {
		t.Errorf("eks_auto: want kubernetes_v1_affinity planned null, got %v (known: %t)", v, known)
	}
}

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
	var planned nodepoolpolicy.NodePoolPolicyModel
	if d := nodepoolpolicy.SetPoolOutputs(ctx, &planned, policy, rendered); d.HasError() {
		t.Fatal(d)
	}
	r := nodepoolpolicy.NewResource()
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

// apiAffinity decodes an `affinity` value of the plan JSON (the API's
// shape); null gives nil.
func apiAffinity(t *testing.T, v any) *corev1.Affinity {
	t.Helper()
	if v == nil {
		return nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var a corev1.Affinity
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatalf("affinity %s: %v", raw, err)
	}
	return &a
}
