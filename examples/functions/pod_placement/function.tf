# The GPU part of a LeaderWorkerSet's worker pods (multi-node inference),
# placed with exactly the rules gpu_workload uses: node selector, affinity
# and tolerations for the pod, the GPU limit and driver environment for
# the container.
locals {
  gpu = provider::gpu::pod_placement("gke", {
    accelerator = "h100-80gb"
    count       = 8
  })
}

resource "kubernetes_manifest" "llm" {
  manifest = {
    apiVersion = "leaderworkerset.x-k8s.io/v1"
    kind       = "LeaderWorkerSet"
    metadata   = { name = "llm", namespace = "inference" }
    spec = {
      replicas = 2
      leaderWorkerTemplate = {
        size = 2
        workerTemplate = {
          spec = {
            nodeSelector = local.gpu.nodeSelector
            affinity     = local.gpu.affinity
            tolerations  = local.gpu.tolerations
            containers = [{
              name      = "vllm"
              image     = "vllm/vllm-openai:v0.6.0"
              resources = local.gpu.resources
              env       = local.gpu.env
            }]
          }
        }
      }
    }
  }
}
