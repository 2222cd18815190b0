package spec

// Queue is a gpu_queue: a Kueue ClusterQueue whose GPU quota is given per
// node pool, a ResourceFlavor per pool derived from the pool policy, and a
// LocalQueue in each team namespace. Field names map 1:1 to the gpu_queue
// attributes (snake_case in gpudiag paths). As elsewhere, zero values mean
// "unset OR unknown": queue.Validate skips rules that need them.
type Queue struct {
	Name  string `json:"name"`            // name: the ClusterQueue
	Cloud string `json:"cloud,omitempty"` // cloud: every pool must be on it; "" takes the first pool's
	// Namespaces get a LocalQueue each and are the only namespaces the
	// ClusterQueue admits from; empty admits from every namespace that has
	// a LocalQueue pointing at it.
	Namespaces []string `json:"namespaces,omitempty"` // namespaces
	// LocalQueueName names the LocalQueues; "" means Name.
	LocalQueueName   string          `json:"local_queue_name,omitempty"`  // local_queue_name
	Cohort           string          `json:"cohort,omitempty"`            // cohort
	QueueingStrategy string          `json:"queueing_strategy,omitempty"` // queueing_strategy; "" is BestEffortFIFO
	Preemption       QueuePreemption `json:"preemption"`                  // preemption
	Flavors          []QueueFlavor   `json:"flavor" tf:"flavor"`          // flavor blocks, one per pool
}

// QueuePreemption is the ClusterQueue's preemption policy; "" fields take
// Kueue's defaults (Never everywhere).
type QueuePreemption struct {
	WithinClusterQueue  string `json:"within_cluster_queue,omitempty"`  // within_cluster_queue
	ReclaimWithinCohort string `json:"reclaim_within_cohort,omitempty"` // reclaim_within_cohort
	BorrowWithinCohort  string `json:"borrow_within_cohort,omitempty"`  // borrow_within_cohort
}

// QueueFlavor is one node pool's share of the queue. The GPU quota is in
// the pool's own unit: exactly one of GPUs (whole-GPU pools), MIGInstances
// (partitioned pools) or SharedSlots (time-sliced or MPS pools), or none
// when Nodes is known (then the whole pool: Nodes x what a node offers).
type QueueFlavor struct {
	// Pool is the gpu_node_pool_policy's ref (attribute node_pool).
	Pool PoolPolicy `json:"pool,omitzero" tf:"node_pool"` // node_pool
	// NodePool is the pool id a queue-spec annotation written before 0.1.0
	// holds instead of Pool (the legacy format of formats.md); render
	// decodes it into Pool.
	NodePool string `json:"node_pool,omitempty" tf:"-"`
	// Nodes is the pool's size when known: quotas above what it holds are
	// refused, and a missing quota is the whole pool.
	Nodes        int64 `json:"nodes,omitempty"`         // nodes
	GPUs         int64 `json:"gpus,omitempty"`          // gpus
	MIGInstances int64 `json:"mig_instances,omitempty"` // mig_instances
	SharedSlots  int64 `json:"shared_slots,omitempty"`  // shared_slots
	// CPU and Memory are quotas (Kubernetes quantities); "" derives them
	// from the quota and the sizing preset made for the pool's machines.
	CPU    string `json:"cpu,omitempty"`    // cpu
	Memory string `json:"memory,omitempty"` // memory
	// BorrowingLimit and LendingLimit are in the GPU quota's unit; nil is
	// Kueue's "no limit". Both need a cohort.
	BorrowingLimit *int64 `json:"borrowing_limit,omitempty"` // borrowing_limit
	LendingLimit   *int64 `json:"lending_limit,omitempty"`   // lending_limit
	// The same limits for CPU and memory (Kubernetes quantities); ""
	// derives them from the GPU limits like the quotas (and leaves them
	// unlimited where the GPU limit is).
	CPUBorrowingLimit    string `json:"cpu_borrowing_limit,omitempty"`    // cpu_borrowing_limit
	MemoryBorrowingLimit string `json:"memory_borrowing_limit,omitempty"` // memory_borrowing_limit
	CPULendingLimit      string `json:"cpu_lending_limit,omitempty"`      // cpu_lending_limit
	MemoryLendingLimit   string `json:"memory_lending_limit,omitempty"`   // memory_lending_limit
}

// Queue schedulers a workload's queue can belong to. Kueue queues are
// created by gpu_queue; KAI Scheduler and Volcano queues are only named
// (their label or annotation and schedulerName are rendered).
const (
	QueueSchedulerKueue   = "kueue"
	QueueSchedulerKAI     = "kai"
	QueueSchedulerVolcano = "volcano"
)

// QueueSchedulerNames lists the accepted queue_scheduler values.
func QueueSchedulerNames() []string {
	return []string{QueueSchedulerKueue, QueueSchedulerKAI, QueueSchedulerVolcano}
}

// Kueue's queueing strategies (ClusterQueue spec.queueingStrategy).
const (
	QueueingBestEffortFIFO = "BestEffortFIFO"
	QueueingStrictFIFO     = "StrictFIFO"
)

// QueueingStrategyNames lists the accepted queueing_strategy values.
func QueueingStrategyNames() []string { return []string{QueueingBestEffortFIFO, QueueingStrictFIFO} }

// Kueue preemption policies, per field of ClusterQueue spec.preemption.
func WithinClusterQueuePolicyNames() []string {
	return []string{"Never", "LowerPriority", "LowerOrNewerEqualPriority"}
}

// ReclaimWithinCohortPolicyNames lists the accepted reclaim_within_cohort values.
func ReclaimWithinCohortPolicyNames() []string { return []string{"Never", "LowerPriority", "Any"} }

// BorrowWithinCohortPolicyNames lists the accepted borrow_within_cohort values.
func BorrowWithinCohortPolicyNames() []string { return []string{"Never", "LowerPriority"} }
