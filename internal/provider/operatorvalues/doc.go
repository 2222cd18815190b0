// Package operatorvalues is the gpu_operator_values resource: Helm values for
// the GPU charts (FiftyOne, Flyte, the NVIDIA stack, Numaflow) whose GPU pods
// land where the pools are. Each target's rules live in internal/render/values.
package operatorvalues
