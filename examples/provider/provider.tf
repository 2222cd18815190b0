# Getting started: a GPU pool described once and a workload that takes one
# of its GPUs. Terraform 1.8 or later: the provider's functions need it.
terraform {
  required_version = ">= 1.8"

  required_providers {
    gpu = {
      source  = "gpuform/gpu"
      version = "~> 0.1"
    }
  }
}

# Connects like the Kubernetes provider: here the current context of a
# kubeconfig file (add config_context to pick another).
provider "gpu" {
  config_path = "~/.kube/config"
}

# A GKE node pool named a100-pool of A100 40GB machines with 8 GPUs each.
resource "gpu_node_pool_policy" "a100" {
  name          = "a100-pool"
  cloud         = "gke"
  accelerator   = "a100-40gb"
  gpus_per_node = 8
}

# A Deployment with one GPU of that pool: node selector, tolerations and the
# nvidia.com/gpu limit and request come from the pool. The apply waits until
# it runs, or fails with the scheduler's reason.
resource "gpu_workload" "inference" {
  name      = "llm-inference"
  namespace = "default"
  node_pool = gpu_node_pool_policy.a100.ref
  image     = "vllm/vllm-openai:v0.6.3"

  gpu {
    count = 1
  }
}
