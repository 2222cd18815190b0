# A GKE A100 pool cut into 2g.10gb MIG partitions. Its outputs feed the
# google_container_node_pool (labels, taints, guest_accelerator) and every
# workload that runs there.
resource "gpu_node_pool_policy" "gke_a100_mig" {
  name          = "a100-mig"
  cloud         = "gke"
  accelerator   = "a100-40gb"
  gpus_per_node = 8
  partition     = "2g.10gb"
}

# An AKS V100 pool for training; node_labels/node_taints go straight into
# azurerm_kubernetes_cluster_node_pool.
resource "gpu_node_pool_policy" "aks_v100" {
  name          = "train-v100"
  cloud         = "aks"
  accelerator   = "v100-16gb"
  gpus_per_node = 4
  labels        = { team = "research" }
}

# A time-sliced T4 pool on self-managed nodes labelled by GPU Feature
# Discovery: the provider labels and taints the matching nodes and writes
# the device plugin config entry the GPU Operator reads.
resource "gpu_node_pool_policy" "shared_t4" {
  name          = "t4-shared"
  cloud         = "generic"
  accelerator   = "t4"
  gpus_per_node = 1
  sharing       = "time-slicing"
  replicas      = 4

  manage_nodes {
    selector = "node-role.example.com/inference=true"
  }

  device_plugin_config {
    namespace = "gpu-operator"
    name      = "device-plugin-config"
  }
}

# Karpenter on EKS: karpenter_node_pool is a complete NodePool manifest.
resource "gpu_node_pool_policy" "karpenter_l4" {
  name          = "l4-spot"
  cloud         = "karpenter"
  accelerator   = "l4"
  gpus_per_node = 4
  spot          = true
}

output "karpenter_node_pool" {
  value = gpu_node_pool_policy.karpenter_l4.karpenter_node_pool
}
