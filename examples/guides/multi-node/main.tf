# A GKE A3 pool of reserved capacity whose nodes carry GKE's topology labels
# (block > sub-block > host). The topology block takes GKE's levels;
# nodes_per_domain is the pool's shape, which turns a job that cannot fit one
# domain into a plan error. The GKE node pool is named like the policy: the
# queue's flavor selects its nodes by cloud.google.com/gke-nodepool.
resource "gpu_node_pool_policy" "h100" {
  name          = "h100-tas-pool"
  cloud         = "gke"
  accelerator   = "h100-80gb"
  gpus_per_node = 8

  topology {
    nodes_per_domain = { block = 4, subblock = 2 }
  }
}

# The queue renders a Kueue Topology for the pool (named like its flavor)
# and sets the flavor's topologyName.
resource "gpu_queue" "training" {
  name       = "training"
  namespaces = ["training"]

  flavor {
    node_pool = gpu_node_pool_policy.h100.ref
    gpus      = 64
  }
}

# 4 pods of 8 GPUs, all in one block or not at all: Kueue admits the Job only
# when one block has 4 free nodes, and until then the apply reports it as
# queued with Kueue's reason.
resource "gpu_workload" "pretrain" {
  name      = "pretrain"
  namespace = "training"
  kind      = "job"
  node_pool = gpu_node_pool_policy.h100.ref
  queue     = gpu_queue.training.ref
  image     = "nvcr.io/nvidia/pytorch:24.08-py3"
  # A plain Job places its pods but gives them no rank or rendezvous
  # address: for torchrun use kind = "distributed_job" (examples/distributed).
  command = ["python", "preprocess.py"]

  gpu {
    count = 8
  }

  job {
    parallelism = 4
    completions = 4
  }

  topology {
    level = "block"
    mode  = "required"
  }
}

# 8 pods in one block if one has room (else spread), every pair of pods in
# one sub-block: Kueue's slices.
resource "gpu_workload" "finetune" {
  name      = "finetune"
  namespace = "training"
  kind      = "job"
  node_pool = gpu_node_pool_policy.h100.ref
  queue     = gpu_queue.training.ref
  image     = "nvcr.io/nvidia/pytorch:24.08-py3"

  gpu {
    count = 8
  }

  job {
    parallelism = 8
    completions = 8
  }

  topology {
    level       = "block"
    mode        = "preferred"
    slice_size  = 2
    slice_level = "subblock"
  }
}
