# A GKE A100 pool described once: the node pool and the workloads on it
# take everything from the same gpu_node_pool_policy.
data "google_client_config" "default" {}

provider "gpu" {
  host                   = "https://${google_container_cluster.main.endpoint}"
  token                  = data.google_client_config.default.access_token
  cluster_ca_certificate = base64decode(google_container_cluster.main.master_auth[0].cluster_ca_certificate)
}

resource "gpu_node_pool_policy" "a100" {
  name          = "a100-pool"
  cloud         = "gke"
  accelerator   = "a100-40gb"
  gpus_per_node = 8
}

locals {
  a100 = gpu_node_pool_policy.a100.gke
}

resource "google_container_node_pool" "a100" {
  name       = gpu_node_pool_policy.a100.name
  cluster    = google_container_cluster.main.id
  node_count = 1

  node_config {
    machine_type = local.a100.machine_type # a2-highgpu-8g
    spot         = local.a100.spot
    labels       = local.a100.labels

    # Only the taints GKE does not add itself (GKE adds nvidia.com/gpu).
    dynamic "taint" {
      for_each = local.a100.taints
      content {
        key    = taint.value.key
        value  = taint.value.value
        effect = taint.value.effect
      }
    }

    guest_accelerator {
      type  = local.a100.guest_accelerator.type # nvidia-tesla-a100
      count = local.a100.guest_accelerator.count
      # "" for whole GPUs: leave the argument unset then.
      gpu_partition_size = local.a100.guest_accelerator.gpu_partition_size != "" ? local.a100.guest_accelerator.gpu_partition_size : null

      gpu_driver_installation_config {
        gpu_driver_version = local.a100.guest_accelerator.gpu_driver_version
      }

      dynamic "gpu_sharing_config" {
        for_each = local.a100.guest_accelerator.gpu_sharing_strategy != "" ? [local.a100.guest_accelerator] : []
        content {
          gpu_sharing_strategy       = gpu_sharing_config.value.gpu_sharing_strategy
          max_shared_clients_per_gpu = gpu_sharing_config.value.max_shared_clients_per_gpu
        }
      }
    }
  }
}

# Cloud, accelerator, selectors, tolerations and resource name come from the
# pool; only what the workload itself needs is written here.
resource "gpu_workload" "inference" {
  name      = "llm-inference"
  namespace = "ml"
  node_pool = gpu_node_pool_policy.a100.ref
  image     = "vllm/vllm-openai:v0.6.3"

  gpu {
    count = 1
  }

  # Apply once the nodes exist, instead of waiting for them in Pending.
  depends_on = [google_container_node_pool.a100]
}
