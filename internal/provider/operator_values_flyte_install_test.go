package provider

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
	"github.com/gpuform/terraform-provider-gpu/internal/helmchart/helminstall"
	"github.com/gpuform/terraform-provider-gpu/internal/render"
	"github.com/gpuform/terraform-provider-gpu/internal/testcharts"
)

// flyteChart is one Flyte chart: where it keeps the k8s plugin config once
// installed, and the values prefix that config sits under.
type flyteChart struct {
	chart, target string
	version       int
	configKey     string   // data key of the installed ConfigMap
	valuesPrefix  []string // where that file's content sits in the values
}

// flyteCloud is a cloud whose nodes carry the device names flytekit sends
// (GKE's own labels; EKS node groups labelled by the cluster-autoscaler
// convention), and the pools of an A100 task there: any A100 pool, and the
// whole-GPU pool for an unpartitioned task ("" where the cloud has no
// partition label).
type flyteCloud struct {
	cloud             string
	a100Pools         []string
	unpartitionedPool string
}

// The real Flyte charts (flyte-core and flyte-binary of Flyte v1,
// flyte-binary of Flyte v2), installed with the values generated for GKE and
// for EKS, the clouds whose nodes carry flytekit's device names:
// from the k8s plugin config propeller reads out of the installed
// ConfigMap, the pods propeller builds for a flytekit A100 task (device
// nvidia-tesla-a100) and, on v1 GKE, an A100.unpartitioned task are created
// in the cluster; the unpartitioned one lands on the whole-A100 pool, never
// the MIG pool, and the plain one on an A100 pool (propeller selects the device
// label only, so a MIG node qualifies too; see
// docs/design/flyte.md#how-propeller-places-a-gpu-task) (issue #15).
func TestAccOperatorValues_flyteInstalledTasksLand(t *testing.T) {
	for _, c := range []flyteChart{
		{"flyte-core", render.TargetFlyteCore, 1, "k8s.yaml", []string{"configmap", "k8s"}},
		{"flyte-binary", render.TargetFlyteBinary, 1, "100-inline-config.yaml", []string{"configuration", "inline"}},
		{"flyte-binary-v2", render.TargetFlyteBinary, 2, "100-inline-config.yaml", []string{"configuration", "inline"}},
	} {
		for _, cl := range []flyteCloud{
			{"gke", []string{"gke-a100", "gke-a100-mig"}, "gke-a100"},
			{"eks", []string{"eks-p4d"}, ""},
		} {
			t.Run(c.chart+"/"+cl.cloud, func(t *testing.T) { installFlyteAndPlaceTasks(t, c, cl) })
		}
	}
}

func installFlyteAndPlaceTasks(t *testing.T, c flyteChart, cl flyteCloud) {
	chartPath := testcharts.Chart(t, c.chart)
	ns := acctest.Namespace(t)
	kubeconfig := acctest.Kubeconfig(t)
	// One release name per chart and cloud: the charts' cluster-scoped
	// objects are named after the release.
	release := c.chart + "-" + cl.cloud
	t.Cleanup(func() {
		if err := helminstall.Uninstall(kubeconfig, release, ns); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`
resource "gpu_operator_values" "flyte" {
  target = %q
  cloud  = %q
  flyte {
    flyte_version = %d
    accelerators  = ["a100-40gb"]
  }
}
`, c.target, cl.cloud, c.version),
			Check: func(s *terraform.State) error {
				values, err := stateValues(s, "gpu_operator_values.flyte")
				if err != nil {
					return err
				}
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				if _, err := helminstall.UpgradeInstall(ctx, kubeconfig, chartPath, release, ns, values); err != nil {
					return err
				}
				installed, err := installedFlyteConfig(ctx, t, ns, c.configKey)
				if err != nil {
					return err
				}
				asValues := map[string]any{}
				nest(asValues, installed, c.valuesPrefix...)
				pods, err := render.PodFragments(c.target, asValues)
				if err != nil {
					return fmt.Errorf("the installed plugin config does not read as propeller's: %w", err)
				}
				if c.version == 2 {
					// v2 maps the accelerator to its device in the config
					// itself: the second pod is the A100 task.
					if len(pods) < 2 {
						return fmt.Errorf("want a base and an A100 task pod, got %d", len(pods))
					}
					return podLandsOnPools(ctx, t, ns, "a100", pods[1], cl.a100Pools...)
				}
				device, unpartitioned, err := flyteA100Tasks(installed, pods[0])
				if err != nil {
					return err
				}
				if err := podLandsOnPools(ctx, t, ns, "a100", device, cl.a100Pools...); err != nil {
					return err
				}
				if cl.unpartitionedPool == "" {
					if unpartitioned != nil {
						return fmt.Errorf("%s has no partition label, yet the config names an unpartitioned requirement", cl.cloud)
					}
					return nil
				}
				if unpartitioned == nil {
					return fmt.Errorf("the installed config has no gpu-unpartitioned-node-selector-requirement")
				}
				return podLandsOnPools(ctx, t, ns, "a100-unpartitioned", *unpartitioned, cl.unpartitionedPool)
			},
		}},
	})
}

// nest puts v at path inside m.
func nest(m map[string]any, v any, path ...string) {
	for _, p := range path[:len(path)-1] {
		next := map[string]any{}
		m[p] = next
		m = next
	}
	m[path[len(path)-1]] = v
}

// flyteA100Tasks applies propeller's ApplyGPUNodeSelectors to the base task
// pod for flytekit's A100 (device nvidia-tesla-a100) and A100.unpartitioned,
// with the label keys and requirement of the installed config.
// The unpartitioned pod is nil when the config names no unpartitioned
// requirement (a cloud without a partition label).
func flyteA100Tasks(inline map[string]any, base corev1.PodSpec) (device corev1.PodSpec, unpartitioned *corev1.PodSpec, err error) {
	plugins, _ := inline["plugins"].(map[string]any)
	k8s, _ := plugins["k8s"].(map[string]any)
	label, _ := k8s["gpu-device-node-label"].(string)
	if label == "" {
		return device, nil, fmt.Errorf("the installed config names no gpu-device-node-label: %v", k8s)
	}
	onDevice := corev1.NodeSelectorRequirement{Key: label, Operator: corev1.NodeSelectorOpIn, Values: []string{"nvidia-tesla-a100"}}
	toleration := corev1.Toleration{Key: label, Operator: corev1.TolerationOpEqual, Value: "nvidia-tesla-a100", Effect: corev1.TaintEffectNoSchedule}
	device = withRequirements(base, toleration, onDevice)
	req, ok := k8s["gpu-unpartitioned-node-selector-requirement"]
	if !ok {
		return device, nil, nil
	}
	raw, err := yaml.Marshal(req)
	if err != nil {
		return device, nil, err
	}
	var noPartition corev1.NodeSelectorRequirement
	if err := yaml.UnmarshalStrict(raw, &noPartition); err != nil || noPartition.Key == "" {
		return device, nil, fmt.Errorf("gpu-unpartitioned-node-selector-requirement is not a requirement: %s", raw)
	}
	pod := withRequirements(base, toleration, onDevice, noPartition)
	return device, &pod, nil
}

func withRequirements(base corev1.PodSpec, toleration corev1.Toleration, reqs ...corev1.NodeSelectorRequirement) corev1.PodSpec {
	pod := *base.DeepCopy()
	pod.Tolerations = append(pod.Tolerations, toleration)
	pod.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: reqs}},
	}}}
	return pod
}

// installedFlyteConfig reads a config file (a data key) from the ConfigMap
// the chart installed: what the chart hands propeller.
func installedFlyteConfig(ctx context.Context, t *testing.T, ns, key string) (map[string]any, error) {
	maps, err := acctest.Client(t).CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for _, cm := range maps.Items {
		if text, ok := cm.Data[key]; ok {
			var inline map[string]any
			if err := yaml.Unmarshal([]byte(text), &inline); err != nil {
				return nil, fmt.Errorf("%s: %w", cm.Name, err)
			}
			return inline, nil
		}
	}
	return nil, fmt.Errorf("no installed ConfigMap holds %s: the chart dropped the GPU plugin config", key)
}

// podLandsOnPools creates a task pod and waits until it is scheduled on a
// node of one of pools.
func podLandsOnPools(ctx context.Context, t *testing.T, ns, name string, spec corev1.PodSpec, pools ...string) error {
	cs := acctest.Client(t)
	for i := range spec.Containers {
		spec.Containers[i].Image = "registry.invalid/flyte-task:1"
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "task-" + name, Namespace: ns,
		Labels: map[string]string{"flyte-task": name}}, Spec: spec}
	if _, err := cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("the API server refused the %s task pod: %w", name, err)
	}
	for {
		placed, err := podPools(ctx, t, ns, "flyte-task="+name)
		if err != nil {
			return err
		}
		if pool := placed[pod.Name]; pool != "" {
			if !slices.Contains(pools, pool) {
				return fmt.Errorf("the %s task pod landed on pool %s, want one of %v", name, pool, pools)
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the %s task pod was not scheduled (want pools %v)", name, pools)
		case <-time.After(250 * time.Millisecond):
		}
	}
}
