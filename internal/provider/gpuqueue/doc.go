// Package gpuqueue is the gpu_queue resource (Kueue ResourceFlavors,
// ClusterQueue and LocalQueues derived from the pools) and the
// gpu_queue_usage data source that reads a queue's admitted and pending work.
package gpuqueue
