package operatorvalues_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// Plan-time validation of gpu_operator_values, with no cluster configured:
// each rule fails the plan on the attribute that caused it (Terraform
// quotes its source line) and says what is allowed.
func TestOperatorValues_planTimeValidation(t *testing.T) {
	gkePool := `
resource "gpu_node_pool_policy" "gke" {
  name          = "a100"
  cloud         = "gke"
  accelerator   = "a100-40gb"
  gpus_per_node = 8
}
`
	// A chart_path preview whose values hold a GPU block render_preview
	// cannot read: base_values_yaml adds it beside the generated one.
	chart := previewChart(t, "tolerations")
	unreadable := func(block string) string {
		return fmt.Sprintf(`target = "fiftyone"
  cloud  = "aks"
  chart_path = %q
  render_preview = true
  base_values_yaml = ["delegatedOperatorDeployments: {deployments: {gpuBatch: %s}}"]
  fiftyone {
    deployment {
      key = "gpuT4"
      gpu {
        count       = 1
        accelerator = "t4"
      }
    }
  }`, chart, block)
	}
	cases := map[string]struct {
		prelude, body string
		want          *regexp.Regexp
	}{
		"preview of a GPU limit that is not a quantity": {
			body: unreadable(`{resources: {limits: {nvidia.com/gpu: one}}}`),
			want: acctest.Phrases(`GPU limit is not a quantity`, `base_values_yaml = [`,
				`delegatedOperatorDeployments.deployments.gpuBatch.resources.limits`, `set "one"`, `Allowed: a whole number of devices`),
		},
		"preview of a GPU node selector that is not strings": {
			body: unreadable(`{nodeSelector: {pool: 1}, resources: {limits: {nvidia.com/gpu: 1}}}`),
			want: acctest.Phrases(`GPU node selector cannot be read`, `base_values_yaml = [`, `Allowed: a map of node label names to string values`),
		},
		"block of another target": {
			body: `target = "flyte-core"
  cloud  = "gke"
  fiftyone {
    deployment {
      key = "gpuL4"
    }
  }`,
			want: acctest.Phrases(`Block not used by this target`, `fiftyone {`,
				`target is "flyte-core", which reads only the flyte block`),
		},
		"two target blocks": {
			body: `target = "numaflow"
  cloud  = "gke"
  flyte {}
  numaflow {
    gpu {
      count = 1
    }
  }`,
			want: acctest.Phrases(`Block not used by this target`, `flyte {}`, `reads only the numaflow block`),
		},
		"missing target block": {
			body: `target = "gpu-operator"
  cloud  = "generic"`,
			want: acctest.Phrases(`Missing block`, `target = "gpu-operator" is generated from the gpu_operator block`,
				`Allowed: add a gpu_operator block`),
		},
		"key that is not a DNS label in kebab-case": {
			body: `target = "fiftyone"
  cloud  = "gke"
  fiftyone {
    deployment {
      key = "gpu.Worker"
    }
  }`,
			want: acctest.Phrases(`Invalid deployment key`, `key = "gpu.Worker"`, `kebabcase("gpu.Worker") = "gpu.worker"`,
				`must not contain dots`),
		},
		"GPU requests differ from count": {
			body: `target = "fiftyone"
  cloud  = "gke"
  fiftyone {
    deployment {
      key = "gpuA100"
      gpu {
        count       = 2
        requests    = 1
        accelerator = "a100-40gb"
      }
    }
  }`,
			want: acctest.Phrases(`GPU requests must equal the limit`, `requests = 1`),
		},
		"accelerator the cloud does not offer": {
			body: `target = "numaflow"
  cloud  = "gke"
  numaflow {
    gpu {
      count       = 1
      accelerator = "a10g"
    }
  }`,
			want: acctest.Phrases(`Accelerator not offered on gke`, `accelerator = "a10g"`),
		},
		"flyte accelerator the cloud does not offer": {
			body: `target = "flyte-core"
  cloud  = "aks"
  flyte {
    accelerators = ["l4"]
  }`,
			want: acctest.Phrases(`Accelerator not offered on aks`, `accelerators = ["l4"]`),
		},
		"gpu block without count": {
			body: `target = "fiftyone"
  cloud  = "gke"
  fiftyone {
    job_template {
      key = "gpuBatch"
      gpu {
        accelerator = "l4"
      }
    }
  }`,
			want: acctest.Phrases(`Missing GPU count`, `gpu {`, `A gpu block needs count`),
		},
		"node_pool given a pool id of an earlier version": {
			body: `target = "fiftyone"
  cloud  = "gke"
  fiftyone {
    deployment {
      key       = "gpuA100"
      node_pool = "gke/a100-40gb/a100:not*base64"
      gpu {
        count = 1
      }
    }
  }`,
			want: acctest.Phrases(`node_pool = "gke/a100-40gb/a100:not*base64"`, `Inappropriate value for attribute "node_pool"`,
				`object required`),
		},
		"node_pools given pool ids of an earlier version": {
			body: `target = "gpu-operator"
  cloud  = "generic"
  gpu_operator {
    node_pools = ["generic/t4/shared"]
  }`,
			want: acctest.Phrases(`node_pools = ["generic/t4/shared"]`, `Inappropriate value for attribute "node_pools"`, `object required`),
		},
		"node pool on another cloud": {
			prelude: gkePool,
			body: `target = "fiftyone"
  cloud  = "aks"
  fiftyone {
    deployment {
      key       = "gpuA100"
      node_pool = gpu_node_pool_policy.gke.ref
      gpu {
        count = 1
      }
    }
  }`,
			want: acctest.Phrases(`Node pool on another cloud`, `The pool is on "gke" but cloud is "aks"`),
		},
		"base values that are not YAML": {
			body: `target = "flyte-binary"
  cloud  = "eks"
  base_values_yaml = ["configuration: [1"]
  flyte {}`,
			want: acctest.Phrases(`Invalid base values`, `base_values_yaml = ["configuration: [1"]`, `base_values_yaml[0] is not a YAML map`),
		},
		"base values that are not a map": {
			body: `target = "flyte-binary"
  cloud  = "eks"
  base_values_yaml = ["a: 1", "- 1\n- 2\n"]
  flyte {}`,
			want: acctest.Phrases(`Invalid base values`, `base_values_yaml[1] is not a YAML map`, `not a map`),
		},
		"base values with a map where a list is generated": {
			body: `target = "flyte-binary"
  cloud  = "eks"
  base_values_yaml = [yamlencode({ configuration = { inline = { plugins = { k8s = { "resource-tolerations" = { a = 1 } } } } } })]
  flyte {}`,
			want: acctest.Phrases(`Base values do not merge`, `configuration.inline.plugins.k8s.resource-tolerations`,
				`a map cannot replace a non-map value`),
		},
		"base values overriding Flyte's device label": {
			body: `target = "flyte-binary"
  cloud  = "eks"
  base_values_yaml = [yamlencode({ configuration = { inline = { plugins = { k8s = { "gpu-device-node-label" = "team.example.com/gpu" } } } } })]
  flyte {}`,
			want: acctest.Phrases(`Base values do not merge`, `configuration.inline.plugins.k8s.gpu-device-node-label`,
				`base values [0] set "team.example.com/gpu"`, `The provider owns this key`),
		},
		"Flyte resource name without a domain": {
			body: `target = "flyte-core"
  cloud  = "gke"
  flyte {
    gpu_resource_name = "gpu"
  }`,
			want: acctest.Phrases(`Invalid GPU resource name`, `gpu_resource_name = "gpu"`, `domain-prefixed`),
		},
		"render_preview without chart_path": {
			body: `target = "flyte-binary"
  cloud  = "eks"
  render_preview = true
  flyte {}`,
			want: acctest.Phrases(`render_preview needs chart_path`, `render_preview = true`),
		},
		"chart_path that is not a chart": {
			body: `target = "flyte-binary"
  cloud  = "eks"
  chart_path = "/nonexistent/chart"
  flyte {}`,
			want: acctest.Phrases(`Cannot load chart`, `chart_path = "/nonexistent/chart"`, `a chart directory (with Chart.yaml)`),
		},
		"numaflow without a gpu block": {
			body: `target = "numaflow"
  cloud  = "gke"
  numaflow {
    name = "embeddings"
  }`,
			want: acctest.Phrases(`Missing gpu block`, `numaflow {`),
		},
		"no cloud anywhere": {
			body: `target = "flyte-core"
  flyte {}`,
			want: acctest.Phrases(`Missing cloud`, `default_cloud in the provider "gpu" block`, "`gke`"),
		},
		"Flyte v2 on flyte-core": {
			body: `target = "flyte-core"
  cloud  = "gke"
  flyte {
    flyte_version = 2
  }`,
			want: acctest.Phrases(`flyte-core has no Flyte v2`, `flyte_version = 2`),
		},
		"device plugin on GKE Autopilot": {
			body: `target = "nvidia-device-plugin"
  cloud  = "gke-autopilot"
  nvidia_device_plugin {}`,
			want: acctest.Phrases(`The NVIDIA device plugin cannot run on GKE Autopilot`, `cloud  = "gke-autopilot"`),
		},
		"rule only the provider's default cloud breaks": {
			prelude: "provider \"gpu\" {\n  default_cloud = \"gke-autopilot\"\n}\n",
			body: `target = "gpu-operator"
  gpu_operator {}`,
			want: acctest.Phrases(`The GPU Operator cannot run on GKE Autopilot`, `Autopilot manages the GPU driver`),
		},
		"unknown target": {
			body: `target = "kserve"
  cloud  = "gke"`,
			want: acctest.Phrases(`Invalid Attribute Value Match`, `target = "kserve"`, `"fiftyone"`),
		},
	}
	acctest.ClearClusterEnv(t)
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			config := fmt.Sprintf("%s\nresource \"gpu_operator_values\" \"bad\" {\n  %s\n}\n", c.prelude, c.body)
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: factories,
				Steps: []resource.TestStep{{
					Config:      config,
					PlanOnly:    true,
					ExpectError: c.want,
				}},
			})
		})
	}
}
