# One A100 pool shared by two teams. Each team has a queue with a quota of
# the pool's GPUs; queues of one cohort lend each other what they do not use.
# The GKE node pool is named like the policy (name = gpu_node_pool_policy.a100.name
# on the google_container_node_pool): the queues' flavor selects its nodes by
# their cloud.google.com/gke-nodepool label.
resource "gpu_node_pool_policy" "a100" {
  name          = "a100"
  cloud         = "gke"
  accelerator   = "a100-40gb"
  gpus_per_node = 8
}

locals {
  teams = {
    research = { gpus = 12, borrow = 4 }
    serving  = { gpus = 4, borrow = 0 }
  }
}

resource "gpu_queue" "team" {
  for_each = local.teams

  name       = each.key
  namespaces = [each.key]
  cohort     = "a100-fleet"

  flavor {
    node_pool       = gpu_node_pool_policy.a100.ref
    nodes           = 2 # the pool's size: quotas above 16 GPUs are refused
    gpus            = each.value.gpus
    borrowing_limit = each.value.borrow
  }

  preemption {
    reclaim_within_cohort = "Any"
    within_cluster_queue  = "LowerPriority"
  }
}

# A training Job of the research team. The plan checks that the queue has a
# flavor of this pool and that 8 GPUs fit its quota plus what it may borrow;
# Kueue suspends the Job until they are free.
resource "gpu_workload" "finetune" {
  name      = "finetune"
  namespace = "research"
  kind      = "job"
  node_pool = gpu_node_pool_policy.a100.ref
  queue     = gpu_queue.team["research"].ref
  wait_for  = "admitted" # return once Kueue admits it; the Job then runs on its own
  image     = "nvcr.io/nvidia/pytorch:24.08-py3"

  gpu {
    count = 8
  }
}
