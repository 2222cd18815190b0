package numaflow

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/values/chartkit"
)

// Pods finds the GPU vertex: in a fragment, a Pipeline's vertices,
// a MonoVertex spec, or a List holding one of them.
func Pods(values map[string]any) ([]corev1.PodSpec, error) {
	var blocks []map[string]any
	collectNumaflowBlocks(values, &blocks)
	var pods []corev1.PodSpec
	for i, b := range blocks {
		spec, err := numaflowPod(b)
		if err != nil {
			return nil, fmt.Errorf("vertex %d: %w", i, err)
		}
		pods = append(pods, spec)
	}
	return pods, nil
}

func collectNumaflowBlocks(obj map[string]any, out *[]map[string]any) {
	switch obj["kind"] {
	case "List":
		items, _ := obj["items"].([]any)
		for _, item := range items {
			if m, ok := item.(map[string]any); ok {
				collectNumaflowBlocks(m, out)
			}
		}
	case "Pipeline":
		vertices, _ := chartkit.GetPath(obj, "spec", "vertices")
		list, _ := vertices.([]any)
		for _, v := range list {
			if m, ok := v.(map[string]any); ok && m["udf"] != nil {
				*out = append(*out, m)
			}
		}
	case "MonoVertex":
		if spec, ok := obj["spec"].(map[string]any); ok {
			*out = append(*out, spec)
		}
	case nil:
		if obj["udf"] != nil {
			*out = append(*out, obj)
		}
	}
}

func numaflowPod(block map[string]any) (corev1.PodSpec, error) {
	var spec corev1.PodSpec
	if err := chartkit.DecodePodPlacement(block, &spec); err != nil {
		return spec, err
	}
	raw, _ := chartkit.GetPath(block, "udf", "container")
	container, _ := raw.(map[string]any)
	c := corev1.Container{Name: "udf", Image: chartkit.PlaceholderImage}
	if image, ok := container["image"].(string); ok && image != "" {
		c.Image = image
	}
	if err := chartkit.DecodeField(container, "resources", &c.Resources); err != nil {
		return spec, err
	}
	if err := chartkit.DecodeField(container, "env", &c.Env); err != nil {
		return spec, err
	}
	spec.Containers = []corev1.Container{c}
	return spec, nil
}
