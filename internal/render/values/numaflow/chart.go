package numaflow

import (
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/chartkit"
)

// Target is the gpu_operator_values target of a Numaflow GPU UDF (a
// vertex fragment or manifest rather than a chart's values).
const Target = "numaflow"

// Block is the gpu_operator_values block Numaflow reads, the first step of
// its diagnostic paths.
const Block = "numaflow"

// Chart is Numaflow's registration with the values front door, registered
// when the package is linked. It has no InputPath: Numaflow's values are not
// validated against a chart schema, so a finding inside them points at the
// numaflow block.
func Chart() chartkit.Chart[Values] { return registration }

var registration = chartkit.Register(chartkit.SingleTarget(Target, Block, Generate, Pods, nil))
