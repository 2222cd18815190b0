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
	"github.com/gpuform/terraform-provider-gpu/internal/render/values"
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

// flyteCloud is one cloud's Flyte GPU task: the catalog accelerator the
// values allow, the device a v1 task names there (flytekit's constant where
// the nodes carry it, else the label value the provider's plan warning tells
// users to pass to GPUAccelerator), Flyte v2's name for it, the pools a task
// for that device may land on, and the whole-GPU pool of an unpartitioned
// task ("" where the cloud has no partition label).
type flyteCloud struct {
	cloud             string
	accelerator       string
	device            string
	v2Name            string
	pools             []string
	unpartitionedPool string
}

// flyteClouds has one GPU task per cloud, on a model the local cluster's
// fixtures of that cloud have. GKE and EKS nodes carry flytekit's device
// names; the others carry instance types, instance GPU names or GFD product
// names (docs/design/flyte.md#flytekit-accelerator-constants).
var flyteClouds = []flyteCloud{
	{"gke", "a100-40gb", "nvidia-tesla-a100", "A100", []string{"gke-a100", "gke-a100-mig"}, "gke-a100"},
	{"gke-autopilot", "l4", "nvidia-l4", "L4", []string{"autopilot-l4"}, "autopilot-l4"},
	{"aks", "a100-80gb", "Standard_NC24ads_A100_v4", "A100 80G", []string{"aks-nc24adsa100"}, ""},
	{"eks", "a100-40gb", "nvidia-tesla-a100", "A100", []string{"eks-p4d"}, ""},
	{"eks-auto", "l40s", "l40s", "L40s", []string{"eksauto-l40s"}, ""},
	{"karpenter", "l4", "l4", "L4", []string{"karpenter-g6"}, ""},
	{"generic", "h100-80gb", "NVIDIA-H100-80GB-HBM3", "H100", []string{"generic-h100"}, ""},
}

// The real Flyte charts (flyte-core and flyte-binary of Flyte v1,
// flyte-binary of Flyte v2), installed with the values generated for every
// cloud: from the k8s plugin config propeller reads out of the installed
// ConfigMap, the pods propeller builds for a GPU task naming the cloud's
// device and, where the cloud has a partition label, an unpartitioned task
// are created in the cluster; the unpartitioned one lands on the whole-GPU
// pool, never the MIG pool, and the plain one on a pool of that model
// (propeller selects the device label only, so a MIG node qualifies too; see
// docs/design/flyte.md#how-propeller-places-a-gpu-task). The chart's own
// pods stay off the GPU nodes (issue #15).
func TestAccOperatorValues_flyteInstalledTasksLand(t *testing.T) {
	for _, c := range []flyteChart{
		{"flyte-core", values.TargetFlyteCore, 1, "k8s.yaml", []string{"configmap", "k8s"}},
		{"flyte-binary", values.TargetFlyteBinary, 1, "100-inline-config.yaml", []string{"configuration", "inline"}},
		{"flyte-binary-v2", values.TargetFlyteBinary, 2, "100-inline-config.yaml", []string{"configuration", "inline"}},
	} {
		for _, cl := range flyteClouds {
			t.Run(c.chart+"/"+cl.cloud, func(t *testing.T) { installFlyteAndPlaceTasks(t, c, cl) })
		}
	}
}

func installFlyteAndPlaceTasks(t *testing.T, c flyteChart, cl flyteCloud) {
	chartPath := testcharts.Chart(t, c.chart)
	ns, kubeconfig, release := helmRelease(t, c.chart+"-"+cl.cloud)
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
    accelerators  = [%q]
  }
}
`, c.target, cl.cloud, c.version, cl.accelerator),
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
				if err := placeFlyteTasks(ctx, t, ns, c, cl, installed); err != nil {
					return err
				}
				return chartPodsOffGPUNodes(ctx, t, ns)
			},
		}},
	})
}

// placeFlyteTasks builds, with propeller's rules and the installed config,
// the pods of a task naming the cloud's device (and an unpartitioned one
// where the config has the requirement) and checks where they land.
func placeFlyteTasks(ctx context.Context, t *testing.T, ns string, c flyteChart, cl flyteCloud, installed map[string]any) error {
	asValues := map[string]any{}
	nest(asValues, installed, c.valuesPrefix...)
	pods, err := values.PodFragments(c.target, asValues)
	if err != nil {
		return fmt.Errorf("the installed plugin config does not read as propeller's: %w", err)
	}
	rules, err := readFlyteTaskRules(installed, c.version)
	if err != nil {
		return err
	}
	device := cl.device
	if c.version == 2 {
		// v2 tasks name the accelerator; the config maps it to the device.
		if device = rules.devices[cl.v2Name]; device != cl.device {
			return fmt.Errorf("accelerator-devices maps %q to %q, but the %s nodes carry %q", cl.v2Name, device, cl.cloud, cl.device)
		}
	}
	task, unpartitioned := rules.tasks(pods[0], device)
	if err := podLandsOnPools(ctx, t, ns, "gpu", task, poollessGPUPools(t, cl.pools...)...); err != nil {
		return err
	}
	if c.version == 2 {
		return nil
	}
	switch {
	case cl.unpartitionedPool == "" && unpartitioned != nil:
		return fmt.Errorf("%s has no partition label, yet the config names an unpartitioned requirement", cl.cloud)
	case cl.unpartitionedPool != "" && unpartitioned == nil:
		return fmt.Errorf("the installed config has no gpu-unpartitioned-node-selector-requirement")
	case unpartitioned == nil:
		return nil
	}
	return podLandsOnPools(ctx, t, ns, "gpu-unpartitioned", *unpartitioned, cl.unpartitionedPool)
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

// flyteTaskRules are what propeller's ApplyGPUNodeSelectors reads from the
// k8s plugin config: the device label, the unpartitioned requirement, and on
// v2 the accelerator-devices map.
type flyteTaskRules struct {
	deviceLabel   string
	unpartitioned *corev1.NodeSelectorRequirement
	devices       map[string]string
}

// readFlyteTaskRules reads the rules from the installed config: v1 keeps them
// in the k8s plugin section, v2 in the NVIDIA_GPU accelerator device class.
func readFlyteTaskRules(inline map[string]any, version int) (flyteTaskRules, error) {
	plugins, _ := inline["plugins"].(map[string]any)
	k8s, _ := plugins["k8s"].(map[string]any)
	labelKey, unpartitionedKey := "gpu-device-node-label", "gpu-unpartitioned-node-selector-requirement"
	var section any = k8s
	var rules flyteTaskRules
	if version == 2 {
		labelKey, unpartitionedKey = "device-node-label", "unpartitioned-node-selector-requirement"
		section = singleKeyEntry(k8s["accelerator-device-classes"], "NVIDIA_GPU")
		rules.devices = map[string]string{}
		for name := range singleKeyNames(k8s["accelerator-devices"]) {
			rules.devices[name], _ = singleKeyEntry(k8s["accelerator-devices"], name).(string)
		}
	}
	class, _ := section.(map[string]any)
	rules.deviceLabel, _ = class[labelKey].(string)
	if rules.deviceLabel == "" {
		return rules, fmt.Errorf("the installed config names no %s: %v", labelKey, k8s)
	}
	req, ok := class[unpartitionedKey]
	if !ok {
		return rules, nil
	}
	raw, err := yaml.Marshal(req)
	if err != nil {
		return rules, err
	}
	rules.unpartitioned = &corev1.NodeSelectorRequirement{}
	if err := yaml.UnmarshalStrict(raw, rules.unpartitioned); err != nil || rules.unpartitioned.Key == "" {
		return rules, fmt.Errorf("%s is not a requirement: %s", unpartitionedKey, raw)
	}
	return rules, nil
}

// tasks applies the rules to the base task pod for a task naming device, and
// for the same task marked unpartitioned (nil without the requirement).
func (r flyteTaskRules) tasks(base corev1.PodSpec, device string) (task corev1.PodSpec, unpartitioned *corev1.PodSpec) {
	onDevice := corev1.NodeSelectorRequirement{Key: r.deviceLabel, Operator: corev1.NodeSelectorOpIn, Values: []string{device}}
	toleration := corev1.Toleration{Key: r.deviceLabel, Operator: corev1.TolerationOpEqual, Value: device, Effect: corev1.TaintEffectNoSchedule}
	task = withRequirements(base, toleration, onDevice)
	if r.unpartitioned == nil {
		return task, nil
	}
	pod := withRequirements(base, toleration, onDevice, *r.unpartitioned)
	return task, &pod
}

// singleKeyNames and singleKeyEntry read Flyte's list-of-single-key-maps
// form (the form of resource-tolerations, accelerator-devices and
// accelerator-device-classes in the values).
func singleKeyNames(list any) map[string]bool {
	names := map[string]bool{}
	entries, _ := list.([]any)
	for _, e := range entries {
		m, _ := e.(map[string]any)
		for k := range m {
			names[k] = true
		}
	}
	return names
}

func singleKeyEntry(list any, name string) any {
	entries, _ := list.([]any)
	for _, e := range entries {
		if m, ok := e.(map[string]any); ok {
			if v, ok := m[name]; ok {
				return v
			}
		}
	}
	return nil
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
		return fmt.Errorf("the API server refused the %s pod: %w", name, err)
	}
	for {
		placed, err := podPools(ctx, t, ns, "flyte-task="+name)
		if err != nil {
			return err
		}
		if pool := placed[pod.Name]; pool != "" {
			if !slices.Contains(pools, pool) {
				return fmt.Errorf("the %s pod landed on pool %s, want one of %v", name, pool, pools)
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the %s pod was not scheduled (want pools %v)", name, pools)
		case <-time.After(250 * time.Millisecond):
		}
	}
}
