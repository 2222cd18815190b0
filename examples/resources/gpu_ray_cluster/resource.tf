# A CPU head and two GPU worker groups, each on its own EKS node group: 2
# pods of 8 H100s for training and 3 pods of one L4 for serving. The
# provider writes each group's selectors, tolerations and GPU limits as
# gpu_workload does, and tells Ray the GPUs each pod gets (num-gpus, and the
# accelerator type as a Ray label).
resource "gpu_node_pool_policy" "h100" {
  name          = "p5"
  cloud         = "eks"
  accelerator   = "h100-80gb"
  gpus_per_node = 8
  machine_type  = "p5.48xlarge"
}

resource "gpu_node_pool_policy" "l4" {
  name          = "g6"
  cloud         = "eks"
  accelerator   = "l4"
  gpus_per_node = 1
}

resource "gpu_ray_cluster" "llm" {
  name        = "llm"
  namespace   = "ml"
  cloud       = "eks"
  image       = "rayproject/ray:2.52.0-gpu"
  ray_version = "2.52.0"

  head {
    cpu    = "4"
    memory = "16Gi"
    ray_start_params = {
      dashboard-host = "0.0.0.0"
    }
  }

  worker_group {
    name      = "train"
    node_pool = gpu_node_pool_policy.h100.ref
    replicas  = 2
    gpu {
      count = 8
    }
  }

  worker_group {
    name      = "serve"
    node_pool = gpu_node_pool_policy.l4.ref
    replicas  = 3
    gpu {
      count = 1
    }
  }
}

# The same cluster as a RayJob: KubeRay starts the cluster, runs the
# entrypoint and deletes the cluster when the job ends.
resource "gpu_ray_cluster" "finetune" {
  name      = "finetune"
  namespace = "ml"
  cloud     = "eks"
  image     = "rayproject/ray:2.52.0-gpu"

  worker_group {
    name      = "train"
    node_pool = gpu_node_pool_policy.h100.ref
    replicas  = 1
    gpu {
      count = 8
    }
  }

  job {
    entrypoint       = "python finetune.py"
    runtime_env_yaml = "pip: [torch]"
  }
  wait_for = "complete"
}
