# Render mode: no cluster is contacted. The manifests go to a GitOps
# repository (Argo CD, Flux) instead of being applied.
resource "gpu_node_pool_policy" "a100" {
  name          = "a100"
  cloud         = "gke"
  accelerator   = "a100-40gb"
  gpus_per_node = 8
}

resource "gpu_queue" "research" {
  name       = "research"
  namespaces = ["research"]
  apply      = false

  flavor {
    node_pool = gpu_node_pool_policy.a100.ref
    gpus      = 8
  }
}

resource "gpu_workload" "finetune" {
  name      = "finetune"
  namespace = "research"
  kind      = "job"
  node_pool = gpu_node_pool_policy.a100.ref
  queue     = gpu_queue.research.ref
  image     = "nvcr.io/nvidia/pytorch:24.08-py3"
  apply     = false

  gpu {
    count = 8
  }
}

# Write these to the GitOps repository (for example with the local
# provider's local_file, or `terraform output -raw`).
output "queue_manifest" {
  value = join("---\n", gpu_queue.research.manifests)
}

output "finetune_manifest" {
  value = join("---\n", gpu_workload.finetune.manifests)
}
