// Package values generates the Helm values of the charts GPU platforms run
// (FiftyOne, Flyte's flyte-core and flyte-binary, the NVIDIA GPU Operator and
// device plugin, Numaflow) so that their GPU pods land on the pools
// gpu_workload would use: placement comes from the same clouds rules. It
// merges them over the user's base values by Helm's rules without dropping
// what the user wrote (MergeBaseValues), maps chart-schema findings back to
// input attributes (RemapDiagnostics), and previews a chart's rendered pods
// (RenderChartPreview) through internal/helmchart, the only importer of Helm.
package values
