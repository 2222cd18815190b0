# The quickstart `make demo` applies to the local GPU cluster: one GPU
# workload per cloud convention, each landing on its cloud's simulated pool.
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

provider "gpu" {
  config_path = var.kubeconfig
}

# The GKE A100 pool, described once. Its outputs are what the cloud's node
# pool resource and every workload on it need; here it drives a workload.
resource "gpu_node_pool_policy" "gke_a100" {
  name          = "a100-pool"
  cloud         = "gke"
  accelerator   = "a100-40gb"
  gpus_per_node = 8
}

resource "gpu_workload" "gke_batch_on_pool" {
  name      = "gke-batch"
  namespace = var.namespace
  kind      = "job"
  node_pool = gpu_node_pool_policy.gke_a100.ref
  image     = "registry.example/nvidia/pytorch:24.08-py3"
  command   = ["python", "score.py"]

  gpu {
    count = 2
  }
}

resource "gpu_workload" "gke_inference" {
  name      = "gke-inference"
  namespace = var.namespace
  cloud     = "gke"
  image     = "vllm/vllm-openai:v0.6.3"

  gpu {
    count       = 1
    accelerator = "a100-40gb"
  }
  shm_size = "8Gi"
}

resource "gpu_workload" "aks_training" {
  name      = "aks-training"
  namespace = var.namespace
  kind      = "job"
  cloud     = "aks"
  image     = "registry.example/nvidia/pytorch:24.08-py3"
  command   = ["python", "train.py"]

  gpu {
    count       = 1
    accelerator = "a100-80gb"
  }
}

resource "gpu_workload" "eks_batch" {
  name      = "eks-batch"
  namespace = var.namespace
  cloud     = "eks"
  image     = "registry.example/ml/scorer:1.0"

  gpu {
    count       = 2
    accelerator = "a10g"
  }
}

# Helm values for the charts teams run, from the same pool: FiftyOne's GPU
# delegated operator, flytepropeller's GPU settings and the GPU Operator.
resource "gpu_operator_values" "fiftyone" {
  target = "fiftyone"

  fiftyone {
    deployment {
      key       = "gpuA100"
      node_pool = gpu_node_pool_policy.gke_a100.ref
      gpu {
        count = 1
      }
    }
  }
}

resource "gpu_operator_values" "flyte" {
  target = "flyte-core"

  flyte {
    node_pools = [gpu_node_pool_policy.gke_a100.ref]
  }
}

resource "gpu_operator_values" "gpu_operator" {
  target = "gpu-operator"

  gpu_operator {
    node_pools = [gpu_node_pool_policy.gke_a100.ref]
  }
}

output "helm_values" {
  description = "Values files for helm upgrade -f, by chart."
  value = {
    "fiftyone-teams-app" = gpu_operator_values.fiftyone.values_yaml
    "flyte-core"         = gpu_operator_values.flyte.values_yaml
    "gpu-operator"       = gpu_operator_values.gpu_operator.values_yaml
  }
}

output "gke_node_pool" {
  description = "What a google_container_node_pool for this pool takes."
  value       = gpu_node_pool_policy.gke_a100.gke
}

output "placements" {
  description = "Where each workload runs."
  value = {
    for w in [gpu_workload.gke_inference, gpu_workload.gke_batch_on_pool, gpu_workload.aks_training, gpu_workload.eks_batch] :
    w.name => { cloud = w.cloud, resource = w.resource_name, nodes = w.scheduled_nodes }
  }
}
