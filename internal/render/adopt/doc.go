// Package adopt decides how a GPU workload that gpu_workload did not create
// becomes one it manages: which GPU intent the object's placement expresses
// (found by asking every cloud profile what it would render, never by a
// table of label keys of its own), which typed attributes its fields map
// to, what the provider would correct (GPU placement the rules require and
// the object lacks), and the strategic merge patch that carries every other
// field, so that the imported configuration renders the object as it is
// (docs/design/workloads.md#adopting-an-existing-workload).
package adopt
