# A spot pool: AKS labels and taints spot nodes
# kubernetes.azure.com/scalesetpriority=spot itself; the aks output repeats
# both so that azurerm does not plan a replacement on every apply.
resource "gpu_node_pool_policy" "a100_spot" {
  name          = "gpua100spot"
  cloud         = "aks"
  accelerator   = "a100-80gb"
  gpus_per_node = 1
  spot          = true
}

resource "azurerm_kubernetes_cluster_node_pool" "a100_spot" {
  name                  = gpu_node_pool_policy.a100_spot.name
  kubernetes_cluster_id = azurerm_kubernetes_cluster.main.id
  vm_size               = gpu_node_pool_policy.a100_spot.aks.vm_size
  priority              = gpu_node_pool_policy.a100_spot.aks.priority # "Spot"
  eviction_policy       = "Delete"
  spot_max_price        = -1
  node_count            = 1
  node_labels           = gpu_node_pool_policy.a100_spot.aks.node_labels
  node_taints           = gpu_node_pool_policy.a100_spot.aks.node_taints
}

# spot = true is taken from the pool: the workload selects and tolerates
# the spot label and taint.
resource "gpu_workload" "batch" {
  name      = "batch-eval"
  namespace = "ml"
  kind      = "job"
  node_pool = gpu_node_pool_policy.a100_spot.ref
  image     = "registry.example/nvidia/pytorch:24.08-py3"

  gpu {
    count = 1
  }
}
