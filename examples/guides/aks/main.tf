# An AKS A100 pool described once: the node pool and a training Job on it
# take everything from the same gpu_node_pool_policy.
provider "gpu" {
  host                   = azurerm_kubernetes_cluster.main.kube_config[0].host
  client_certificate     = base64decode(azurerm_kubernetes_cluster.main.kube_config[0].client_certificate)
  client_key             = base64decode(azurerm_kubernetes_cluster.main.kube_config[0].client_key)
  cluster_ca_certificate = base64decode(azurerm_kubernetes_cluster.main.kube_config[0].cluster_ca_certificate)
}

resource "gpu_node_pool_policy" "a100" {
  name          = "gpua100"
  cloud         = "aks"
  accelerator   = "a100-80gb"
  gpus_per_node = 1
}

resource "azurerm_kubernetes_cluster_node_pool" "a100" {
  name                  = gpu_node_pool_policy.a100.name
  kubernetes_cluster_id = azurerm_kubernetes_cluster.main.id
  vm_size               = gpu_node_pool_policy.a100.aks.vm_size # Standard_NC24ads_A100_v4
  node_count            = 2
  priority              = gpu_node_pool_policy.a100.aks.priority
  node_labels           = gpu_node_pool_policy.a100.aks.node_labels
  node_taints           = gpu_node_pool_policy.a100.aks.node_taints # ["sku=gpu:NoSchedule"]
}

resource "gpu_workload" "training" {
  name      = "finetune"
  namespace = "ml"
  kind      = "job"
  node_pool = gpu_node_pool_policy.a100.ref
  image     = "registry.example/nvidia/pytorch:24.08-py3"
  command   = ["python", "train.py"]

  gpu {
    count = 1
  }

  depends_on = [azurerm_kubernetes_cluster_node_pool.a100]
}
