package chartkit

import (
	"cmp"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
)

// The registry of chart targets, after Kueue's integration manager
// (jobframework): each chart package registers its Chart when it is
// initialized (var registration = chartkit.Register(...)), so linking the
// package is registering it, and render keeps no list of charts by hand.
// The values front door dispatches every per-target decision through
// Registered.
//
// Adding a chart is its package (its Chart, registered as above) plus one
// entry in the provider's gpu_operator_values table
// (provider/operatorvalues/charts.go) carrying its Terraform block; that
// entry's import is what links the chart into the provider. Render never
// imports the provider.

// Target is one registered target name: its chart's callbacks bound to the
// name, with the chart's input type erased. The block they take is what
// the front door holds under Block: the chart's *V, or nil when unset.
type Target struct {
	Name, Block string

	isSet     func(block any) bool
	generate  func(block any, cloud clouds.Cloud, strict bool) (map[string]any, gpudiag.Diagnostics)
	pods      func(values map[string]any) ([]corev1.PodSpec, error)
	inputPath func(block any, keys []string) []any
}

// IsSet reports whether block is this target's input (the chart's *V, not nil).
func (t Target) IsSet(block any) bool { return t.isSet(block) }

// Generate calls the chart's Generate; block must be set (IsSet).
func (t Target) Generate(block any, cloud clouds.Cloud, strict bool) (map[string]any, gpudiag.Diagnostics) {
	return t.generate(block, cloud, strict)
}

// Pods calls the chart's Pods.
func (t Target) Pods(values map[string]any) ([]corev1.PodSpec, error) { return t.pods(values) }

// InputPath calls the chart's InputPath; nil when the chart has none.
func (t Target) InputPath(block any, keys []string) []any { return t.inputPath(block, keys) }

// registered holds every target registered so far, in registration order.
var registered []Target

// Register adds each of c's targets to the registry and returns c; a chart
// package calls it when it is initialized. A target name registered twice,
// or a block another chart already reads, is a programming error and
// panics at start-up, so no two charts can answer for the same name or
// input.
func Register[V any](c Chart[V]) Chart[V] {
	if slices.ContainsFunc(registered, func(t Target) bool { return t.Block == c.Block }) {
		panic("chartkit: block " + c.Block + " is registered twice")
	}
	for _, name := range c.Targets {
		if slices.ContainsFunc(registered, func(t Target) bool { return t.Name == name }) {
			panic("chartkit: target " + name + " is registered twice")
		}
		registered = append(registered, bind(c, name))
	}
	return c
}

// Registered lists the registered targets sorted by name, so the order does
// not depend on the order packages are initialized in.
func Registered() []Target {
	out := slices.Clone(registered)
	slices.SortFunc(out, func(a, b Target) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// bind is c's callbacks for target name, reading the chart's *V from the
// erased block.
func bind[V any](c Chart[V], name string) Target {
	input := func(block any) *V {
		v, _ := block.(*V)
		return v
	}
	return Target{
		Name:  name,
		Block: c.Block,
		isSet: func(block any) bool { return input(block) != nil },
		generate: func(block any, cloud clouds.Cloud, strict bool) (map[string]any, gpudiag.Diagnostics) {
			return c.Generate(name, cloud, *input(block), strict)
		},
		pods: func(values map[string]any) ([]corev1.PodSpec, error) { return c.Pods(name, values) },
		inputPath: func(block any, keys []string) []any {
			if c.InputPath == nil {
				return nil
			}
			return c.InputPath(name, input(block), keys)
		},
	}
}
