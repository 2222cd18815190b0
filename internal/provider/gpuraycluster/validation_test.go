package gpuraycluster_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
)

// pools are two EKS node groups (8 H100s, 1 L4 per node) and the gpu
// provider block without a cluster.
const pools = `
provider "gpu" {}

resource "gpu_node_pool_policy" "h100" {
  name          = "h100"
  cloud         = "eks"
  accelerator   = "h100-80gb"
  gpus_per_node = 8
}

resource "gpu_node_pool_policy" "l4" {
  name          = "l4"
  cloud         = "eks"
  accelerator   = "l4"
  gpus_per_node = 1
}
`

// cluster is a gpu_ray_cluster with the given blocks, rendered only.
func cluster(blocks string) string {
	return pools + `
resource "gpu_ray_cluster" "test" {
  name      = "llm"
  namespace = "ml"
  image     = "rayproject/ray:2.52.0-gpu"
  cloud     = "eks"
  apply     = false
` + blocks + `
}
`
}

// phrases matches each part in order, across Terraform's line wrapping.
func phrases(parts ...string) *regexp.Regexp {
	quoted := make([]string, len(parts))
	for i, p := range parts {
		quoted[i] = strings.ReplaceAll(regexp.QuoteMeta(p), " ", `\s+`)
	}
	return regexp.MustCompile(`(?s)` + strings.Join(quoted, `.*`))
}

func planFails(t *testing.T, config string, want *regexp.Regexp) {
	t.Helper()
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps:                    []resource.TestStep{{Config: config, PlanOnly: true, ExpectError: want}},
	})
}

// Plan-time validation of gpu_ray_cluster (the bad-input suite): each rule
// fails the plan on the attribute that caused it, with no cluster.
func TestRayCluster_planTimeValidation(t *testing.T) {
	cases := map[string]struct{ blocks, want string }{
		"num-gpus contradicting the group's limits": {
			blocks: `
  worker_group {
    name             = "train"
    node_pool        = gpu_node_pool_policy.h100.ref
    ray_start_params = { "num-gpus" = "4" }
    gpu {
      count = 8
    }
  }`,
			want: `num-gpus contradicts the GPUs the pod gets|ray_start_params = { "num-gpus" = "4" }|num-gpus = "4", but its pod gets 8 GPUs`,
		},
		"a head with GPUs through num-gpus and no gpu block": {
			blocks: `
  head {
    ray_start_params = { "num-gpus" = "1" }
  }`,
			want: `num-gpus contradicts the GPUs the pod gets|ray_start_params = { "num-gpus" = "1" }|The head tells Ray|no gpu block`,
		},
		"replicas outside min and max": {
			blocks: `
  autoscaling {}
  worker_group {
    name         = "train"
    node_pool    = gpu_node_pool_policy.h100.ref
    replicas     = 5
    min_replicas = 1
    max_replicas = 3
    gpu {
      count = 8
    }
  }`,
			want: `replicas outside [min_replicas, max_replicas]|replicas     = 5|outside [1, 3]`,
		},
		"duplicate group names": {
			blocks: `
  worker_group {
    name      = "train"
    node_pool = gpu_node_pool_policy.h100.ref
    gpu {
      count = 8
    }
  }
  worker_group {
    name      = "train"
    node_pool = gpu_node_pool_policy.l4.ref
    gpu {
      count = 1
    }
  }`,
			want: `Duplicate worker group name|line 43|name      = "train"|already the name of worker_group[0]`,
		},
		"job with a TTL and no shutdown": {
			blocks: `
  job {
    entrypoint                  = "python train.py"
    shutdown_after_job_finishes = false
    ttl_seconds_after_finished  = 60
  }`,
			want: `TTL without shutdown|ttl_seconds_after_finished  = 60|Allowed: shutdown_after_job_finishes = true`,
		},
		"job and serve together": {
			blocks: `
  job {
    entrypoint = "python train.py"
  }
  serve {
    config_yaml = "applications: []"
  }`,
			want: `job and serve together`,
		},
		"labels in ray_start_params": {
			blocks: `
  head {
    ray_start_params = { labels = "a=b" }
  }`,
			want: `Ray labels in ray_start_params`,
		},
		"a topology level the pool does not have": {
			blocks: `
  worker_group {
    name      = "train"
    node_pool = gpu_node_pool_policy.h100.ref
    replicas  = 2
    gpu {
      count = 8
    }
    topology {
      level = "rack"
    }
  }`,
			want: `Unknown topology level|level = "rack"|"rack" is not one of`,
		},
		"topology slices without a queue": {
			blocks: `
  worker_group {
    name      = "train"
    node_pool = gpu_node_pool_policy.h100.ref
    replicas  = 4
    gpu {
      count = 8
    }
    topology {
      level       = "layer-2"
      slice_size  = 2
      slice_level = "layer-3"
    }
  }`,
			want: `Slices need Kueue|slice_size  = 2`,
		},
		"an unknown wait_for": {
			blocks: `  wait_for = "rollout"`,
			want:   `wait_for|value must be one of|"ready"`,
		},
		"complete without a job": {
			blocks: `  wait_for = "complete"`,
			want:   `Nothing completes`,
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			planFails(t, cluster(c.blocks), phrases(strings.Split(c.want, "|")...))
		})
	}
}

// A worker group Kueue can never admit to the queue: its 8 H100s per pod
// are in no flavor of a queue over the L4 pool (ray.CheckQueue, on the
// group's block).
func TestRayCluster_groupTheQueueCannotAdmit(t *testing.T) {
	planFails(t, cluster(`
  queue = gpu_queue.q.ref
  worker_group {
    name      = "train"
    node_pool = gpu_node_pool_policy.h100.ref
    replicas  = 1
    gpu {
      count = 8
    }
  }`)+`
resource "gpu_queue" "q" {
  name       = "team-a"
  namespaces = ["ml"]
  flavor {
    node_pool = gpu_node_pool_policy.l4.ref
    gpus      = 4
  }
}
`, phrases(`No flavor of the queue covers these GPUs`, `Pod set "train" (1 pods)`, `h100-80gb`))
}

// Blocks and values known only at apply (a dynamic worker_group over an
// unknown list, an unknown GPU count) plan without a conversion error, the
// manifests unknown until then; known ones render, num_gpus per group.
func TestRayCluster_unknownAndKnownPlans(t *testing.T) {
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{{
			PlanOnly: true, ExpectNonEmptyPlan: true,
			Config: cluster(`
  head {
    cpu    = "4"
    memory = "16Gi"
  }
  dynamic "worker_group" {
    for_each = terraform_data.groups.output
    content {
      name      = worker_group.value
      node_pool = gpu_node_pool_policy.h100.ref
      gpu {
        count = terraform_data.count.output
      }
      topology {
        level = terraform_data.level.output
      }
    }
  }`) + `
resource "terraform_data" "level" {
  input = "layer-3"
}
resource "terraform_data" "groups" {
  input = ["train"]
}
resource "terraform_data" "count" {
  input = 8
}
resource "gpu_ray_cluster" "known" {
  name      = "known"
  namespace = "ml"
  cloud     = "eks"
  image     = "rayproject/ray:2.52.0-gpu"
  apply     = false
  worker_group {
    name      = "serve"
    node_pool = gpu_node_pool_policy.l4.ref
    replicas  = 3
    gpu {
      count = 1
    }
  }
}
output "num_gpus" {
  value = gpu_ray_cluster.known.num_gpus
}
output "manifest" {
  value = join("---\n", gpu_ray_cluster.known.manifests)
}
`,
		}},
	})
}

// Adding a job block turns the RayCluster into a RayJob, which Kubernetes
// cannot do in place: the plan replaces the object; a change inside the
// block updates it.
func TestRayCluster_kindChangeReplaces(t *testing.T) {
	worker := `
  worker_group {
    name      = "train"
    node_pool = gpu_node_pool_policy.h100.ref
    gpu {
      count = 8
    }
  }`
	job := func(entrypoint string) string {
		return worker + `
  job {
    entrypoint = "` + entrypoint + `"
  }`
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{
			{Config: cluster(worker)},
			{
				Config: cluster(job("python train.py")),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("gpu_ray_cluster.test", plancheck.ResourceActionReplace),
				}},
			},
			{
				Config: cluster(job("python train.py --epochs 2")),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("gpu_ray_cluster.test", plancheck.ResourceActionUpdate),
				}},
			},
		},
	})
}

// A group's patch renders into the plan's manifests, and one that
// contradicts the pod's GPUs fails the plan on the group's patch line.
func TestRayCluster_groupPatch(t *testing.T) {
	group := func(patch string) string {
		return `
  worker_group {
    name      = "train"
    node_pool = gpu_node_pool_policy.h100.ref
    gpu {
      count = 8
    }
    patch = <<-EOT
` + patch + `
    EOT
  }`
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{
			{
				Config: cluster(group(`      rayStartParams:
        num-gpus: "4"`)),
				PlanOnly:    true,
				ExpectError: phrases(`num-gpus contradicts the GPUs the pod gets`, `patch = <<-EOT`, `num-gpus = "4", but its pod gets 8 GPUs`),
			},
			{
				Config: cluster(group(`      idleTimeoutSeconds: 120
      template:
        spec:
          priorityClassName: high`)),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestMatchResourceAttr("gpu_ray_cluster.test", "manifests.0",
						regexp.MustCompile(`(?s)idleTimeoutSeconds: 120.*priorityClassName: high`)),
				),
			},
		},
	})
}

// How many worker groups a queued cluster may have is the Kueue release's
// rule: 8 groups fail the plan under kueue_version v0.17 (at most 7) and
// pass under v0.18 (at most 9).
func TestRayCluster_workerGroupLimitFollowsKueueRelease(t *testing.T) {
	config := func(release string) string {
		groups := ""
		for i := range 8 {
			groups += fmt.Sprintf(`
  worker_group {
    name      = "g%d"
    node_pool = gpu_node_pool_policy.l4.ref
    gpu {
      count = 1
    }
  }`, i)
		}
		return strings.Replace(cluster(`  queue = "team-a"`+groups), `provider "gpu" {}`,
			fmt.Sprintf(`provider "gpu" {
  kueue_version = %q
}`, release), 1)
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{
			{Config: config("v0.17"), PlanOnly: true,
				ExpectError: phrases("Too many worker groups for Kueue", "Kueue v0.17's webhook refuses a Ray cluster of more than 7")},
			{Config: config("v0.18"), PlanOnly: true, ExpectNonEmptyPlan: true},
		},
	})
}
