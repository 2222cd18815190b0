package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

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
