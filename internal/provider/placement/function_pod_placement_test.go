package placement_test

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// pod_placement gives what gpu_workload would put into the pod, in
// Kubernetes JSON shape, usable with no cluster.
func TestPodPlacementFunction(t *testing.T) {
	acctest.ClearClusterEnv(t)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		TerraformVersionChecks:   acctest.FunctionsVersion,
		Steps: []resource.TestStep{{
			Config: `
locals {
  l4  = provider::gpu::pod_placement("gke", { accelerator = "l4", count = 2, spot = true })
  mig = provider::gpu::pod_placement("generic", { accelerator = "a100-40gb", partition = "1g.5gb", mig_strategy = "mixed", count = 1 })
}
output "accelerator" { value = local.l4.nodeSelector["cloud.google.com/gke-accelerator"] }
output "spot"        { value = local.l4.nodeSelector["cloud.google.com/gke-spot"] }
output "limit"       { value = local.l4.resources.limits["nvidia.com/gpu"] }
output "request"     { value = local.l4.resources.requests["nvidia.com/gpu"] }
output "tolerated"   { value = contains([for t in local.l4.tolerations : t.key], "nvidia.com/gpu") }
output "driver_env"  { value = one([for e in local.l4.env : e.value if e.name == "LD_LIBRARY_PATH"]) }
output "mig_limit"   { value = local.mig.resources.limits["nvidia.com/mig-1g.5gb"] }
`,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckOutput("accelerator", "nvidia-l4"),
				resource.TestCheckOutput("spot", "true"),
				resource.TestCheckOutput("limit", "2"),
				resource.TestCheckOutput("request", "2"),
				resource.TestCheckOutput("tolerated", "true"),
				resource.TestCheckOutput("driver_env", "/usr/local/nvidia/lib64"),
				resource.TestCheckOutput("mig_limit", "1"),
			),
		}},
	})
}

// pod_template gives a whole pod template whose container carries the GPU.
func TestPodTemplateFunction(t *testing.T) {
	acctest.ClearClusterEnv(t)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		TerraformVersionChecks:   acctest.FunctionsVersion,
		Steps: []resource.TestStep{{
			Config: `
locals {
  template = provider::gpu::pod_template("eks", { accelerator = "a10g", count = 4 }, {
    name  = "worker"
    image = "vllm/vllm-openai:v0.6.0"
    args  = ["--tensor-parallel-size", "4"]
    env   = { HF_HOME = "/models" }
  })
}
output "name"     { value = local.template.spec.containers[0].name }
output "image"    { value = local.template.spec.containers[0].image }
output "arg"      { value = local.template.spec.containers[0].args[1] }
output "limit"    { value = local.template.spec.containers[0].resources.limits["nvidia.com/gpu"] }
output "env"      { value = local.template.spec.containers[0].env[0].name }
output "selected" { value = local.template.spec.nodeSelector["k8s.amazonaws.com/accelerator"] }
`,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckOutput("name", "worker"),
				resource.TestCheckOutput("image", "vllm/vllm-openai:v0.6.0"),
				resource.TestCheckOutput("arg", "4"),
				resource.TestCheckOutput("limit", "4"),
				resource.TestCheckOutput("env", "HF_HOME"),
				resource.TestCheckOutput("selected", "nvidia-a10g"),
			),
		}},
	})
}

// A request gpu_workload would refuse fails the function call, naming the
// argument and the attribute, and saying what is allowed.
func TestPlacementFunctions_invalidArguments(t *testing.T) {
	cases := map[string]struct {
		call string
		want *regexp.Regexp
	}{
		"unknown cloud": {`provider::gpu::pod_placement("gcp", { count = 1 })`,
			acctest.Phrases(`Invalid value for "cloud" parameter`, `"gcp"`, `did you mean "gke"?`, `allowed values`)},
		"accelerator the cloud does not offer": {`provider::gpu::pod_placement("gke-autopilot", { accelerator = "v100-16gb", count = 1 })`,
			acctest.Phrases(`Invalid value for "gpu" parameter`, `gpu.accelerator`, `Accelerators offered on "gke-autopilot"`)},
		"too many GPUs for any machine": {`provider::gpu::pod_placement("eks", { accelerator = "l40s", count = 16 })`,
			acctest.Phrases(`Invalid value for "gpu" parameter`, `gpu.count`)},
		"unknown key": {`provider::gpu::pod_placement("gke", { count = 1, gpus = 1 })`,
			acctest.Phrases(`Invalid value for "gpu" parameter`, `unknown key "gpus"`, `Allowed:`, `"count"`)},
		"no count": {`provider::gpu::pod_placement("gke", { accelerator = "l4" })`,
			acctest.Phrases(`Invalid value for "gpu" parameter`, `count is required`)},
		"fractional count": {`provider::gpu::pod_placement("gke", { count = 1.5 })`,
			acctest.Phrases(`Invalid value for "gpu" parameter`, `count`)},
		"bad node pool": {`provider::gpu::pod_placement("gke", { count = 1, node_pool = "nope" })`,
			acctest.Phrases(`Invalid value for "gpu" parameter`, `node_pool is a string`, `gpu_node_pool_policy.a100.ref`)},
		"container without image": {`provider::gpu::pod_template("gke", { count = 1 }, { name = "x" })`,
			acctest.Phrases(`Invalid value for "container" parameter`, `image is required`)},
		"container with an unknown key": {`provider::gpu::pod_template("gke", { count = 1 }, { image = "x", ports = [80] })`,
			acctest.Phrases(`Invalid value for "container" parameter`, `unknown key "ports"`)},
	}
	acctest.ClearClusterEnv(t)
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: factories,
				TerraformVersionChecks:   acctest.FunctionsVersion,
				Steps: []resource.TestStep{{
					Config:      "output \"x\" {\n  value = " + c.call + "\n}\n",
					PlanOnly:    true,
					ExpectError: c.want,
				}},
			})
		})
	}
}
