package nodepoolpolicy_test

import (
	"testing"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// kubernetes_v1_affinity is known at plan time, with no cluster: for whole-GPU
// A100 pools on EKS and AKS it holds exactly the node affinity of
// `affinity`, including the requirement that keeps their pods off MIG
// nodes; for an EKS Auto Mode pool, whose node selector says everything, it
// is null. The apply stores it and the refresh after it changes nothing.
func TestNodePoolPolicy_kubernetesV1AffinityPlanned(t *testing.T) {
	acctest.ClearClusterEnv(t)
	planned := map[string]map[string]any{}
	addresses := []string{"gpu_node_pool_policy.eks_a100", "gpu_node_pool_policy.aks_a100", "gpu_node_pool_policy.eks_auto"}
	var checks []plancheck.PlanCheck
	for _, address := range addresses {
		checks = append(checks, acctest.CapturePlanned{Address: address, Into: planned})
	}
	tfresource.UnitTest(t, tfresource.TestCase{
		ProtoV6ProviderFactories: factories,
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
		api := acctest.APIAffinity(t, after["affinity"])
		if api == nil {
			t.Fatalf("%s: no affinity planned; the case needs a pool that has one", address)
		}
		v1 := acctest.AffinityFromV1Plain(t, after["kubernetes_v1_affinity"])
		acctest.AssertSameAffinity(t, api, v1)
		if !acctest.ExcludesLabel(v1, spec.LabelMIGConfig) {
			t.Errorf("%s: kubernetes_v1_affinity does not keep the pods off MIG nodes (NotIn %s): %v",
				address, spec.LabelMIGConfig, after["kubernetes_v1_affinity"])
		}
	}
	eksAuto := planned["gpu_node_pool_policy.eks_auto"]
	if v, known := eksAuto["kubernetes_v1_affinity"]; !known || v != nil {
		t.Errorf("eks_auto: want kubernetes_v1_affinity planned null, got %v (known: %t)", v, known)
	}
}
