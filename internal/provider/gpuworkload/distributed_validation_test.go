package gpuworkload_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// Plan-time validation of a distributed_job, in the style of
// TestWorkload_planTimeValidation: each rule fails the plan, with no
// cluster configured, on the line that caused it, and says what is allowed.
func TestWorkload_distributedPlanTimeValidation(t *testing.T) {
	const kind = "kind = \"distributed_job\"\n  "
	cases := map[string]struct {
		gpu, extra string
		want       string
	}{
		"unknown launcher": {
			gpu: "count = 8", extra: kind + "distributed {\n    nodes = 2\n    launcher = \"mpirun\"\n  }",
			want: `(?s)launcher.*value must be one of.*"torchrun".*"none"`,
		},
		"zero nodes": {
			gpu: "count = 8", extra: kind + "distributed {\n    nodes = 0\n  }",
			want: `(?s)nodes = 0.*must be between 1 and 100000`,
		},
		"no nodes": {
			gpu: "count = 8", extra: kind + "distributed {\n    launcher = \"none\"\n  }",
			want: `(?s)Missing distributed.nodes.*Allowed:\s+a\s+distributed\s+\{\s+nodes\s+=\s+N\s+\}\s+block`,
		},
		"no distributed block": {
			gpu: "count = 8", extra: `kind = "distributed_job"`,
			want: `(?s)Missing distributed.nodes`,
		},
		"port out of range": {
			gpu: "count = 8", extra: kind + "distributed {\n    nodes = 2\n    port = 70000\n  }",
			want: `(?s)port = 70000.*must be between 1 and 65535`,
		},
		"distributed block on a job": {
			gpu: "count = 8", extra: "kind = \"job\"\n  distributed {\n    nodes = 2\n  }",
			want: `(?s)distributed block is for distributed jobs.*Allowed: remove the block, or use kind\s+=\s+"distributed_job"`,
		},
		"distributed block on a deployment": {
			gpu: "count = 1", extra: "distributed {\n    nodes = 2\n  }",
			want: `(?s)distributed block is for distributed jobs`,
		},
		"job completions beside nodes": {
			gpu: "count = 8", extra: kind + "distributed {\n    nodes = 2\n  }\n  job {\n    completions = 4\n  }",
			want: `(?s)job.completions is distributed.nodes here.*completions = 4.*Allowed: remove job.completions`,
		},
		"job parallelism beside nodes": {
			gpu: "count = 8", extra: kind + "distributed {\n    nodes = 2\n  }\n  job {\n    parallelism = 4\n  }",
			want: `(?s)job.parallelism is distributed.nodes here`,
		},
		"nodes on MIG instances": {
			gpu:   "count = 1\n    accelerator = \"a100-40gb\"\n    partition = \"1g.5gb\"",
			extra: kind + "distributed {\n    nodes = 2\n  }",
			want:  `(?s)A distributed job needs whole GPUs.*partition += "1g.5gb".*NCCL`,
		},
		"nodes on shared GPUs": {
			gpu:   "count = 1\n    accelerator = \"l4\"\n    sharing = \"time-slicing\"",
			extra: kind + "distributed {\n    nodes = 2\n  }",
			want:  `(?s)A distributed job needs whole GPUs.*sharing += "time-slicing"`,
		},
		"nodes without GPUs": {
			gpu: "count = 0", extra: kind + "distributed {\n    nodes = 2\n  }",
			want: `(?s)Invalid GPU count.*count = 0`,
		},
		"launcher variable in env": {
			gpu: "count = 8", extra: kind + "distributed {\n    nodes = 2\n  }\n  env = { PET_NNODES = \"2\" }",
			want: `(?s)PET_NNODES is set by the launcher.*PET_NNODES = "2".*Allowed:\s+remove\s+it\s+from\s+env`,
		},
		"launcher variable in secret_env": {
			gpu: "count = 8", extra: kind + "distributed {\n    nodes = 2\n  }\n  secret_env = { PET_MASTER_ADDR = { name = \"s\", key = \"k\" } }",
			want: `(?s)PET_MASTER_ADDR is set by the launcher.*from\s+secret_env`,
		},
	}
	acctest.ClearClusterEnv(t)
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			config := fmt.Sprintf(`
resource "gpu_workload" "bad" {
  name      = "bad"
  namespace = "default"
  cloud     = "generic"
  image     = "registry.invalid/cuda:12"
  %s
  gpu {
    %s
  }
}
`, c.extra, c.gpu)
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: factories,
				Steps: []resource.TestStep{{
					Config:      config,
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(c.want),
				}},
			})
		})
	}
}
