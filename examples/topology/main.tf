# The topology part of `make demo`: the local cluster's GKE pool with
# topology labels (h100-tas-pool: 2 blocks x 2 sub-blocks x 2 hosts of 8
# H100s), a queue over it, and a Job of 4 pods x 8 GPUs that Kueue admits
# only into one block.
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
  default = "gpu-demo-tas"
}

provider "gpu" {
  config_path = var.kubeconfig
}

resource "gpu_node_pool_policy" "h100" {
  name          = "h100-tas-pool" # the GKE node pool's name: the flavor selects its nodes by it
  cloud         = "gke"
  accelerator   = "h100-80gb"
  gpus_per_node = 8
  topology {
    nodes_per_domain = { block = 4, subblock = 2 }
  }
}

resource "gpu_queue" "training" {
  name       = "demo-training"
  namespaces = [var.namespace]
  flavor {
    node_pool = gpu_node_pool_policy.h100.ref
    gpus      = 64
  }
}

resource "gpu_workload" "pretrain" {
  name      = "pretrain"
  namespace = var.namespace
  kind      = "job"
  node_pool = gpu_node_pool_policy.h100.ref
  queue     = gpu_queue.training.ref
  image     = "nvcr.io/nvidia/pytorch:24.08-py3"
  wait_for  = "scheduled"
  # kwok keeps the pods running for the demo.
  pod_annotations = { "pod-complete.stage.kwok.x-k8s.io/delay" = "10m" }
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
