// Package capacity reads live GPU capacity from nodes and pods (Summarize:
// pools, their free GPUs, MIG and sharing state) and explains which pools a
// pending pod could use and why the others cannot (MatchingPools). Which
// cloud a node belongs to, and what its labels mean, the clouds package
// decides.
package capacity
