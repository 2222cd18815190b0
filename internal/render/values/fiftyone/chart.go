package fiftyone

import (
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/chartkit"
	corev1 "k8s.io/api/core/v1"
)

// Target is the gpu_operator_values target of FiftyOne Enterprise's chart.
const Target = "fiftyone"

// Block is the gpu_operator_values block FiftyOne reads, the first step of
// its diagnostic paths.
const Block = "fiftyone"

// Chart is FiftyOne's registration with the values front door: one target
// reading the fiftyone block. Nothing FiftyOne renders depends on the target
// name, hence the adapters that drop it.
func Chart() chartkit.Chart[Values] {
	return chartkit.Chart[Values]{
		Targets: []string{Target},
		Block:   Block,
		Generate: func(_ string, cloud clouds.Cloud, in Values, strict bool) (map[string]any, gpudiag.Diagnostics) {
			return Generate(cloud, in, strict)
		},
		Pods:      func(_ string, values map[string]any) ([]corev1.PodSpec, error) { return Pods(values) },
		InputPath: func(_ string, in *Values, keys []string) []any { return InputPath(in, keys) },
	}
}
