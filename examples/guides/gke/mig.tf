# The same A100s cut into 2g.10gb MIG partitions: GKE labels the nodes
# cloud.google.com/gke-gpu-partition-size=2g.10gb and advertises every
# partition as nvidia.com/gpu (3 per GPU, 24 per node).
resource "gpu_node_pool_policy" "a100_mig" {
  name          = "a100-mig"
  cloud         = "gke"
  accelerator   = "a100-40gb"
  gpus_per_node = 8
  partition     = "2g.10gb"
}

# One partition per pod. A gpu_workload asking this pool for whole GPUs
# (or another partition) fails the plan, and a whole-GPU workload on
# gpu_node_pool_policy.a100 can never land on these nodes.
resource "gpu_workload" "notebook" {
  name      = "notebook"
  namespace = "research"
  node_pool = gpu_node_pool_policy.a100_mig.ref
  image     = "jupyter/pytorch-notebook:latest"

  gpu {
    count = 1
  }
}
