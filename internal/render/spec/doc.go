// Package spec holds the types every rule reads or returns: the workload
// (Workload and its GPU, DRA, model cache and probe blocks), the node pool
// policy and what rendering it yields (PoolRendered and the per-cloud
// node-pool bodies), live pool capacity, the cloud names, and the labels the
// provider puts on objects. Zero values mean "unset or unknown", since plans
// see values before they are known.
//
// It decides nothing, so every other package can depend on it.
package spec
