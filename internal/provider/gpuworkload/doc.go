// Package gpuworkload is the gpu_workload resource: its schema, model and
// conversions, plan-time checks, apply (server-side apply, waits, Kueue),
// refresh, import and adoption, and the direct codec the protocol layer uses.
package gpuworkload
