// Package pool decides what a gpu_node_pool_policy may say (Validate), what
// its nodes must carry (Render: labels, taints, device-plugin config and the
// cloud's node-pool shape), the legacy pool ids state upgrades still read
// (DecodeID, a versioned format with fixtures), and where a workload on the
// pool lands (Apply), with the same rules a workload uses so the two cannot
// disagree.
package pool
