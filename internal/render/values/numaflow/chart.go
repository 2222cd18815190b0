package numaflow

import (
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/chartkit"
	corev1 "k8s.io/api/core/v1"
)

// Target is the gpu_operator_values target of a Numaflow GPU UDF (a
// vertex fragment or manifest rather than a chart's values).
const Target = "numaflow"

// Block is the gpu_operator_values block Numaflow reads, the first step of
// its diagnostic paths.
const Block = "numaflow"

// Chart is Numaflow's registration with the values front door. It has no
// InputPath: Numaflow's values are not validated against a chart schema,
// so a finding inside them points at the numaflow block.
func Chart() chartkit.Chart[Values] {
	return chartkit.Chart[Values]{
		Targets: []string{Target},
		Block:   Block,
		Generate: func(_ string, cloud clouds.Cloud, in Values, strict bool) (map[string]any, gpudiag.Diagnostics) {
			return Generate(cloud, in, strict)
		},
		Pods: func(_ string, values map[string]any) ([]corev1.PodSpec, error) { return Pods(values) },
	}
}
