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

// The real flyte-binary chart (Flyte v1), installed with the values
// generated for GKE: from the k8s plugin config propeller reads out of the
// installed ConfigMap, the pods propeller builds for a flytekit A100 task
// (device nvidia-tesla-a100) and for an A100.unpartitioned task are created
// in the cluster; the unpartitioned one lands on the whole-A100 pool, never
// the MIG pool, and the plain one on an A100 pool (propeller selects the
// device label only, so a MIG node qualifies too; see
// docs/design/flyte.md#how-propeller-places-a-gpu-task) (issue #15).
func TestAccOperatorValues_flyteBinaryInstalledTasksLand(t *testing.T) {
	chartPath := testcharts.Chart(t, "flyte-binary")
	ns := acctest.Namespace(t)
	kubeconfig := acctest.Kubeconfig(t)
	const release = "flyte"
	t.Cleanup(func() {
		if err := helminstall.Uninstall(kubeconfig, release, ns); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: `
resource "gpu_operator_values" "flyte" {
  target = "flyte-binary"
  cloud  = "gke"
  flyte {
    accelerators = ["a100-40gb"]
  }
}
`,
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
				installed, err := installedFlyteInline(ctx, t, ns)
				if err != nil {
					return err
				}
				pods, err := render.PodFragments(render.TargetFlyteBinary, map[string]any{"configuration": map[string]any{"inline": installed}})
				if err != nil {
					return fmt.Errorf("the installed plugin config does not read as propeller's: %w", err)
				}
				if len(pods) == 0 {
					return fmt.Errorf("the installed plugin config gives no task pod")
				}
				device, unpartitioned, err := flyteA100Tasks(installed, pods[0])
				if err != nil {
					return err
				}
				if err := podLandsOnPools(ctx, t, ns, "a100", device, "gke-a100", "gke-a100-mig"); err != nil {
					return err
				}
				return podLandsOnPools(ctx, t, ns, "a100-unpartitioned", unpartitioned, "gke-a100")
			},
		}},
	})
}

// flyteA100Tasks applies propeller's ApplyGPUNodeSelectors to the base task
// pod for flytekit's A100 (device nvidia-tesla-a100) and A100.unpartitioned,
// with the label keys and requirement of the installed config.
func flyteA100Tasks(inline map[string]any, base corev1.PodSpec) (device, unpartitioned corev1.PodSpec, err error) {
	plugins, _ := inline["plugins"].(map[string]any)
	k8s, _ := plugins["k8s"].(map[string]any)
	label, _ := k8s["gpu-device-node-label"].(string)
	if label == "" {
		return device, unpartitioned, fmt.Errorf("the installed config names no gpu-device-node-label: %v", k8s)
	}
	raw, err := yaml.Marshal(k8s["gpu-unpartitioned-node-selector-requirement"])
	if err != nil {
		return device, unpartitioned, err
	}
	var noPartition corev1.NodeSelectorRequirement
	if err := yaml.UnmarshalStrict(raw, &noPartition); err != nil || noPartition.Key == "" {
		return device, unpartitioned, fmt.Errorf("gpu-unpartitioned-node-selector-requirement is not a requirement: %s", raw)
	}
	onDevice := corev1.NodeSelectorRequirement{Key: label, Operator: corev1.NodeSelectorOpIn, Values: []string{"nvidia-tesla-a100"}}
	toleration := corev1.Toleration{Key: label, Operator: corev1.TolerationOpEqual, Value: "nvidia-tesla-a100", Effect: corev1.TaintEffectNoSchedule}
	device = withRequirements(base, toleration, onDevice)
	unpartitioned = withRequirements(base, toleration, onDevice, noPartition)
	return device, unpartitioned, nil
}

func withRequirements(base corev1.PodSpec, toleration corev1.Toleration, reqs ...corev1.NodeSelectorRequirement) corev1.PodSpec {
	pod := *base.DeepCopy()
	pod.Tolerations = append(pod.Tolerations, toleration)
	pod.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: reqs}},
	}}}
	return pod
}

// installedFlyteInline reads 100-inline-config.yaml from the ConfigMap the
// chart installed: what flyte-binary hands propeller.
func installedFlyteInline(ctx context.Context, t *testing.T, ns string) (map[string]any, error) {
	maps, err := acctest.Client(t).CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for _, cm := range maps.Items {
		if text, ok := cm.Data["100-inline-config.yaml"]; ok {
			var inline map[string]any
			if err := yaml.Unmarshal([]byte(text), &inline); err != nil {
				return nil, fmt.Errorf("%s: %w", cm.Name, err)
			}
			return inline, nil
		}
	}
	return nil, fmt.Errorf("no installed ConfigMap holds 100-inline-config.yaml: the chart dropped the GPU plugin config")
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
