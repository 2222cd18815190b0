package provider

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values"
)

// One resource per target; the provider has no cluster configured, since
// gpu_operator_values never needs one.
const podTargetsConfig = `
resource "gpu_node_pool_policy" "shared" {
  name          = "t4-shared"
  cloud         = "generic"
  accelerator   = "t4"
  gpus_per_node = 1
  sharing       = "time-slicing"
  replicas      = 4
  taints        = [{ key = "example.com/shared", value = "true", effect = "NoSchedule" }]
}

resource "gpu_operator_values" "fiftyone" {
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
      key    = "teamsDoCpuDefault"
      cpu    = "4"
      memory = "16Gi"
    }
    job_template {
      key  = "gpuBatch"
      spot = true
      gpu {
        count       = 1
        accelerator = "l4"
      }
    }
  }
}

resource "gpu_operator_values" "flyte_core" {
  target = "flyte-core"
  cloud  = "gke"
  flyte {
    accelerators  = ["a100-40gb"]
    interruptible = true
  }
}

resource "gpu_operator_values" "flyte_binary_v2" {
  target = "flyte-binary"
  cloud  = "eks"
  flyte {
    flyte_version = 2
    accelerators  = ["a10g"]
  }
}

resource "gpu_operator_values" "gpu_operator" {
  target = "gpu-operator"
  gpu_operator {
    node_pools = [gpu_node_pool_policy.shared.ref]
  }
}

resource "gpu_operator_values" "device_plugin" {
  target = "nvidia-device-plugin"
  cloud  = "aks"
  nvidia_device_plugin {}
}

resource "gpu_operator_values" "numaflow" {
  target = "numaflow"
  cloud  = "generic"
  numaflow {
    kind     = "monovertex"
    name     = "embeddings"
    image    = "registry.example/ml/embed-udf:1.0"
    manifest = true
    cpu      = "2"
    memory   = "8Gi"
    gpu {
      count       = 1
      accelerator = "t4"
      sharing     = "time-slicing"
    }
  }
}
`

// The pod specs every target's values carry (values.PodFragments) are
// accepted by the real API server: a server-side dry run validates them as
// a chart's pods would be validated, without creating anything.
func TestAccOperatorValues_podFragmentsPassServerDryRun(t *testing.T) {
	skipWithoutAcceptance(t)
	clearClusterEnv(t)
	ns := acctest.Namespace(t)
	targets := map[string]string{
		"fiftyone": values.TargetFiftyOne, "flyte_core": values.TargetFlyteCore, "flyte_binary_v2": values.TargetFlyteBinary,
		"gpu_operator": values.TargetGPUOperator, "device_plugin": values.TargetNvidiaDevicePlugin, "numaflow": values.TargetNumaflow,
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: podTargetsConfig,
			Check: func(s *terraform.State) error {
				var failures []string
				for name, target := range targets {
					if err := dryRunFragments(t, s, "gpu_operator_values."+name, target, ns); err != nil {
						failures = append(failures, err.Error())
					}
				}
				sort.Strings(failures)
				if len(failures) > 0 {
					return fmt.Errorf("%s", strings.Join(failures, "\n"))
				}
				return nil
			},
		}},
	})
}

// skipWithoutAcceptance skips as resource.Test would, before the test
// creates its namespace (which needs the cluster).
func skipWithoutAcceptance(t *testing.T) {
	t.Helper()
	if os.Getenv(resource.EnvTfAcc) == "" {
		t.Skipf("acceptance test: set %s=1 (and %s)", resource.EnvTfAcc, acctest.EnvKubeconfig)
	}
}

// stateValues parses the values_yaml a resource stored.
func stateValues(s *terraform.State, address string) (map[string]any, error) {
	r, ok := s.RootModule().Resources[address]
	if !ok {
		return nil, fmt.Errorf("%s is not in the state", address)
	}
	var values map[string]any
	if err := yaml.Unmarshal([]byte(r.Primary.Attributes["values_yaml"]), &values); err != nil {
		return nil, fmt.Errorf("%s: values_yaml: %w", address, err)
	}
	return values, nil
}

func dryRunFragments(t *testing.T, s *terraform.State, address, target, ns string) error {
	generated, err := stateValues(s, address)
	if err != nil {
		return err
	}
	specs, err := values.PodFragments(target, generated)
	if err != nil {
		return fmt.Errorf("%s: %w", address, err)
	}
	if len(specs) == 0 {
		return fmt.Errorf("%s: the values carry no pods", address)
	}
	cs := acctest.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i, spec := range specs {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "fragment-" + strconv.Itoa(i), Namespace: ns}, Spec: spec}
		if _, err := cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
			return fmt.Errorf("%s: pod %d rejected by the API server: %w", address, i, err)
		}
	}
	return nil
}

// One pool drives a workload and two charts' values: the FiftyOne runner
// selects and tolerates exactly what the workload does, and Flyte's device
// label and resource tolerations agree with them.
func TestAccOperatorValues_agreesWithWorkloadOnPool(t *testing.T) {
	skipWithoutAcceptance(t)
	ns := acctest.Namespace(t)
	config := acctest.ProviderBlock(t) + fmt.Sprintf(`
resource "gpu_node_pool_policy" "a100" {
  name          = "a100"
  cloud         = "gke"
  accelerator   = "a100-40gb"
  gpus_per_node = 8
}

resource "gpu_workload" "train" {
  name      = "train"
  namespace = %q
  node_pool = gpu_node_pool_policy.a100.ref
  image     = "registry.invalid/cuda:12"
  gpu {
    count = 1
  }
  timeouts {
    create = "90s"
  }
}

resource "gpu_operator_values" "fiftyone" {
  target = "fiftyone"
  fiftyone {
    deployment {
      key       = "gpuA100"
      node_pool = gpu_node_pool_policy.a100.ref
      gpu {
        count = 1
      }
    }
  }
}

resource "gpu_operator_values" "flyte" {
  target = "flyte-core"
  flyte {
    accelerators = ["a100-40gb"]
    node_pools   = [gpu_node_pool_policy.a100.ref]
  }
}
`, ns)
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: config,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestMatchResourceAttr("gpu_workload.train", "scheduled_nodes.0", regexp.MustCompile(`^gke-a100-\d$`)),
				resource.TestCheckResourceAttr("gpu_operator_values.fiftyone", "cloud", "gke"),
				checkFiftyOneAgrees,
				checkFlyteAgrees,
			),
		}},
	})
}

// workloadPlacement reads node_selector and tolerations of gpu_workload.train.
func workloadPlacement(s *terraform.State) (map[string]string, []corev1.Toleration, string, error) {
	r, ok := s.RootModule().Resources["gpu_workload.train"]
	if !ok {
		return nil, nil, "", fmt.Errorf("gpu_workload.train is not in the state")
	}
	attrs := r.Primary.Attributes
	selector := map[string]string{}
	for k, v := range attrs {
		if key, found := strings.CutPrefix(k, "node_selector."); found && key != "%" {
			selector[key] = v
		}
	}
	n, _ := strconv.Atoi(attrs["tolerations.#"])
	tolerations := make([]corev1.Toleration, n)
	for i := range tolerations {
		at := func(f string) string { return attrs["tolerations."+strconv.Itoa(i)+"."+f] }
		tolerations[i] = corev1.Toleration{Key: at("key"), Operator: corev1.TolerationOperator(at("operator")),
			Value: at("value"), Effect: corev1.TaintEffect(at("effect"))}
	}
	if len(selector) == 0 || n == 0 {
		return nil, nil, "", fmt.Errorf("the workload has no node selector or tolerations: %v", attrs)
	}
	return selector, tolerations, attrs["resource_name"], nil
}

func checkFiftyOneAgrees(s *terraform.State) error {
	selector, tolerations, _, err := workloadPlacement(s)
	if err != nil {
		return err
	}
	values, err := stateValues(s, "gpu_operator_values.fiftyone")
	if err != nil {
		return err
	}
	var entry struct {
		NodeSelector map[string]string   `json:"nodeSelector"`
		Tolerations  []corev1.Toleration `json:"tolerations"`
	}
	if err := convertPlain(values, &entry, "delegatedOperatorDeployments", "deployments", "gpuA100"); err != nil {
		return err
	}
	if !maps.Equal(entry.NodeSelector, selector) {
		return fmt.Errorf("FiftyOne nodeSelector %v != workload node_selector %v", entry.NodeSelector, selector)
	}
	if got, want := tolerationStrings(entry.Tolerations), tolerationStrings(tolerations); !slices.Equal(got, want) {
		return fmt.Errorf("FiftyOne tolerations %v != workload tolerations %v", got, want)
	}
	return nil
}

// flytekitA100Device is the device flytekit's A100 accelerator sends
// (flytekit extras/accelerators.py), which propeller matches against the
// gpu-device-node-label.
const flytekitA100Device = "nvidia-tesla-a100"

func checkFlyteAgrees(s *terraform.State) error {
	selector, tolerations, resourceName, err := workloadPlacement(s)
	if err != nil {
		return err
	}
	values, err := stateValues(s, "gpu_operator_values.flyte")
	if err != nil {
		return err
	}
	var k8s struct {
		DeviceLabel         string                           `json:"gpu-device-node-label"`
		ResourceName        string                           `json:"gpu-resource-name"`
		ResourceTolerations []map[string][]corev1.Toleration `json:"resource-tolerations"`
	}
	if err := convertPlain(values, &k8s, "configmap", "k8s", "plugins", "k8s"); err != nil {
		return err
	}
	if got := selector[k8s.DeviceLabel]; got != flytekitA100Device {
		return fmt.Errorf("gpu-device-node-label %q: the workload selects %q on it, Flyte tasks would ask for %q",
			k8s.DeviceLabel, got, flytekitA100Device)
	}
	if k8s.ResourceName != resourceName {
		return fmt.Errorf("gpu-resource-name %q != workload resource_name %q", k8s.ResourceName, resourceName)
	}
	var flyte []corev1.Toleration
	for _, m := range k8s.ResourceTolerations {
		flyte = append(flyte, m[resourceName]...)
	}
	if got, want := taintKeys(flyte), taintKeys(tolerations); !slices.Equal(got, want) {
		return fmt.Errorf("Flyte resource-tolerations[%s] keys %v != workload toleration keys %v", resourceName, got, want)
	}
	return nil
}

// convertPlain decodes values[path...] into a typed struct.
func convertPlain(values map[string]any, into any, path ...string) error {
	var cur any = values
	for _, key := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return fmt.Errorf("values have no %s", strings.Join(path, "."))
		}
		cur = m[key]
	}
	raw, err := yaml.Marshal(cur)
	if err != nil {
		return err
	}
	return yaml.Unmarshal(raw, into)
}

func tolerationStrings(ts []corev1.Toleration) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = fmt.Sprintf("%s/%s/%s/%s", t.Key, t.Operator, t.Value, t.Effect)
	}
	sort.Strings(out)
	return out
}

func taintKeys(ts []corev1.Toleration) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Key)
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// The documented example applies without a cluster, and the pods of every
// chart it configures pass a server-side dry run.
func TestAccOperatorValues_exampleApplies(t *testing.T) {
	skipWithoutAcceptance(t)
	clearClusterEnv(t)
	ns := acctest.Namespace(t)
	src, err := os.ReadFile(filepath.Join(acctest.RepoRoot(t), "examples", "resources", "gpu_operator_values", "resource.tf"))
	if err != nil {
		t.Fatal(err)
	}
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: string(src),
			Check: func(s *terraform.State) error {
				var failures []string
				for address, r := range s.RootModule().Resources {
					if r.Type != "gpu_operator_values" {
						continue
					}
					if err := dryRunFragments(t, s, address, r.Primary.Attributes["target"], ns); err != nil {
						failures = append(failures, err.Error())
					}
				}
				if len(failures) > 0 {
					sort.Strings(failures)
					return fmt.Errorf("%s", strings.Join(failures, "\n"))
				}
				if out := s.RootModule().Outputs["gpu_operator_device_plugin_config"]; out == nil || out.Value != "gpu-device-plugin-config" {
					return fmt.Errorf("output gpu_operator_device_plugin_config = %v", out)
				}
				return nil
			},
		}},
	})
}
