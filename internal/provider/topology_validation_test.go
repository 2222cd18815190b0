package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// Plan-time validation of topology (issue #33), with no cluster: each rule
// fails the plan on the attribute that caused it (Terraform quotes its
// line) and says what is allowed.

// tasPlanConfig is a GKE H100 pool with poolTopology, a queue over it, and a
// Job of pods x 8 GPUs with the workload's topology block.
func tasPlanConfig(poolTopology string, pods int, queue, topology string) string {
	return fmt.Sprintf(`
provider "gpu" {}

resource "gpu_node_pool_policy" "p" {
  name          = "h100-tas"
  cloud         = "gke"
  accelerator   = "h100-80gb"
  gpus_per_node = 8
  %[1]s
}

resource "gpu_queue" "q" {
  name  = "tas"
  apply = false
  flavor {
    node_pool = gpu_node_pool_policy.p.ref
    gpus      = 64
  }
}

resource "gpu_workload" "train" {
  name      = "train"
  namespace = "ml"
  kind      = "job"
  node_pool = gpu_node_pool_policy.p.ref
  %[3]s
  image     = "registry.invalid/pytorch:24"
  apply     = false
  gpu {
    count = 8
  }
  job {
    parallelism = %[2]d
  }
  topology {
    %[4]s
  }
}
`, poolTopology, pods, queue, topology)
}

func TestTopology_planTimeValidation(t *testing.T) {
	shaped := "topology {\n    nodes_per_domain = { block = 4, subblock = 2 }\n  }"
	inQueue := "queue = gpu_queue.q.ref"
	cases := map[string]struct {
		config string
		want   string
	}{
		"pool level the cloud does not have": {
			config: tasPlanConfig("topology {\n    levels = [\"rack\"]\n  }", 2, inQueue, `level = "block"`),
			want:   `(?s)Unknown topology level.*levels = \["rack"\].*Allowed: "block", "subblock", "host", "node"`,
		},
		"generic pool without levels": {
			config: `
resource "gpu_node_pool_policy" "g" {
  name          = "nvl72"
  cloud         = "generic"
  accelerator   = "gb200"
  gpus_per_node = 4
  topology {}
}`,
			want: `(?s)No topology levels on generic.*Allowed: levels named "clique", "node"`,
		},
		"shape of a level the pool lacks": {
			config: tasPlanConfig("topology {\n    nodes_per_domain = { rack = 2 }\n  }", 2, inQueue, `level = "block"`),
			want:   `(?s)Not a level of the pool.*nodes_per_domain.*Allowed: "block", "subblock", "host"`,
		},
		"zero nodes per domain": {
			config: tasPlanConfig("topology {\n    nodes_per_domain = { block = 0 }\n  }", 2, inQueue, `level = "block"`),
			want:   `(?s)nodes_per_domain.*at least 1`,
		},
		"workload level the pool lacks": {
			config: tasPlanConfig(shaped, 2, inQueue, `level = "clique"`),
			want:   `(?s)Unknown topology level.*level = "clique".*Allowed: "block", "subblock", "host", "node"`,
		},
		"pods larger than a block": {
			config: tasPlanConfig(shaped, 5, inQueue, `level = "block"`),
			want:   `(?s)The pods cannot fit one block.*level = "block".*5 pods \(job.parallelism\) of 8 GPUs need 5 nodes.*Allowed: at most 4 pods`,
		},
		"queue over a pool without topology": {
			config: tasPlanConfig("", 2, inQueue, `level = "block"`),
			want:   `(?s)The queue's flavor has no topology.*level = "block".*Allowed: add a topology block to the gpu_node_pool_policy`,
		},
		"slices without a queue": {
			config: tasPlanConfig(shaped, 4, "", "level = \"block\"\n    slice_size = 2\n    slice_level = \"subblock\""),
			want:   `(?s)Slices need Kueue.*slice_size = 2`,
		},
		"slice_size without slice_level": {
			config: tasPlanConfig(shaped, 4, inQueue, "level = \"block\"\n    slice_size = 2"),
			want:   `(?s)slice_size.*slice_level.*must be specified`,
		},
		"NVLink domain on a model without one": {
			config: tasPlanConfig(shaped, 2, "", "level = \"block\"\n    nvlink_domain = true"),
			want:   `(?s)No NVLink domain across nodes on h100-80gb.*nvlink_domain = true.*Allowed: a workload on a node pool \(or with gpu.accelerator\) of "gb200"`,
		},
		"NVLink domain on a level other than clique": {
			config: nvl72PlanConfig(`level = "node"` + "\n    nvlink_domain = true"),
			want:   `(?s)An NVLink domain needs the clique level.*nvlink_domain = true.*Allowed: level = "clique"`,
		},
		"mode that does not exist": {
			config: tasPlanConfig(shaped, 2, inQueue, "level = \"block\"\n    mode = \"strict\""),
			want:   `(?s)mode = "strict".*"required".*"preferred"`,
		},
	}
	clearClusterEnv(t)
	for name, c := range cases {
		t.Run(name, func(t *testing.T) { planFails(t, c.config, regexp.MustCompile(strings.ReplaceAll(c.want, " ", `\s+`))) })
	}
}

// The multi-node guide's example plans cleanly with no cluster.
func TestExamples_multiNodeGuidePlans(t *testing.T) {
	clearClusterEnv(t)
	src, err := os.ReadFile(filepath.Join(acctest.RepoRoot(t), "examples", "guides", "multi-node", "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps:                    []resource.TestStep{{Config: string(src), PlanOnly: true, ExpectNonEmptyPlan: true}},
	})
}

// nvl72PlanConfig is a Job of 2 x 4 GB200 on a generic NVL72 pool with
// clique and node levels, and the workload's topology block.
func nvl72PlanConfig(topology string) string {
	return fmt.Sprintf(`
provider "gpu" {}

resource "gpu_node_pool_policy" "g" {
  name          = "nvl72"
  cloud         = "generic"
  accelerator   = "gb200"
  gpus_per_node = 4
  topology {
    levels = ["clique", "node"]
  }
}

resource "gpu_workload" "train" {
  name      = "train"
  namespace = "ml"
  kind      = "job"
  node_pool = gpu_node_pool_policy.g.ref
  image     = "registry.invalid/pytorch:24"
  apply     = false
  gpu {
    count = 4
  }
  job {
    parallelism = 2
  }
  topology {
    %s
  }
}
`, topology)
}
