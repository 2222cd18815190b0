// Package nodepoolpolicy is the gpu_node_pool_policy resource: the pool's
// schema and model, the cloud node-pool shape it outputs, and the optional
// labelling and tainting of the pool's existing nodes.
package nodepoolpolicy
