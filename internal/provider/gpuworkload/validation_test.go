package gpuworkload_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// Plan-time validation of gpu_workload: each rule fails the plan, with no
// cluster configured, on the attribute that caused it (Terraform quotes that
// attribute's source line) and says what is allowed.
func TestWorkload_planTimeValidation(t *testing.T) {
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
		"cloud by its provider's name": {
			cloud: "azure", gpu: "count = 1",
			want: `(?s)cloud.*value must be one of.*got: "azure"\.\s+Did\s+you\s+mean\s+"aks"\?`,
		},
		"GKE mixed MIG strategy": {
			cloud: "gke", gpu: "count = 1\n    accelerator = \"a100-40gb\"\n    partition = \"1g.5gb\"\n    mig_strategy = \"mixed\"",
			want: `(?s)MIG strategy not available on GKE.*mig_strategy += "mixed"`,
		},
		"invalid name": {
			cloud: "gke", gpu: "count = 1", extra: `name_override = 1`,
			want: `(?s)An argument named "name_override" is not expected here`,
		},
		"job block on a deployment": {
			cloud: "gke", gpu: "count = 1", extra: "job {\n    backoff_limit = 1\n  }",
			want: `(?s)job block is for jobs.*backoff_limit = 1.*Allowed: remove the job block`,
		},
		"empty job block on a deployment": {
			cloud: "gke", gpu: "count = 1", extra: "job {}",
			want: `(?s)job block is for jobs.*The empty job \{\} block configures.*Allowed: remove the job block`,
		},
		"probe with http_path and exec": {
			cloud: "gke", gpu: "count = 1", extra: "readiness_probe {\n    http_path = \"/\"\n    port = 80\n    exec = [\"true\"]\n  }",
			want: `(?s)Probe has several targets.*exec += \["true"\].*readiness_probe sets http_path and exec`,
		},
		"invalid label key": {
			cloud: "gke", gpu: "count = 1", extra: `labels = { "bad key!" = "x" }`,
			want: `(?s)Invalid label key.*bad key!`,
		},
		"reserved label": {
			cloud: "gke", gpu: "count = 1", extra: `pod_labels = { "app.kubernetes.io/name" = "x" }`,
			want: `(?s)Reserved label.*app.kubernetes.io/name`,
		},
		"invalid environment variable name": {
			cloud: "gke", gpu: "count = 1", extra: `env = { "1BAD" = "x" }`,
			want: `(?s)Invalid environment variable name.*1BAD`,
		},
		"port out of range": {
			cloud: "gke", gpu: "count = 1", extra: `ports = [70000]`,
			want: `(?s)ports.*must be between 1 and 65535`,
		},
		"duplicate port": {
			cloud: "gke", gpu: "count = 1", extra: `ports = [8000, 8000]`,
			want: `(?s)Duplicate port`,
		},
		"invalid service account name": {
			cloud: "gke", gpu: "count = 1", extra: `service_account_name = "Bad_Name"`,
			want: `(?s)Invalid service account name.*service_account_name = "Bad_Name"`,
		},
		"unknown size": {
			cloud: "gke", gpu: "count = 1", extra: `size = "huge"`,
			want: `(?s)size.*value must be one of.*"small"`,
		},
		"invalid shm quantity": {
			cloud: "gke", gpu: "count = 1", extra: `shm_size = "lots"`,
			want: `(?s)Invalid quantity.*shm_size = "lots"`,
		},
		"negative cpu": {
			cloud: "gke", gpu: "count = 1", extra: `cpu = "-2"`,
			want: `(?s)Quantity must be positive.*cpu += "-2"`,
		},
		"memory larger than any machine": {
			cloud: "gke", gpu: "count = 1", extra: `memory = "100Pi"`,
			want: `(?s)Quantity too large.*memory += "100Pi"`,
		},
		"model cache with claim and size": {
			cloud: "gke", gpu: "count = 1", extra: "model_cache {\n    claim_name = \"w\"\n    size = \"10Gi\"\n  }",
			want: `(?s)size conflicts with claim_name`,
		},
		"model cache without claim or size": {
			cloud: "gke", gpu: "count = 1", extra: "model_cache {\n    read_only = true\n  }",
			want: `(?s)Model cache needs a claim`,
		},
		"probe without target": {
			cloud: "gke", gpu: "count = 1", extra: "startup_probe {\n    period_seconds = 5\n  }",
			want: `(?s)Probe has no target`,
		},
		"probe with two targets": {
			cloud: "gke", gpu: "count = 1", extra: "liveness_probe {\n    http_path = \"/\"\n    port = 80\n    tcp_port = 81\n  }",
			want: `(?s)Probe has several targets.*tcp_port = 81.*liveness_probe sets http_path and tcp_port`,
		},
		"mig_strategy without partition": {
			cloud: "generic", gpu: "count = 1\n    accelerator = \"a100-40gb\"\n    mig_strategy = \"mixed\"",
			want: `(?s)mig_strategy without partition.*mig_strategy = "mixed"`,
		},
		"partition with a preference list": {
			cloud: "generic", gpu: "count = 1\n    accelerators = [\"a100-40gb\", \"a100-80gb\"]\n    partition = \"1g.10gb\"",
			want: `(?s)MIG partition with a preference list`,
		},
		"max_shared_clients without sharing": {
			cloud: "gke", gpu: "count = 1\n    accelerator = \"l4\"\n    max_shared_clients = 4",
			want: `(?s)max_shared_clients without sharing.*max_shared_clients = 4`,
		},
		"one shared client": {
			cloud: "gke", gpu: "count = 1\n    accelerator = \"l4\"\n    sharing = \"mps\"\n    max_shared_clients = 1",
			want: `(?s)Invalid max_shared_clients`,
		},
		"GKE partition GKE does not offer": {
			cloud: "gke", gpu: "count = 1\n    accelerator = \"a100-40gb\"\n    partition = \"4g.20gb\"",
			want: `(?s)MIG partition not offered by GKE.*partition += "4g.20gb"`,
		},
		"too many GKE shared clients": {
			cloud: "gke", gpu: "count = 1\n    accelerator = \"l4\"\n    sharing = \"time-slicing\"\n    max_shared_clients = 49",
			want: `(?s)Too many shared clients for GKE.*max_shared_clients = 49`,
		},
		"DRA with the device plugin's MIG strategy": {
			cloud: "generic", gpu: "count = 1\n    accelerator = \"h100-80gb\"\n    partition = \"3g.40gb\"\n    mig_strategy = \"mixed\"\n    dra {}",
			want: `(?s)mig_strategy together with DRA`,
		},
		"DRA selector on a removed attribute": {
			cloud: "generic", gpu: "count = 1\n    accelerator = \"h100-80gb\"\n    dra {\n      selectors = [\"device.attributes[\\\"gpu.nvidia.com\\\"].index == 0\"]\n    }",
			want: `(?s)Selector names an attribute the driver does not publish`,
		},
		"DRA selector that does not compile": {
			cloud: "generic", gpu: "count = 1\n    dra {\n      selectors = [\"device.attributes[\"]\n    }",
			want: `(?s)Invalid selector`,
		},
		"DRA selector contradicting the accelerator": {
			cloud: "generic", gpu: "count = 1\n    accelerator = \"h100-80gb\"\n    dra {\n      selectors = [\"device.attributes[\\\"gpu.nvidia.com\\\"].productName == \\\"NVIDIA H200\\\"\"]\n    }",
			want: `(?s)Selector contradicts the GPU request`,
		},
		"DRA min_memory no model has": {
			cloud: "generic", gpu: "count = 1\n    accelerator = \"h100-80gb\"\n    dra {\n      min_memory = \"100Gi\"\n    }",
			want: `(?s)No requested GPU has that much memory`,
		},
		"DRA min_memory not a quantity": {
			cloud: "generic", gpu: "count = 1\n    accelerator = \"h100-80gb\"\n    dra {\n      min_memory = \"lots\"\n    }",
			want: `(?s)Invalid min_memory`,
		},
		"DRA same of another kind": {
			cloud: "generic", gpu: "count = 2\n    accelerator = \"h100-80gb\"\n    dra {\n      same = \"rack\"\n    }",
			want: `(?s)value must be one of`,
		},
		"DRA preference list with a model of no recorded product name": {
			cloud: "generic", gpu: "count = 1\n    accelerators = [\"h100-80gb\", \"l4\"]\n    dra {}",
			want: `(?s)Preference list needs every model's product name`,
		},
		"DRA preference list longer than a claim takes": {
			cloud: "generic", gpu: "count = 1\n    accelerators = [\"h100-80gb\", \"h200\", \"a100-80gb\", \"a100-40gb\", \"l40s\", \"l4\", \"a10g\", \"t4\", \"a30\"]\n    dra {}",
			want: `(?s)Too many accelerators for a DRA claim`,
		},
		"DRA with sharing": {
			cloud: "generic", gpu: "count = 1\n    accelerator = \"t4\"\n    sharing = \"mps\"\n    dra {}",
			want: `(?s)Sharing together with DRA`,
		},
		"DRA empty selector": {
			cloud: "generic", gpu: "count = 1\n    dra {\n      selectors = [\"\"]\n    }",
			want: `(?s)Empty selector`,
		},
		"accelerator and accelerators": {
			cloud: "gke", gpu: "count = 1\n    accelerator = \"l4\"\n    accelerators = [\"t4\"]",
			want: `(?s)Invalid Attribute Combination|Conflicting accelerator settings`,
		},
		"duplicate preference": {
			cloud: "gke", gpu: "count = 1\n    accelerators = [\"l4\", \"l4\"]",
			want: `(?s)accelerators.*duplicate|Duplicate accelerator`,
		},
		"more GPUs than any machine": {
			cloud: "gke", gpu: "count = 17\n    accelerator = \"a100-40gb\"",
			want: `(?s)Too many GPUs for one pod.*count += 17`,
		},
		"zero active deadline": {
			cloud: "gke", gpu: "count = 1", extra: "kind = \"job\"\n  job {\n    active_deadline_seconds = 0\n  }",
			want: `(?s)Value too small.*active_deadline_seconds = 0`,
		},
		"Autopilot without an accelerator": {
			cloud: "gke-autopilot", gpu: "count = 1",
			want: `(?s)GKE Autopilot needs an accelerator`,
		},
		"unknown wait_for": {
			cloud: "gke", gpu: "count = 1", extra: `wait_for = "forever"`,
			want: `(?s)wait_for.*value must be one of`,
		},
		"unknown kind": {
			cloud: "gke", gpu: "count = 1", extra: `kind = "replicaset"`,
			want: `(?s)kind.*value must be one of.*"deployment"`,
		},
		"node_pool given a pool id of an earlier version": {
			cloud: "gke", gpu: "count = 1", extra: `node_pool = "gke/l4/x:j8fK0Q"`,
			want: `(?s)node_pool = "gke/l4/x:j8fK0Q".*Inappropriate value for attribute "node_pool": object required`,
		},
		"node_pool that is not a pool's ref": {
			cloud: "gke", gpu: "count = 1", extra: `node_pool = { name = "x" }`,
			want: `(?s)Inappropriate value for attribute "node_pool": attributes "accelerator",.*are required`,
		},
		"unschedulable_timeout that is not a duration": {
			cloud: "gke", gpu: "count = 1", extra: `unschedulable_timeout = "soon"`,
			want: `(?s)Invalid duration.*unschedulable_timeout = "soon".*"soon": invalid duration.*Allowed: a duration of zero or\s+more`,
		},
		"negative unschedulable_timeout": {
			cloud: "gke", gpu: "count = 1", extra: `unschedulable_timeout = "-1m"`,
			want: `(?s)Invalid duration.*"-1m": negative`,
		},
		"unschedulable_timeout without a wait": {
			cloud: "gke", gpu: "count = 1", extra: "wait_for = \"none\"\n  unschedulable_timeout = \"0s\"",
			want: `(?s)Nothing to wait for.*unschedulable_timeout = "0s".*Allowed:\s+unset,\s+or\s+set\s+wait_for\s+to\s+one\s+of\s+"rollout",\s+"complete",\s+"scheduled"`,
		},
		"unschedulable_timeout on a cronjob": {
			cloud: "gke", gpu: "count = 1", extra: "kind = \"cronjob\"\n  cronjob {\n    schedule = \"0 * * * *\"\n  }\n  unschedulable_timeout = \"1m\"",
			want: `(?s)Nothing to wait for.*unschedulable_timeout = "1m"`,
		},
		"replicas on a job": {
			cloud: "gke", gpu: "count = 1", extra: "kind = \"job\"\n  replicas = 2",
			want: `(?s)replicas is for deployments.*replicas += 2`,
		},
	}
	acctest.ClearClusterEnv(t)
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

// Values that come from other resources are unknown while planning, down to
// single list elements and map values: the plan must still work, with the
// manifest unknown until apply.
func TestWorkload_plansWithUnknownElements(t *testing.T) {
	acctest.ClearClusterEnv(t)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{{
			Config: `
resource "terraform_data" "model" {
  input = "llama"
}

resource "gpu_workload" "w" {
  name      = "w"
  namespace = "default"
  cloud     = "gke"
  image     = "registry.invalid/cuda:12"
  apply     = false
  args      = ["--model", terraform_data.model.output]
  env       = { MODEL = terraform_data.model.output }
  gpu {
    count       = 1
    accelerator = "l4"
  }
}
`,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectUnknownValue("gpu_workload.w", tfjsonpath.New("manifests")),
			}},
			Check: acctest.ManifestMatches("gpu_workload.w", regexp.MustCompile(`value: llama`)),
		}},
	})
}
