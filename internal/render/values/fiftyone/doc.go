// Package fiftyone generates FiftyOne Enterprise's values for delegated
// operators: GPU Deployments and on-demand job templates placed like a
// gpu_workload, CPU-only entries without GPU settings, and Helm's kebabcase,
// which names the chart's objects. Chart facts are in
// docs/design/fiftyone.md.
package fiftyone
