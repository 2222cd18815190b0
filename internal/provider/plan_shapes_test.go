package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// Plan shapes (issue #30): every block and list of every resource accepts
// values known only after apply, the way platform teams write them:
// dynamic blocks over a list another resource produces, and for_each with
// known keys and unknown values. terraform_data's output is unknown until
// it is created, so each configuration below plans with unknowns. A
// framework value conversion error ("Received unknown value") is a
// provider bug; the plan must succeed and leave the derived values unknown,
// and the apply must converge (an empty plan after it).

// laterValues is a terraform_data whose output (known after apply) feeds
// the dynamic blocks.
const laterValues = `
resource "terraform_data" "later" {
  input = {
    gpus        = 8
    accelerator = "a100-40gb"
    taints      = [{ key = "team", value = "ml", effect = "NoSchedule" }]
    flavors     = [{ pool = "a100", gpus = 8 }]
    deployments = [{ key = "gpuA100", replicas = 1 }]
    selectors   = ["device.attributes[\"gpu.nvidia.com\"].type == \"gpu\""]
    none        = []
  }
}
`

// planShape is one configuration of a plan-shape test: attr of every
// address in unknown must be unknown in its plan. With apply it is also
// applied (nothing in these configurations needs a cluster) and the plan
// after must be empty.
type planShape struct {
	config  string
	attr    string
	unknown []string
	apply   bool
}

// planShapes runs the shapes as steps: the plan-only ones first, so the
// applied ones start from an empty state. for_each configurations are plan
// only: the test harness's state reader cannot read for_each instances.
func planShapes(t *testing.T, shapes ...planShape) {
	t.Helper()
	clearClusterEnv(t)
	var planOnly, applied []resource.TestStep
	for _, sh := range shapes {
		var checks []plancheck.PlanCheck
		for _, addr := range sh.unknown {
			checks = append(checks, plancheck.ExpectUnknownValue(addr, tfjsonpath.New(sh.attr)))
		}
		step := resource.TestStep{Config: offlineProvider + laterValues + sh.config}
		if sh.apply {
			step.ConfigPlanChecks.PreApply = checks
			applied = append(applied, step)
			continue
		}
		step.PlanOnly, step.ExpectNonEmptyPlan = true, true
		step.ConfigPlanChecks.PostApplyPostRefresh = checks
		planOnly = append(planOnly, step)
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		// terraform_data is Terraform 1.4's.
		TerraformVersionChecks: []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_4_0)},
		Steps:                  append(planOnly, applied...),
	})
}

// offlineProvider configures nothing: planning never contacts a
// cluster.
const offlineProvider = `
provider "gpu" {
  default_cloud = "gke"
}
`

func TestPlanShapes_queue(t *testing.T) {
	planShapes(t, planShape{apply: true, attr: "ref", unknown: []string{"gpu_queue.dynamic", "gpu_queue.empty"}, config: acctest.QueuePools + `
resource "gpu_queue" "dynamic" {
  name       = "team-a"
  namespaces = ["team-a"]
  cohort     = "org"
  apply      = false
  dynamic "flavor" {
    for_each = terraform_data.later.output.flavors
    content {
      node_pool           = gpu_node_pool_policy.a100.ref
      gpus                = flavor.value.gpus
      borrowing_limit     = flavor.value.gpus / 2
      cpu_borrowing_limit = "${flavor.value.gpus}"
    }
  }
  flavor {
    node_pool     = gpu_node_pool_policy.a100_mig.ref
    mig_instances = 24
  }
  dynamic "preemption" {
    for_each = terraform_data.later.output.flavors
    content {
      within_cluster_queue = "LowerPriority"
    }
  }
}

# A list block that ends up empty: the static flavor alone remains.
resource "gpu_queue" "empty" {
  name       = "team-b"
  namespaces = ["team-b"]
  apply      = false
  flavor {
    node_pool = gpu_node_pool_policy.a100.ref
    gpus      = 8
  }
  dynamic "flavor" {
    for_each = terraform_data.later.output.none
    content {
      node_pool = gpu_node_pool_policy.h100.ref
      gpus      = 8
    }
  }
}
`}, planShape{attr: "ref", unknown: []string{`gpu_queue.each["a"]`}, config: acctest.QueuePools + `
resource "gpu_queue" "each" {
  for_each   = { a = terraform_data.later.output.gpus }
  name       = "team-${each.key}"
  namespaces = ["team-${each.key}"]
  apply      = false
  flavor {
    node_pool = gpu_node_pool_policy.a100.ref
    gpus      = each.value
  }
  flavor {
    node_pool     = gpu_node_pool_policy.a100_mig.ref
    mig_instances = each.value * 3
  }
}
`})
}

// A dynamic single block that ends up with no block at all cannot be
// applied with any provider: Terraform plans it as a placeholder block and
// its own final-plan check refuses the block's absence (docs/design/framework.md).
// Such blocks are planned here, and applied where the list is not empty.
func TestPlanShapes_pool(t *testing.T) {
	planShapes(t, planShape{attr: "ref", unknown: []string{"gpu_node_pool_policy.dynamic"}, config: `
resource "gpu_node_pool_policy" "dynamic" {
  name          = "generic-a100"
  cloud         = "generic"
  accelerator   = terraform_data.later.output.accelerator
  gpus_per_node = terraform_data.later.output.gpus
  taints        = terraform_data.later.output.taints
  labels        = { team = terraform_data.later.output.accelerator }
  dynamic "manage_nodes" {
    for_each = terraform_data.later.output.flavors
    content {
      selector = "pool=${manage_nodes.value.pool}"
    }
  }
  dynamic "device_plugin_config" {
    for_each = terraform_data.later.output.flavors
    content {
      namespace = "gpu-operator"
      name      = "device-plugin-config"
    }
  }
}
`}, planShape{attr: "ref", unknown: []string{`gpu_node_pool_policy.each["a100"]`}, config: `
resource "gpu_node_pool_policy" "each" {
  for_each      = { a100 = terraform_data.later.output.gpus }
  name          = each.key
  cloud         = "gke"
  accelerator   = "a100-40gb"
  gpus_per_node = each.value
}
`}, planShape{apply: true, attr: "ref", unknown: []string{"gpu_node_pool_policy.count[0]"}, config: `
resource "gpu_node_pool_policy" "count" {
  count         = 1
  name          = "generic-a100"
  cloud         = "generic"
  accelerator   = terraform_data.later.output.accelerator
  gpus_per_node = terraform_data.later.output.gpus
  taints        = terraform_data.later.output.taints
}
`})
}

func TestPlanShapes_workload(t *testing.T) {
	planShapes(t, planShape{apply: true, attr: "manifests", unknown: []string{"gpu_workload.dynamic"}, config: `
resource "gpu_workload" "dynamic" {
  name      = "train"
  namespace = "ml"
  kind      = "job"
  image     = "registry.example/train:1"
  apply     = false
  args      = [terraform_data.later.output.accelerator]
  dynamic "gpu" {
    for_each = terraform_data.later.output.flavors
    content {
      count       = gpu.value.gpus
      accelerator = "a100-40gb"
    }
  }
  dynamic "job" {
    for_each = terraform_data.later.output.flavors
    content {
      backoff_limit = 1
    }
  }
  dynamic "startup_probe" {
    for_each = terraform_data.later.output.flavors
    content {
      http_path = "/health"
      port      = 8000
    }
  }
}
`}, planShape{attr: "manifests", unknown: []string{`gpu_workload.each["serve"]`}, config: `
resource "gpu_workload" "each" {
  for_each  = { serve = terraform_data.later.output.gpus }
  name      = each.key
  namespace = "ml"
  image     = "registry.example/serve:1"
  apply     = false
  gpu {
    count       = 1
    accelerator = "a100-40gb"
    dra {
      device_class = "gpu.nvidia.com"
      selectors    = terraform_data.later.output.selectors
    }
  }
}
`})
}

// A workload's name known only after apply leaves its id unknown in the
// plan, not "<namespace>/", which the final plan would contradict.
func TestPlanShapes_workloadNameKnownAfterApply(t *testing.T) {
	planShapes(t, planShape{apply: true, attr: "id", unknown: []string{"gpu_workload.later_name"}, config: `
resource "gpu_workload" "later_name" {
  name      = terraform_data.later.output.accelerator
  namespace = "ml"
  image     = "registry.example/serve:1"
  apply     = false
  gpu {
    count       = 1
    accelerator = "a100-40gb"
  }
}
`})
}

func TestPlanShapes_operatorValues(t *testing.T) {
	planShapes(t, planShape{apply: true, attr: "values_yaml", unknown: []string{"gpu_operator_values.dynamic"}, config: `
resource "gpu_operator_values" "dynamic" {
  target = "fiftyone"
  cloud  = "gke"
  fiftyone {
    dynamic "deployment" {
      for_each = terraform_data.later.output.deployments
      content {
        key      = deployment.value.key
        replicas = deployment.value.replicas
        gpu {
          count       = 1
          accelerator = "a100-40gb"
        }
      }
    }
    dynamic "job_template" {
      for_each = terraform_data.later.output.none
      content {
        key = "never"
      }
    }
  }
}
`}, planShape{attr: "values_yaml", unknown: []string{`gpu_operator_values.each["fiftyone"]`}, config: `
resource "gpu_operator_values" "each" {
  for_each = { fiftyone = terraform_data.later.output.gpus }
  target   = each.key
  cloud    = "gke"
  fiftyone {
    deployment {
      key = "gpuA100"
      gpu {
        count       = each.value
        accelerator = "a100-40gb"
      }
    }
  }
}
`})
}

// A workload in a queue whose flavors are dynamic: the queue's id is
// unknown, and the workload's queue check waits for it.
func TestPlanShapes_workloadInADynamicQueue(t *testing.T) {
	planShapes(t, planShape{apply: true, attr: "manifests", unknown: []string{"gpu_queue.q", "gpu_workload.w"}, config: acctest.QueuePools + `
resource "gpu_queue" "q" {
  name       = "team-a"
  namespaces = ["team-a"]
  apply      = false
  dynamic "flavor" {
    for_each = terraform_data.later.output.flavors
    content {
      node_pool = gpu_node_pool_policy.a100.ref
      gpus      = flavor.value.gpus
    }
  }
}
` + acctest.QueuedJob("a100", 1, "")})
}

// The provider block too: a dynamic exec block over values known only after
// apply (a cluster created in the same run) configures the provider as
// unknown while planning, and nothing is contacted.
func TestPlanShapes_providerExec(t *testing.T) {
	clearClusterEnv(t)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_4_0)},
		Steps: []resource.TestStep{{
			Config: laterValues + `
provider "gpu" {
  default_cloud = "gke"
  host          = "https://203.0.113.10"
  dynamic "exec" {
    for_each = terraform_data.later.output.flavors
    content {
      api_version = "client.authentication.k8s.io/v1beta1"
      command     = "gke-gcloud-auth-plugin"
      args        = [terraform_data.later.output.accelerator]
    }
  }
}

resource "gpu_workload" "w" {
  name      = "w"
  namespace = "ml"
  image     = "registry.example/serve:1"
  apply     = false
  gpu {
    count       = 1
    accelerator = "a100-40gb"
  }
}
`,
		}},
	})
}
