# Two GKE pools shared by two teams through Kueue. Each pool becomes a
# ResourceFlavor (its node labels, taints and tolerations derived from the
# pool policy), each team a ClusterQueue with a LocalQueue in its namespace.
resource "gpu_node_pool_policy" "a100" {
  name          = "a100"
  cloud         = "gke"
  accelerator   = "a100-40gb"
  gpus_per_node = 8
}

resource "gpu_node_pool_policy" "a100_mig" {
  name          = "a100-mig"
  cloud         = "gke"
  accelerator   = "a100-40gb"
  gpus_per_node = 8
  partition     = "2g.10gb"
}

resource "gpu_queue" "research" {
  name       = "research"
  namespaces = ["research"]
  cohort     = "ml"

  # Whole A100s: 16 of the pool's GPUs, and up to 8 more borrowed from the
  # cohort when the other team does not use them.
  flavor {
    node_pool       = gpu_node_pool_policy.a100.ref
    gpus            = 16
    borrowing_limit = 8
  }

  # The partitioned pool is counted in MIG instances (3 per GPU here).
  flavor {
    node_pool     = gpu_node_pool_policy.a100_mig.ref
    mig_instances = 24
  }

  preemption {
    within_cluster_queue  = "LowerPriority"
    reclaim_within_cohort = "Any"
  }
}

resource "gpu_queue" "serving" {
  name       = "serving"
  namespaces = ["serving"]
  cohort     = "ml"

  flavor {
    node_pool = gpu_node_pool_policy.a100.ref
    gpus      = 8
  }
}

# A training Job in the research queue: checked at plan time against the
# queue's flavors and quota, suspended by Kueue until the quota is free.
resource "gpu_workload" "train" {
  name      = "train"
  namespace = "research"
  kind      = "job"
  node_pool = gpu_node_pool_policy.a100.ref
  queue     = gpu_queue.research.ref
  image     = "nvcr.io/nvidia/pytorch:24.08-py3"

  gpu {
    count = 8
  }
}
