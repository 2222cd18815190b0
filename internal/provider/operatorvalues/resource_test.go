package operatorvalues_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// gpu_operator_values never contacts a cluster, so these tests apply with
// none configured: the plan checks prove every output is known while
// planning, the state checks what was stored.

// valuesStep applies config and checks that values_yaml and values of
// every named resource were known at plan time.
func valuesStep(config string, resources []string, checks ...statecheck.StateCheck) resource.TestStep {
	var known []plancheck.PlanCheck
	for _, r := range resources {
		for _, attr := range []string{"values_yaml", "values", "id", "cloud"} {
			known = append(known, plancheck.ExpectKnownValue(r, tfjsonpath.New(attr), knownvalue.NotNull()))
		}
	}
	return resource.TestStep{
		Config:            config,
		ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: known},
		ConfigStateChecks: checks,
	}
}

// valuesAt is a path into the values output: strings are map keys, ints
// list indexes.
func valuesAt(steps ...any) tfjsonpath.Path {
	p := tfjsonpath.New("values")
	for _, s := range steps {
		switch v := s.(type) {
		case string:
			p = p.AtMapKey(v)
		case int:
			p = p.AtSliceIndex(v)
		}
	}
	return p
}

func expectValue(resourceAddr string, path tfjsonpath.Path, check knownvalue.Check) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(resourceAddr, path, check)
}

// yamlContains checks values_yaml for every fragment and against every
// forbidden one.
func yamlContains(resourceAddr string, want []string, forbidden ...string) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(resourceAddr, tfjsonpath.New("values_yaml"), knownvalue.StringFunc(func(v string) error {
		for _, w := range want {
			if !strings.Contains(v, w) {
				return fmt.Errorf("values_yaml lacks %q:\n%s", w, v)
			}
		}
		for _, f := range forbidden {
			if strings.Contains(v, f) {
				return fmt.Errorf("values_yaml contains %q:\n%s", f, v)
			}
		}
		return nil
	}))
}

// toleration matches a NoSchedule toleration, the effect of every GPU taint.
func toleration(key, operator, value string) knownvalue.Check {
	m := map[string]knownvalue.Check{"key": knownvalue.StringExact(key), "operator": knownvalue.StringExact(operator),
		"effect": knownvalue.StringExact("NoSchedule")}
	if value != "" {
		m["value"] = knownvalue.StringExact(value)
	}
	return knownvalue.ObjectExact(m)
}

func TestAccOperatorValues_fiftyOne(t *testing.T) {
	acctest.ClearClusterEnv(t)
	gke := []any{"delegatedOperatorDeployments", "deployments", "gpuL4"}
	aks := []any{"delegatedOperatorDeployments", "deployments", "gpuT4"}
	job := []any{"delegatedOperatorJobTemplates", "jobs", "gpuBatch"}
	cpu := []any{"delegatedOperatorDeployments", "deployments", "teamsDoCpuDefault"}
	at := func(base []any, more ...any) tfjsonpath.Path {
		return valuesAt(append(append([]any{}, base...), more...)...)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{valuesStep(`
resource "gpu_operator_values" "gke" {
  target = "fiftyone"
  cloud  = "gke"
  fiftyone {
    deployment {
      key    = "gpuL4"
      cpu    = "8"
      memory = "32Gi"
      gpu {
        count       = 1
        accelerator = "l4"
      }
    }
    deployment {
      key     = "teamsDoCpuDefault"
      enabled = true
      cpu     = "4"
      memory  = "16Gi"
    }
    job_template {
      key           = "gpuBatch"
      spot          = true
      backoff_limit = 2
      gpu {
        count       = 1
        accelerator = "l4"
      }
    }
  }
}

resource "gpu_operator_values" "aks" {
  target = "fiftyone"
  cloud  = "aks"
  fiftyone {
    deployment {
      key      = "gpuT4"
      replicas = 2
      gpu {
        count       = 1
        accelerator = "t4"
      }
    }
  }
}
`, []string{"gpu_operator_values.gke", "gpu_operator_values.aks"},
			expectValue("gpu_operator_values.gke", at(gke, "nodeSelector"), knownvalue.MapExact(map[string]knownvalue.Check{
				"cloud.google.com/gke-accelerator": knownvalue.StringExact("nvidia-l4"),
			})),
			expectValue("gpu_operator_values.gke", at(gke, "env", "LD_LIBRARY_PATH"), knownvalue.StringExact("/usr/local/nvidia/lib64")),
			expectValue("gpu_operator_values.gke", at(gke, "resources", "limits"), knownvalue.MapExact(map[string]knownvalue.Check{
				"nvidia.com/gpu": knownvalue.Int64Exact(1), "cpu": knownvalue.StringExact("8"), "memory": knownvalue.StringExact("32Gi"),
			})),
			expectValue("gpu_operator_values.gke", at(gke, "resources", "requests"), knownvalue.MapExact(map[string]knownvalue.Check{
				"nvidia.com/gpu": knownvalue.Int64Exact(1), "cpu": knownvalue.StringExact("8"), "memory": knownvalue.StringExact("32Gi"),
			})),
			expectValue("gpu_operator_values.gke", at(gke, "tolerations"), knownvalue.ListExact([]knownvalue.Check{
				toleration("nvidia.com/gpu", "Exists", ""),
			})),
			// The chart's schema types teamsDoCpuDefault's cpu as an integer.
			expectValue("gpu_operator_values.gke", at(cpu, "resources", "limits", "cpu"), knownvalue.Int64Exact(4)),
			expectValue("gpu_operator_values.gke", at(cpu, "enabled"), knownvalue.Bool(true)),
			expectValue("gpu_operator_values.gke", at(job, "nodeSelector", "cloud.google.com/gke-spot"), knownvalue.StringExact("true")),
			expectValue("gpu_operator_values.gke", at(job, "backoffLimit"), knownvalue.Int64Exact(2)),
			expectValue("gpu_operator_values.aks", at(aks, "tolerations"), knownvalue.ListExact([]knownvalue.Check{
				toleration("sku", "Equal", "gpu"),
			})),
			expectValue("gpu_operator_values.aks", at(aks, "nodeSelector", "kubernetes.azure.com/accelerator"), knownvalue.StringExact("nvidia")),
			expectValue("gpu_operator_values.aks", at(aks, "replicaCount"), knownvalue.Int64Exact(2)),
			expectValue("gpu_operator_values.aks", tfjsonpath.New("id"), knownvalue.StringRegexp(regexp.MustCompile(`^fiftyone/[0-9a-f]{16}$`))),
			expectValue("gpu_operator_values.aks", tfjsonpath.New("pod_fragments_yaml"), knownvalue.StringRegexp(regexp.MustCompile(
				`(?s)name: gpu-t4.*nvidia.com/gpu: "1"`))),
			yamlContains("gpu_operator_values.gke", []string{"nvidia.com/gpu: 1\n", "LD_LIBRARY_PATH: /usr/local/nvidia/lib64\n"}),
		)},
	})
}

func TestAccOperatorValues_flyte(t *testing.T) {
	acctest.ClearClusterEnv(t)
	core := []any{"configmap", "k8s", "plugins", "k8s"}
	binary := []any{"configuration", "inline", "plugins", "k8s"}
	at := func(base []any, more ...any) tfjsonpath.Path {
		return valuesAt(append(append([]any{}, base...), more...)...)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{valuesStep(`
resource "gpu_operator_values" "core" {
  target = "flyte-core"
  cloud  = "gke"
  flyte {
    accelerators          = ["a100-40gb", "l4"]
    default_node_selector = { "example.com/team" = "ml" }
    default_tolerations {
      key      = "example.com/dedicated"
      operator = "Equal"
      value    = "ml"
      effect   = "NoSchedule"
    }
  }
}

resource "gpu_operator_values" "binary" {
  target = "flyte-binary"
  cloud  = "aks"
  flyte {
    accelerators = ["t4"]
  }
}
`, []string{"gpu_operator_values.core", "gpu_operator_values.binary"},
			expectValue("gpu_operator_values.core", at(core, "gpu-device-node-label"), knownvalue.StringExact("cloud.google.com/gke-accelerator")),
			expectValue("gpu_operator_values.core", at(core, "gpu-resource-name"), knownvalue.StringExact("nvidia.com/gpu")),
			// The list-of-single-key-maps form every Flyte v1 release decodes.
			expectValue("gpu_operator_values.core", at(core, "resource-tolerations"), knownvalue.ListExact([]knownvalue.Check{
				knownvalue.MapExact(map[string]knownvalue.Check{"nvidia.com/gpu": knownvalue.ListExact([]knownvalue.Check{
					toleration("nvidia.com/gpu", "Exists", ""),
				})}),
			})),
			expectValue("gpu_operator_values.core", at(core, "default-env-vars"), knownvalue.ListExact([]knownvalue.Check{
				knownvalue.MapExact(map[string]knownvalue.Check{"LD_LIBRARY_PATH": knownvalue.StringExact("/usr/local/nvidia/lib64")}),
			})),
			expectValue("gpu_operator_values.core", at(core, "default-tolerations", 0, "key"), knownvalue.StringExact("example.com/dedicated")),
			yamlContains("gpu_operator_values.core", []string{"resource-tolerations:\n        - nvidia.com/gpu:\n"}, "{{"),
			expectValue("gpu_operator_values.binary", at(binary, "resource-tolerations", 0, "nvidia.com/gpu"), knownvalue.ListExact([]knownvalue.Check{
				toleration("sku", "Equal", "gpu"),
			})),
			yamlContains("gpu_operator_values.binary", []string{"configuration:\n  inline:\n"}, "{{", "configmap:"),
		)},
	})
}

// The GPU Operator's device plugin config comes from a pool declared in
// the same configuration: a YAML string per pool, named after it, and the
// cloud follows the pool.
func TestAccOperatorValues_gpuOperatorFromPool(t *testing.T) {
	acctest.ClearClusterEnv(t)
	config := []any{"devicePlugin", "config"}
	at := func(more ...any) tfjsonpath.Path { return valuesAt(append(append([]any{}, config...), more...)...) }
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{valuesStep(`
resource "gpu_node_pool_policy" "shared" {
  name          = "t4-shared"
  cloud         = "generic"
  accelerator   = "t4"
  gpus_per_node = 1
  sharing       = "time-slicing"
  replicas      = 4
}

resource "gpu_operator_values" "operator" {
  target = "gpu-operator"
  gpu_operator {
    node_pools = [gpu_node_pool_policy.shared.ref]
  }
}
`, []string{"gpu_operator_values.operator"},
			expectValue("gpu_operator_values.operator", tfjsonpath.New("cloud"), knownvalue.StringExact("generic")),
			expectValue("gpu_operator_values.operator", at("create"), knownvalue.Bool(true)),
			expectValue("gpu_operator_values.operator", at("default"), knownvalue.StringExact("default")),
			expectValue("gpu_operator_values.operator", at("name"), knownvalue.StringExact("gpu-device-plugin-config")),
			expectValue("gpu_operator_values.operator", at("data", "t4-shared"), knownvalue.StringRegexp(regexp.MustCompile(
				`(?s)^version: v1\n.*timeSlicing:\n.*- name: nvidia.com/gpu\n\s+replicas: 4$`))),
			yamlContains("gpu_operator_values.operator", []string{"      t4-shared: |-\n        version: v1\n", "mig:\n  strategy: single\n"}),
			statecheck.CompareValuePairs("gpu_operator_values.operator", at("data", "t4-shared"),
				"gpu_node_pool_policy.shared", tfjsonpath.New("device_plugin_config_yaml"), trimmedEqual{}),
		)},
	})
}

// trimmedEqual compares strings ignoring the final newline, which the
// values drop so the entry prints as a YAML "|-" block.
type trimmedEqual struct{}

func (trimmedEqual) CompareValues(values ...any) error {
	if len(values) != 2 {
		return fmt.Errorf("expected 2 values, got %d", len(values))
	}
	a, _ := values[0].(string)
	b, _ := values[1].(string)
	if strings.TrimRight(a, "\n") != strings.TrimRight(b, "\n") {
		return fmt.Errorf("values differ:\n%s\n---\n%s", a, b)
	}
	return nil
}

func TestAccOperatorValues_devicePluginAndNumaflow(t *testing.T) {
	acctest.ClearClusterEnv(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{valuesStep(`
resource "gpu_operator_values" "plugin" {
  target = "nvidia-device-plugin"
  cloud  = "eks"
  nvidia_device_plugin {
    tolerations {
      key      = "example.com/gpu-team"
      operator = "Exists"
      effect   = "NoSchedule"
    }
  }
}

resource "gpu_operator_values" "numaflow" {
  target = "numaflow"
  cloud  = "gke"
  numaflow {
    name      = "embeddings"
    namespace = "pipelines"
    image     = "registry.example/ml/embed-udf:1.0"
    manifest  = true
    gpu {
      count       = 1
      accelerator = "l4"
    }
  }
}
`, []string{"gpu_operator_values.plugin", "gpu_operator_values.numaflow"},
			expectValue("gpu_operator_values.plugin", valuesAt("tolerations"), knownvalue.ListExact([]knownvalue.Check{
				knownvalue.ObjectExact(map[string]knownvalue.Check{"key": knownvalue.StringExact("CriticalAddonsOnly"),
					"operator": knownvalue.StringExact("Exists")}),
				toleration("example.com/gpu-team", "Exists", ""),
				toleration("nvidia.com/gpu", "Exists", ""),
			})),
			expectValue("gpu_operator_values.numaflow", valuesAt("kind"), knownvalue.StringExact("Pipeline")),
			expectValue("gpu_operator_values.numaflow", valuesAt("spec", "vertices", 1, "nodeSelector", "cloud.google.com/gke-accelerator"),
				knownvalue.StringExact("nvidia-l4")),
			expectValue("gpu_operator_values.numaflow", valuesAt("spec", "vertices", 1, "udf", "container", "image"),
				knownvalue.StringExact("registry.example/ml/embed-udf:1.0")),
		)},
	})
}

// Base values are merged under the generated ones as helm -f would: keys
// the generator does not write are kept, tolerations keep the base entries,
// a key the provider owns cannot be overridden (a plan error naming it), and
// the values follow an edit of a base file.
func TestAccOperatorValues_baseValues(t *testing.T) {
	acctest.ClearClusterEnv(t)
	config := func(replicas int, accelerator string) string {
		return fmt.Sprintf(`
resource "gpu_operator_values" "merged" {
  target = "fiftyone"
  cloud  = "eks"
  base_values_yaml = [
    yamlencode({
      delegatedOperatorDeployments = {
        template = { replicaCount = 3 }
        deployments = {
          gpuA10g = {
            description = "from base"
            tolerations = [{ key = "base-only", operator = "Exists" }]
            nodeSelector = { "example.com/zone" = "a", "k8s.amazonaws.com/accelerator" = %q }
          }
        }
      }
    }),
    "apiSettings:\n  replicaCount: %d\n",
  ]
  fiftyone {
    deployment {
      key = "gpuA10g"
      gpu {
        count       = 1
        accelerator = "a10g"
      }
    }
  }
}
`, accelerator, replicas)
	}
	gpu := []any{"delegatedOperatorDeployments", "deployments", "gpuA10g"}
	at := func(more ...any) tfjsonpath.Path { return valuesAt(append(append([]any{}, gpu...), more...)...) }
	checks := func(replicas int64) []statecheck.StateCheck {
		return []statecheck.StateCheck{
			expectValue("gpu_operator_values.merged", valuesAt("apiSettings", "replicaCount"), knownvalue.Int64Exact(replicas)),
			expectValue("gpu_operator_values.merged", valuesAt("delegatedOperatorDeployments", "template", "replicaCount"), knownvalue.Int64Exact(3)),
			expectValue("gpu_operator_values.merged", at("description"), knownvalue.StringExact("from base")),
			// Maps merge key by key; the same value for an owned key is fine...
			expectValue("gpu_operator_values.merged", at("nodeSelector"), knownvalue.MapExact(map[string]knownvalue.Check{
				"example.com/zone":              knownvalue.StringExact("a"),
				"k8s.amazonaws.com/accelerator": knownvalue.StringExact("nvidia-a10g"),
			})),
			// ...and tolerations keep the base entries before the generated ones.
			expectValue("gpu_operator_values.merged", at("tolerations"), knownvalue.ListExact([]knownvalue.Check{
				knownvalue.ObjectExact(map[string]knownvalue.Check{
					"key": knownvalue.StringExact("base-only"), "operator": knownvalue.StringExact("Exists")}),
				toleration("nvidia.com/gpu", "Exists", ""),
			})),
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{
			valuesStep(config(1, "nvidia-a10g"), []string{"gpu_operator_values.merged"}, checks(1)...),
			{
				Config: config(2, "nvidia-a10g"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("gpu_operator_values.merged", plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue("gpu_operator_values.merged", tfjsonpath.New("values_yaml"),
						knownvalue.StringRegexp(regexp.MustCompile(`(?m)^apiSettings:\n  replicaCount: 2$`))),
				}},
				ConfigStateChecks: checks(2),
			},
			{
				// Unchanged configuration, unchanged values: no diff.
				Config:   config(2, "nvidia-a10g"),
				PlanOnly: true,
			},
			{
				// Another value for a key the provider owns is refused, not
				// silently replaced.
				Config: config(2, "overridden"),
				ExpectError: regexp.MustCompile(`(?s)Base values do not merge.*nodeSelector\.k8s\.amazonaws\.com/accelerator.*` +
					`base values \[0\] set\s+"overridden"`),
			},
		},
	})
}

// The cloud defaults to the provider's default_cloud; the plan shows it.
func TestAccOperatorValues_defaultCloud(t *testing.T) {
	acctest.ClearClusterEnv(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{valuesStep(`
provider "gpu" {
  default_cloud = "aks"
}

resource "gpu_operator_values" "flyte" {
  target = "flyte-core"
  flyte {}
}
`, []string{"gpu_operator_values.flyte"},
			expectValue("gpu_operator_values.flyte", tfjsonpath.New("cloud"), knownvalue.StringExact("aks")),
			expectValue("gpu_operator_values.flyte", valuesAt("configmap", "k8s", "plugins", "k8s", "resource-tolerations", 0,
				"nvidia.com/gpu", 0, "key"), knownvalue.StringExact("sku")),
		)},
	})
}

// A pool id known only at apply leaves the values unknown in the plan;
// Terraform plans again at apply and the values are stored.
func TestAccOperatorValues_unknownUntilApply(t *testing.T) {
	acctest.ClearClusterEnv(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		ExternalProviders:        map[string]resource.ExternalProvider{},
		Steps: []resource.TestStep{{
			Config: `
resource "terraform_data" "suffix" {}

resource "gpu_node_pool_policy" "pool" {
  name          = "a100-${substr(terraform_data.suffix.id, 0, 6)}"
  cloud         = "gke"
  accelerator   = "a100-40gb"
  gpus_per_node = 8
}

resource "gpu_operator_values" "fiftyone" {
  target = "fiftyone"
  fiftyone {
    deployment {
      key       = "gpuA100"
      node_pool = gpu_node_pool_policy.pool.ref
      gpu {
        count = 1
      }
    }
  }
}
`,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectUnknownValue("gpu_operator_values.fiftyone", tfjsonpath.New("values_yaml")),
				plancheck.ExpectUnknownValue("gpu_operator_values.fiftyone", tfjsonpath.New("cloud")),
			}},
			ConfigStateChecks: []statecheck.StateCheck{
				expectValue("gpu_operator_values.fiftyone", tfjsonpath.New("cloud"), knownvalue.StringExact("gke")),
				expectValue("gpu_operator_values.fiftyone", valuesAt("delegatedOperatorDeployments", "deployments", "gpuA100",
					"nodeSelector", "cloud.google.com/gke-accelerator"), knownvalue.StringExact("nvidia-tesla-a100")),
			},
		}},
	})
}

// A null in a base values file is kept (Helm then deletes that chart
// default), in values_yaml and in the values object alike.
func TestAccOperatorValues_baseValuesKeepNulls(t *testing.T) {
	acctest.ClearClusterEnv(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{valuesStep(`
resource "gpu_operator_values" "plugin" {
  target           = "nvidia-device-plugin"
  cloud            = "aks"
  base_values_yaml = ["priorityClassName: null\nextra: [1, null, \"x\", {a: null}]\n"]
  nvidia_device_plugin {}
}
`, []string{"gpu_operator_values.plugin"},
			yamlContains("gpu_operator_values.plugin", []string{"priorityClassName: null\n", "- a: null\n"}),
			expectValue("gpu_operator_values.plugin", valuesAt("priorityClassName"), knownvalue.Null()),
			expectValue("gpu_operator_values.plugin", valuesAt("extra", 2), knownvalue.StringExact("x")),
		)},
	})
}
