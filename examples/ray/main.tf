# A Ray cluster for training and serving on EKS: a CPU head, a worker group
# of 8-GPU A100 pods on the p4d node group and one of single-A10G pods on
# the g5 node group. Each group is placed like a gpu_workload on its pool,
# and Ray is told the GPUs each pod gets (num-gpus, and the accelerator
# type as a Ray label), so Ray's scheduler and Kubernetes agree.
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
  type        = string
  description = "Namespace of the Ray cluster (it must exist)."
  default     = "ray"
}

provider "gpu" {
  config_path = var.kubeconfig
}

# The EKS managed node groups, named like the node groups (a queue's flavor
# would select their nodes by eks.amazonaws.com/nodegroup).
resource "gpu_node_pool_policy" "p4d" {
  name          = "gpu-p4d-spot"
  cloud         = "eks"
  accelerator   = "a100-40gb"
  gpus_per_node = 8
  spot          = true
}

resource "gpu_node_pool_policy" "g5" {
  name          = "gpu-g5"
  cloud         = "eks"
  accelerator   = "a10g"
  gpus_per_node = 4
}

resource "gpu_ray_cluster" "llm" {
  name      = "llm"
  namespace = var.namespace
  cloud     = "eks"
  image     = "rayproject/ray:2.52.0-gpu"

  # No gpu block: the head gets num-gpus 0 and cannot see a node's GPUs.
  head {
    cpu    = "2"
    memory = "8Gi"
  }

  worker_group {
    name      = "train"
    node_pool = gpu_node_pool_policy.p4d.ref
    replicas  = 1
    cpu       = "8"
    memory    = "64Gi"
    gpu {
      count = 8
    }
  }

  worker_group {
    name      = "serve"
    node_pool = gpu_node_pool_policy.g5.ref
    replicas  = 2
    cpu       = "2"
    memory    = "8Gi"
    gpu {
      count = 1
    }
  }
}

output "num_gpus" {
  description = "What Ray is told each group's pods have."
  value       = gpu_ray_cluster.llm.num_gpus
}
