# The queue part of `make demo`: two teams share the local cluster's GKE A100
# pool through Kueue. Team A's second training Job waits in its queue until
# the first finishes; team B's job runs at once from its own quota.
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

variable "teams" {
  type        = list(string)
  description = "Namespaces of the two teams (they must exist)."
  default     = ["team-a", "team-b"]
}

variable "run_for" {
  type        = string
  description = "How long the simulated training Jobs run (kwok keeps their pods running that long)."
  default     = "20s"
}

provider "gpu" {
  config_path = var.kubeconfig
}

# The pool, described once: Kueue's ResourceFlavor is derived from it. It is
# named like the GKE node pool (the local cluster's is "a100-pool"): the
# flavor selects the nodes by their cloud.google.com/gke-nodepool label.
resource "gpu_node_pool_policy" "a100" {
  name          = "a100-pool"
  cloud         = "gke"
  accelerator   = "a100-40gb"
  gpus_per_node = 8
}

# One queue per team with 8 of the pool's 16 GPUs each.
resource "gpu_queue" "team" {
  for_each = toset(var.teams)

  name       = each.key
  namespaces = [each.key]
  flavor {
    node_pool = gpu_node_pool_policy.a100.ref
    nodes     = 2
    gpus      = 8
  }
}

locals {
  team_a = var.teams[0]
  team_b = var.teams[1]
}

# Team A's first training run takes its whole quota...
resource "gpu_workload" "train_1" {
  name            = "train-1"
  namespace       = local.team_a
  kind            = "job"
  node_pool       = gpu_node_pool_policy.a100.ref
  queue           = gpu_queue.team[local.team_a].ref
  image           = "registry.example/nvidia/pytorch:24.08-py3"
  wait_for        = "admitted"
  pod_annotations = { "pod-complete.stage.kwok.x-k8s.io/delay" = var.run_for }
  gpu {
    count = 8
  }
}

# ...so the second waits in the queue: the apply ends with a warning giving
# Kueue's reason, and Kueue starts it when the first finishes.
resource "gpu_workload" "train_2" {
  name            = "train-2"
  namespace       = local.team_a
  kind            = "job"
  node_pool       = gpu_node_pool_policy.a100.ref
  queue           = gpu_queue.team[local.team_a].ref
  image           = "registry.example/nvidia/pytorch:24.08-py3"
  wait_for        = "admitted"
  pod_annotations = { "pod-complete.stage.kwok.x-k8s.io/delay" = var.run_for }
  gpu {
    count = 8
  }
  timeouts {
    create = "5s"
  }
  depends_on = [gpu_workload.train_1]
}

# Team B is not affected: its queue has its own quota.
resource "gpu_workload" "eval" {
  name      = "eval"
  namespace = local.team_b
  kind      = "job"
  node_pool = gpu_node_pool_policy.a100.ref
  queue     = gpu_queue.team[local.team_b].ref
  image     = "registry.example/nvidia/pytorch:24.08-py3"
  wait_for  = "admitted"
  gpu {
    count = 4
  }
}
