package nvidia

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/values/chartkit"
)

func GPUOperatorPods(values map[string]any) ([]corev1.PodSpec, error) {
	var pods []corev1.PodSpec
	for _, p := range []struct {
		name string
		path []string
	}{
		{"operand", []string{"daemonsets", "tolerations"}},
		{"nfd-worker", []string{"node-feature-discovery", "worker", "tolerations"}},
	} {
		spec := corev1.PodSpec{Containers: []corev1.Container{{Name: p.name, Image: chartkit.PlaceholderImage}}}
		if raw, ok := chartkit.GetPath(values, p.path...); ok {
			if err := chartkit.DecodePlain(raw, &spec.Tolerations); err != nil {
				return nil, fmt.Errorf("%s: %w", chartkit.DisplayValuesPath(chartkit.StepsOf(p.path)), err)
			}
		}
		pods = append(pods, spec)
	}
	return pods, nil
}

func DevicePluginPods(values map[string]any) ([]corev1.PodSpec, error) {
	spec := corev1.PodSpec{Containers: []corev1.Container{{Name: "nvidia-device-plugin-ctr", Image: chartkit.PlaceholderImage}}}
	if err := chartkit.DecodePodPlacement(values, &spec); err != nil {
		return nil, err
	}
	return []corev1.PodSpec{spec}, nil
}
