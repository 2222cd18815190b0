package fiftyone

import (
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/chartkit"
)

// Target is the gpu_operator_values target of FiftyOne Enterprise's chart.
const Target = "fiftyone"

// Block is the gpu_operator_values block FiftyOne reads, the first step of
// its diagnostic paths.
const Block = "fiftyone"

// Chart is FiftyOne's registration with the values front door: one target
// reading the fiftyone block, registered when the package is linked.
func Chart() chartkit.Chart[Values] { return registration }

var registration = chartkit.Register(chartkit.SingleTarget(Target, Block, Generate, Pods, InputPath))
