package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// Plan-time validation of gpu_workload: each rule fails the plan, with no
// cluster configured, on the attribute that caused it (Terraform quotes that
// attribute's source line) and says what is allowed.
func TestAccWorkload_planTimeValidation(t *testing.T) {
	cases := map[string]struct {
		cloud, gpu, extra string
		want              string
	}{
		"zero GPUs": {
			cloud: "gke", gpu: `count = 0`,
			want: `(?s)Invalid GPU count.*count = 0`,
		},
		"requests differ from limits": {
			cloud: "gke", gpu: "count = 2\n    requests = 1\n    accelerator = \"a100-40gb\"",
			want: `(?s)GPU requests must equal the limit.*requests += 1`,
		},
		"partition the model does not support": {
			cloud: "generic", gpu: "count = 1\n    accelerator = \"a100-40gb\"\n    partition = \"2g.20gb\"",
			want: `(?s)Unsupported MIG partition.*partition += "2g.20gb".*2g.10gb`,
		},
		"MIG on a model without MIG": {
			cloud: "aks", gpu: "count = 1\n    accelerator = \"v100-16gb\"\n    partition = \"1g.5gb\"",
			want: `(?s)Accelerator has no MIG.*partition += "1g.5gb"`,
		},
		"sharing with more than one GPU": {
			cloud: "gke", gpu: "count = 2\n    accelerator = \"l4\"\n    sharing = \"time-slicing\"",
			want: `(?s)Shared GPUs are requested one at a time.*count += 2`,
		},
		"sharing together with MIG": {
			cloud: "generic", gpu: "count = 1\n    accelerator = \"a100-40gb\"\n    partition = \"1g.5gb\"\n    sharing = \"mps\"",
			want: `(?s)Sharing together with MIG.*sharing += "mps"`,
		},
		"accelerator the cloud does not offer": {
			cloud: "gke", gpu: "count = 1\n    accelerator = \"a10g\"",
			want: `(?s)Accelerator not offered on gke.*accelerator = "a10g".*Accelerators offered on "gke":.*"a100-40gb"`,
		},
		"unknown cloud": {
			cloud: "digitalocean", gpu: "count = 1",
			want: `(?s)cloud.*value must be one of.*"gke-autopilot"`,
		},
		"GKE mixed MIG strategy": {
			cloud: "gke", gpu: "count = 1\n    accelerator = \"a100-40gb\"\n    partition = \"1g.5gb\"\n    mig_strategy = \"mixed\"",
			want: `(?s)MIG strategy not available on GKE.*mig_strategy += "mixed"`,
		},
		"replicas on a job": {
			cloud: "gke", gpu: "count = 1", extra: "kind = \"job\"\n  replicas = 2",
			want: `(?s)replicas is for deployments.*replicas += 2`,
		},
	}
	clearClusterEnv(t)
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			config := fmt.Sprintf(`
resource "gpu_workload" "bad" {
  name      = "bad"
  namespace = "default"
  cloud     = %q
  image     = "registry.invalid/cuda:12"
  %s
  gpu {
    %s
  }
}
`, c.cloud, c.extra, c.gpu)
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      config,
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(c.want),
				}},
			})
		})
	}
}
