// Package gpuintent is the `gpu` block, declared once: its schema, its model
// and its conversion to render's spec.GPU. gpu_workload and gpu_operator_values
// both take it, so a GPU attribute is added here and both get it.
package gpuintent
