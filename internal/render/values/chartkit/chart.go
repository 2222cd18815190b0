package chartkit

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
)

// Chart is what one chart package tells the values front door about
// itself, in the manner of a Kueue integration registering its callbacks
// with the integration manager: the target names it answers to, the input
// block it reads, and the functions the front door dispatches to by target.
// Each chart package registers its Chart from its init (Register,
// registry.go), so a chart is never named in a switch nor listed in render:
// adding one is a package that exports and registers its Chart, plus its
// Terraform block's entry in the provider's table. V is the chart's input
// block (fiftyone.Values, flyte.Values, ...).
type Chart[V any] struct {
	// Targets are the gpu_operator_values target values the chart answers
	// to, in documentation order. Several targets may share a chart and its
	// block when one package renders them all (flyte-core, flyte-binary).
	Targets []string
	// Block is the input block the targets read (fiftyone.Block, ...), the
	// first step of every diagnostic path about it, and the key under which
	// values.Input.Blocks holds the block's *V.
	Block string
	// Generate builds target's values from the block. strict is false at
	// plan time: zero values are then unknown, and only configuration
	// errors are reported (values.ValidateInput). cloud is resolved once
	// by the front door (ResolveCloud); unknown at plan time when unset.
	Generate func(target string, cloud clouds.Cloud, in V, strict bool) (map[string]any, gpudiag.Diagnostics)
	// Pods are the pod specs target's values produce once applied
	// (values.PodFragments); an error when values lack the target's shape.
	Pods func(target string, values map[string]any) ([]corev1.PodSpec, error)
	// InputPath maps the string keys of a location inside target's values
	// to the attribute under Block that produced it, nil when no single
	// attribute did (the diagnostic then points at the block). nil when the
	// chart has no such mapping.
	InputPath func(target string, in *V, keys []string) []any
}

// SingleTarget is the registration of a chart with one target whose
// rendering does not depend on the target name: its functions are given
// without the target, and inputPath may be nil.
func SingleTarget[V any](target, block string,
	generate func(cloud clouds.Cloud, in V, strict bool) (map[string]any, gpudiag.Diagnostics),
	pods func(values map[string]any) ([]corev1.PodSpec, error),
	inputPath func(in *V, keys []string) []any) Chart[V] {
	c := Chart[V]{
		Targets: []string{target},
		Block:   block,
		Generate: func(_ string, cloud clouds.Cloud, in V, strict bool) (map[string]any, gpudiag.Diagnostics) {
			return generate(cloud, in, strict)
		},
		Pods: func(_ string, values map[string]any) ([]corev1.PodSpec, error) { return pods(values) },
	}
	if inputPath != nil {
		c.InputPath = func(_ string, in *V, keys []string) []any { return inputPath(in, keys) }
	}
	return c
}
