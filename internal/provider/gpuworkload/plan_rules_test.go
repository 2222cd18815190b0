package gpuworkload_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// Plan-time placement rules of gpu_workload that need no cluster (issue #12):
// each case fails the plan on the attribute that caused it. resource.UnitTest
// runs without TF_ACC: nothing here talks to a cluster.
func TestWorkload_planRejectsPlacementNoMachineCanServe(t *testing.T) {
	cases := map[string]struct{ cloud, gpu, want string }{
		"MIG on EKS Auto Mode": {
			cloud: "eks-auto", gpu: "count = 1\n    accelerator = \"a100-40gb\"\n    partition = \"1g.5gb\"",
			want: `(?s)MIG not configurable on EKS Auto Mode.*partition += "1g.5gb"`,
		},
		"time-slicing on EKS Auto Mode": {
			cloud: "eks-auto", gpu: "count = 1\n    accelerator = \"l4\"\n    sharing = \"time-slicing\"",
			want: `(?s)GPU sharing not configurable on EKS Auto Mode.*sharing += "time-slicing"`,
		},
		"16 L4 on GKE Autopilot": {
			cloud: "gke-autopilot", gpu: "count = 16\n    accelerator = \"l4\"",
			want: `(?s)GPU count not offered on gke-autopilot.*count += 16.*1, 2, 4 or 8`,
		},
		"16 L40S on EKS": {
			cloud: "eks", gpu: "count = 16\n    accelerator = \"l40s\"",
			want: `(?s)No machine has that many GPUs.*count += 16.*"eks" offers.*"l40s"`,
		},
	}
	acctest.ClearClusterEnv(t)
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: factories,
				Steps: []resource.TestStep{{
					Config: fmt.Sprintf(`
resource "gpu_workload" "bad" {
  name      = "bad"
  namespace = "default"
  cloud     = %q
  image     = "registry.invalid/cuda:12"
  gpu {
    %s
  }
}
`, c.cloud, c.gpu),
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(c.want),
				}},
			})
		})
	}
}
