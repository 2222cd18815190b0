// Package queue decides gpu_queue: the Kueue objects that share GPU node
// pools between teams (a ResourceFlavor per pool, derived from the pool
// policy and never retyped; one ClusterQueue with the GPU quota of each pool
// in the pool's own extended resource; a LocalQueue per team namespace), the
// queue reference a gpu_workload carries, and the plan-time check that a
// workload's GPUs are covered by one of the queue's flavors and fit its
// quota. It also holds the queue label or annotation and schedulerName of
// the other queue systems (KAI Scheduler, Volcano), rendered from their
// documentation. The facts come from docs/design/queues.md.
package queue
