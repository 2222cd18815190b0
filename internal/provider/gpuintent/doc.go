// Package gpuintent is the `gpu` block, declared once: its schema, its model
// and its conversion to render's spec.GPU. gpu_workload and
// gpu_operator_values take the block itself; the pod placement function and
// data source take an object with its names (Names), which their tests hold
// to the block. A GPU attribute is added here and every one of them gets it.
package gpuintent
