package provider

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// gpu_pod_placement gives pod_placement's and pod_template's results on
// every Terraform version the provider supports (CI runs it on 1.5.7 too),
// with no cluster.
func TestAccPodPlacementDataSource(t *testing.T) {
	clearClusterEnv(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
provider "gpu" {
  default_cloud = "aks"
}

data "gpu_pod_placement" "a100" {
  gpu       = { accelerator = "a100-80gb", count = 1 }
  container = { name = "trainer", image = "nvcr.io/nvidia/pytorch:24.08-py3" }
}

data "gpu_pod_placement" "gke" {
  cloud = "gke"
  gpu   = { accelerator = "l4", count = 2 }
}

output "vm_size"  { value = data.gpu_pod_placement.a100.placement.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values[0] }
output "limit"    { value = data.gpu_pod_placement.a100.placement.resources.limits["nvidia.com/gpu"] }
output "template" { value = data.gpu_pod_placement.a100.pod_template.spec.containers[0].resources.limits["nvidia.com/gpu"] }
output "name"     { value = data.gpu_pod_placement.a100.pod_template.spec.containers[0].name }
output "gke"      { value = data.gpu_pod_placement.gke.placement.nodeSelector["cloud.google.com/gke-accelerator"] }
output "no_template" { value = data.gpu_pod_placement.gke.pod_template == null }
`,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckOutput("vm_size", "Standard_NC24ads_A100_v4"),
				resource.TestCheckOutput("limit", "1"),
				resource.TestCheckOutput("template", "1"),
				resource.TestCheckOutput("name", "trainer"),
				resource.TestCheckOutput("gke", "nvidia-l4"),
				resource.TestCheckOutput("no_template", "true"),
			),
		}},
	})
}

// A request gpu_workload would refuse fails the plan on the gpu attribute,
// with the inner attribute in the message.
func TestAccPodPlacementDataSource_invalidRequest(t *testing.T) {
	clearClusterEnv(t)
	cases := map[string]struct{ body, want string }{
		"accelerator the cloud does not offer": {`cloud = "gke-autopilot"
  gpu = { accelerator = "v100-16gb", count = 1 }`, `Accelerators offered on "gke-autopilot"`},
		"unknown key": {`cloud = "gke"
  gpu = { count = 1, gpus = 2 }`, `unknown key "gpus"`},
		"container without image": {`cloud = "gke"
  gpu       = { count = 1 }
  container = { name = "x" }`, `image is required`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      "data \"gpu_pod_placement\" \"bad\" {\n  " + c.body + "\n}\n",
					PlanOnly:    true,
					ExpectError: acctest.Phrases(c.want),
				}},
			})
		})
	}
}

// kubernetes_v1_affinity holds placement.affinity in kubernetes_deployment_v1's
// shape, preferred terms of a preference list included, with no cluster;
// it is null where the placement needs no affinity.
func TestPodPlacementDataSource_kubernetesV1Affinity(t *testing.T) {
	clearClusterEnv(t)
	read := map[string]map[string]any{}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
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
				captureState{address: "data.gpu_pod_placement.gke", into: read},
				captureState{address: "data.gpu_pod_placement.eks_auto", into: read},
			},
		}},
	})
	gke := read["data.gpu_pod_placement.gke"]
	placement, _ := gke["placement"].(map[string]any)
	api := apiAffinity(t, placement["affinity"])
	if api == nil || api.NodeAffinity == nil || len(api.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution) == 0 {
		t.Fatalf("the case needs preferred terms, placement.affinity is %v", placement["affinity"])
	}
	assertSameAffinity(t, api, affinityFromV1Plain(t, gke["kubernetes_v1_affinity"]))
	eksAuto := read["data.gpu_pod_placement.eks_auto"]
	if placement, _ := eksAuto["placement"].(map[string]any); len(asMap(t, placement["affinity"])) != 0 {
		t.Fatalf("the case needs a placement without affinity, got %v", placement["affinity"])
	}
	if v, known := eksAuto["kubernetes_v1_affinity"]; !known || v != nil {
		t.Errorf("eks_auto: want kubernetes_v1_affinity null, got %v (known: %t)", v, known)
	}
}

// captureState records a resource's or data source's values in the state,
// for assertions once the test case has run.
type captureState struct {
	address string
	into    map[string]map[string]any
}

func (c captureState) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	if req.State != nil && req.State.Values != nil && req.State.Values.RootModule != nil {
		for _, r := range req.State.Values.RootModule.Resources {
			if r.Address == c.address {
				c.into[c.address] = r.AttributeValues
				return
			}
		}
	}
	resp.Error = fmt.Errorf("%s is not in the state", c.address)
}
