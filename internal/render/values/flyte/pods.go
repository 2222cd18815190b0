package flyte

import (
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/chartkit"
)

// Pods simulates flytepropeller for a one-GPU task (docs/design/flyte.md#how-propeller-places-a-gpu-task):
// the GPU resource with equal request, resource-tolerations of it,
// default-tolerations and default-node-selector; then the same task per
// configured device (required node affinity and toleration on the device
// label), unpartitioned, and interruptible.
func Pods(target string, values map[string]any) ([]corev1.PodSpec, error) {
	raw, _ := chartkit.GetPath(values, PluginPath(target)...)
	k8s, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s is not a map", chartkit.DisplayValuesPath(chartkit.StepsOf(PluginPath(target))))
	}
	cfg, err := readFlyteConfig(k8s)
	if err != nil {
		return nil, err
	}
	base := cfg.basePod()
	pods := []corev1.PodSpec{base}
	for _, device := range cfg.devices {
		pod := *base.DeepCopy()
		chartkit.AddRequired(&pod, corev1.NodeSelectorRequirement{Key: cfg.deviceLabel, Operator: corev1.NodeSelectorOpIn, Values: []string{device}})
		pod.Tolerations = append(pod.Tolerations, clouds.TolerateEqual(cfg.deviceLabel, device))
		pods = append(pods, pod)
	}
	if cfg.unpartitioned != nil {
		pod := *base.DeepCopy()
		chartkit.AddRequired(&pod, *cfg.unpartitioned)
		pods = append(pods, pod)
	}
	if cfg.interruptible != nil {
		pod := *base.DeepCopy()
		chartkit.AddRequired(&pod, *cfg.interruptible)
		pod.Tolerations = append(pod.Tolerations, cfg.interruptibleTolerations...)
		pods = append(pods, pod)
	}
	return pods, nil
}

// flyteConfig is the part of the k8s plugin config a GPU task depends on.
type flyteConfig struct {
	resourceName             string
	tolerations              map[string][]corev1.Toleration
	defaultTolerations       []corev1.Toleration
	defaultNodeSelector      map[string]string
	deviceLabel              string
	devices                  []string
	unpartitioned            *corev1.NodeSelectorRequirement
	interruptible            *corev1.NodeSelectorRequirement
	interruptibleTolerations []corev1.Toleration
}

func readFlyteConfig(k8s map[string]any) (flyteConfig, error) {
	cfg := flyteConfig{resourceName: string(clouds.ResourceNvidiaGPU), tolerations: map[string][]corev1.Toleration{}}
	class := map[string]any{}
	if classes, err := chartkit.FromSingleKeyMaps(k8s[flyteKeyAcceleratorDeviceClass]); err != nil {
		return cfg, err
	} else if c, ok := classes[flyteNvidiaDeviceClass].(map[string]any); ok {
		class = c
	}
	pick := func(v1Key, v2Key string) any {
		if v, ok := class[v2Key]; ok {
			return v
		}
		return k8s[v1Key]
	}
	if s, ok := pick(KeyGPUResourceName, "resource-name").(string); ok && s != "" {
		cfg.resourceName = s
	}
	cfg.deviceLabel, _ = pick(KeyGPUDeviceNodeLabel, "device-node-label").(string)
	if err := chartkit.DecodeOptional(pick(KeyGPUUnpartitionedReq, "unpartitioned-node-selector-requirement"), &cfg.unpartitioned); err != nil {
		return cfg, err
	}
	byResource, err := chartkit.FromSingleKeyMaps(k8s[KeyResourceTolerations])
	if err != nil {
		return cfg, err
	}
	for name, v := range byResource {
		var ts []corev1.Toleration
		if err := chartkit.DecodePlain(v, &ts); err != nil {
			return cfg, fmt.Errorf("%s[%s]: %w", KeyResourceTolerations, name, err)
		}
		cfg.tolerations[name] = ts
	}
	if err := chartkit.DecodeOptional(k8s[flyteKeyDefaultTolerations], &cfg.defaultTolerations); err != nil {
		return cfg, err
	}
	selector, err := chartkit.FromSingleKeyMaps(k8s[flyteKeyDefaultNodeSelector])
	if err != nil {
		return cfg, err
	}
	if err := chartkit.DecodePlain(selector, &cfg.defaultNodeSelector); err != nil {
		return cfg, err
	}
	devices, err := chartkit.FromSingleKeyMaps(k8s[KeyAcceleratorDevices])
	if err != nil {
		return cfg, err
	}
	for _, name := range slices.Sorted(maps.Keys(devices)) {
		if d, ok := devices[name].(string); ok && !slices.Contains(cfg.devices, d) && cfg.deviceLabel != "" {
			cfg.devices = append(cfg.devices, d)
		}
	}
	if err := chartkit.DecodeOptional(k8s[flyteKeyInterruptibleReq], &cfg.interruptible); err != nil {
		return cfg, err
	}
	return cfg, chartkit.DecodeOptional(k8s[flyteKeyInterruptibleTolerations], &cfg.interruptibleTolerations)
}

func (cfg flyteConfig) basePod() corev1.PodSpec {
	one := *resource.NewQuantity(1, resource.DecimalSI)
	name := corev1.ResourceName(cfg.resourceName)
	pod := corev1.PodSpec{
		RestartPolicy: corev1.RestartPolicyNever,
		Containers: []corev1.Container{{
			Name: "task", Image: chartkit.PlaceholderImage,
			Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{name: one}, Requests: corev1.ResourceList{name: one}},
		}},
	}
	pod.Tolerations = append(slices.Clone(cfg.tolerations[cfg.resourceName]), cfg.defaultTolerations...)
	if len(cfg.defaultNodeSelector) > 0 {
		pod.NodeSelector = cfg.defaultNodeSelector
	}
	return pod
}
