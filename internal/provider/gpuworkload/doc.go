// Package gpuworkload is the gpu_workload resource: its schema, model and
// conversions, plan-time checks, apply (server-side apply, waits, Kueue),
// refresh, import and adoption. The protocol layer (internal/protocol)
// serves its plans and reads from the schema alone; nothing here is
// written for it.
package gpuworkload
