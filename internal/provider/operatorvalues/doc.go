// Package operatorvalues is the gpu_operator_values resource: Helm values for
// the GPU charts (FiftyOne, Flyte, the NVIDIA stack, Numaflow) whose GPU pods
// land where the pools are. Each target's rules live in internal/render/values;
// here each chart block's Terraform half (schema, model, conversion into the
// chart's input) has its file, and charts.go lists them once.
package operatorvalues
