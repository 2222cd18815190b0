// Package values generates the Helm values of the charts GPU platforms run
// (FiftyOne, Flyte's flyte-core and flyte-binary, the NVIDIA GPU Operator and
// device plugin, Numaflow) so that their GPU pods land on the pools
// gpu_workload would use. It is the front door: the dispatch to the chart
// registry (registry.go: each chart package describes itself once as a
// chartkit.Chart and registers it from its init, and every per-target
// decision is dispatched through the registry), the input model, Generate and ValidateInput,
// PodFragments (the pods a set of values will produce), RemapDiagnostics
// (chart-schema findings back to input attributes), and chart validation and
// previews through internal/helmchart, the only importer of Helm. Each
// chart's rules live in its own package: fiftyone, flyte, nvidia and
// numaflow; chartkit holds what they share.
package values
