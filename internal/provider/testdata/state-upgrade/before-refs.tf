
resource "gpu_node_pool_policy" "a100" {
  name          = "a100"
  cloud         = "gke"
  accelerator   = "a100-40gb"
  gpus_per_node = 8
}

resource "gpu_node_pool_policy" "h100" {
  name          = "h100-tas"
  cloud         = "eks"
  accelerator   = "h100-80gb"
  gpus_per_node = 8
  dedicated     = false
  spot          = true
  labels        = { "example.com/team" = "ml" }
  taints = [
    { key = "example.com/gpu", value = "h100", effect = "NoSchedule" },
    { key = "example.com/spot", effect = "NoExecute" },
  ]
}

resource "gpu_node_pool_policy" "dra" {
  name           = "dra-h100"
  cloud          = "generic"
  accelerator    = "h100-80gb"
  gpus_per_node  = 8
  gpu_allocation = "dra"
  apply_device_class = false
}

resource "gpu_queue" "team" {
  name       = "team-a"
  namespaces = ["team-a"]
  apply      = false
  flavor {
    node_pool = gpu_node_pool_policy.a100.id
    gpus      = 16
  }
}

resource "gpu_workload" "queued" {
  name      = "train"
  namespace = "team-a"
  kind      = "job"
  node_pool = gpu_node_pool_policy.a100.id
  queue     = gpu_queue.team.id
  image     = "registry.example/train:1"
  apply     = false
  gpu {
    count = 8
  }
}

resource "gpu_workload" "named_queue" {
  name      = "serve"
  namespace = "team-b"
  node_pool = gpu_node_pool_policy.h100.id
  queue     = "elsewhere"
  image     = "registry.example/serve:1"
  apply     = false
  gpu {
    count = 1
  }
}

resource "gpu_workload" "no_pool" {
  name      = "plain"
  namespace = "team-b"
  cloud     = "gke"
  image     = "registry.example/plain:1"
  apply     = false
  gpu {
    count       = 1
    accelerator = "l4"
  }
}

resource "gpu_operator_values" "fiftyone" {
  target = "fiftyone"
  cloud  = "gke"
  fiftyone {
    deployment {
      key       = "gpuA100"
      node_pool = gpu_node_pool_policy.a100.id
      gpu {
        count = 1
      }
    }
  }
}

resource "gpu_operator_values" "operator" {
  target = "gpu-operator"
  cloud  = "eks"
  gpu_operator {
    node_pools = [gpu_node_pool_policy.h100.id]
  }
}
