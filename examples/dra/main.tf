# The DRA part of `make demo`: a pool whose nodes hand out GPUs through
# NVIDIA's DRA driver (the local cluster's dra-h100 nodes publish their
# ResourceSlices), and a workload on it whose claim the real scheduler
# allocates two H100s of one node.
terraform {
  required_providers {
    gpu = {
      source = "gpuform/gpu"
    }
  }
}

variable "kubeconfig" {
  type        = string
  description = "Kubeconfig of the cluster to deploy to."
}

variable "namespace" {
  type    = string
  default = "gpu-demo"
}

variable "pool_name" {
  type        = string
  default     = "demo-dra-h100"
  description = "The pool's name; its DeviceClass is <name>.gpu.gpuform.io, cluster-wide."
}

provider "gpu" {
  config_path = var.kubeconfig
}

resource "gpu_node_pool_policy" "h100" {
  name           = var.pool_name
  cloud          = "generic"
  accelerator    = "h100-80gb"
  gpus_per_node  = 8
  gpu_allocation = "dra"
}

resource "gpu_workload" "llm" {
  name      = "llm-dra"
  namespace = var.namespace
  node_pool = gpu_node_pool_policy.h100.ref
  image     = "vllm/vllm-openai:v0.6.3"
  gpu {
    count = 2
  }
}

output "device_class" {
  value = gpu_node_pool_policy.h100.device_class_name
}

output "scheduled_nodes" {
  value = gpu_workload.llm.scheduled_nodes
}
