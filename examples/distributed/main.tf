# A multi-node training job that forms: 4 pods of 8 H100s on an EKS p5 node
# group, one torchrun job. kind = "distributed_job" renders an Indexed Job and
# a headless Service; each pod learns its node rank and pod 0's address from
# the PET_* variables, so the command is plain `torchrun train.py`. In the
# Kueue queue the 4 pods are admitted together, in one network block.
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
  description = "Namespace of the training job (it must exist)."
  default     = "training"
}

provider "gpu" {
  config_path = var.kubeconfig
}

# The EKS managed node group of p5.48xlarge instances, named like the node
# group (the queue's flavor selects its nodes by eks.amazonaws.com/nodegroup).
# topology {} takes AWS's network layers from the nodes' labels.
resource "gpu_node_pool_policy" "p5" {
  name          = "gpu-p5-tas"
  cloud         = "eks"
  accelerator   = "h100-80gb"
  gpus_per_node = 8

  topology {}
}

resource "gpu_queue" "training" {
  name       = "training-${var.namespace}"
  namespaces = [var.namespace]

  flavor {
    node_pool = gpu_node_pool_policy.p5.ref
    gpus      = 32
  }
}

resource "gpu_workload" "pretrain" {
  name      = "pretrain"
  namespace = var.namespace
  kind      = "distributed_job"
  node_pool = gpu_node_pool_policy.p5.ref
  queue     = gpu_queue.training.ref
  image     = "nvcr.io/nvidia/pytorch:24.08-py3"
  # torchrun reads --nnodes, --nproc-per-node, --node-rank, --master-addr and
  # --master-port from the PET_* variables the pods get.
  command = ["torchrun", "train.py"]
  # Return once the pods run; a training run outlives any apply.
  wait_for = "scheduled"

  gpu {
    count = 8
  }

  distributed {
    nodes = 4
  }

  # Every pod under one layer-1 network node of the AWS topology.
  topology {
    level = "layer-1"
  }
}

output "master_address" {
  description = "Pod 0's stable name, where torchrun's rendezvous meets."
  value       = "pretrain-0.pretrain.${var.namespace}.svc"
}
