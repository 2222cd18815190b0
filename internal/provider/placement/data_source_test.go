package placement_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// kubernetes_v1_affinity holds placement.affinity in kubernetes_deployment_v1's
// shape, preferred terms of a preference list included, with no cluster;
// it is null where the placement needs no affinity.
func TestPodPlacementDataSource_kubernetesV1Affinity(t *testing.T) {
	acctest.ClearClusterEnv(t)
	read := map[string]map[string]any{}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{{
			Config: `
data "gpu_pod_placement" "gke" {
  cloud = "gke"
  gpu   = { accelerators = ["l4", "a100-40gb"], count = 1 }
}

data "gpu_pod_placement" "eks_auto" {
  cloud = "eks-auto"
  gpu   = { accelerator = "l40s", count = 1 }
}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				acctest.CaptureState{Address: "data.gpu_pod_placement.gke", Into: read},
				acctest.CaptureState{Address: "data.gpu_pod_placement.eks_auto", Into: read},
			},
		}},
	})
	gke := read["data.gpu_pod_placement.gke"]
	placement, _ := gke["placement"].(map[string]any)
	api := acctest.APIAffinity(t, placement["affinity"])
	if api == nil || api.NodeAffinity == nil || len(api.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution) == 0 {
		t.Fatalf("the case needs preferred terms, placement.affinity is %v", placement["affinity"])
	}
	acctest.AssertSameAffinity(t, api, acctest.AffinityFromV1Plain(t, gke["kubernetes_v1_affinity"]))
	eksAuto := read["data.gpu_pod_placement.eks_auto"]
	if placement, _ := eksAuto["placement"].(map[string]any); len(acctest.AsMap(t, placement["affinity"])) != 0 {
		t.Fatalf("the case needs a placement without affinity, got %v", placement["affinity"])
	}
	if v, known := eksAuto["kubernetes_v1_affinity"]; !known || v != nil {
		t.Errorf("eks_auto: want kubernetes_v1_affinity null, got %v (known: %t)", v, known)
	}
}
