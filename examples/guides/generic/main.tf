# Self-managed nodes (on-premises, or any cluster running the NVIDIA GPU
# Operator): the policy labels and taints the nodes itself and writes the
# device plugin configuration they need.
provider "gpu" {
  config_path    = "~/.kube/config"
  config_context = "onprem"
}

# Four pods share each T4 by time-slicing.
resource "gpu_node_pool_policy" "t4_shared" {
  name          = "t4-shared"
  cloud         = "generic"
  accelerator   = "t4"
  gpus_per_node = 1
  sharing       = "time-slicing"
  replicas      = 4

  # Label and taint the nodes this selector matches, now and on every apply.
  manage_nodes {
    selector = "node-role.example.com/inference=true"
  }

  # The "t4-shared" key of the ConfigMap the GPU Operator's device plugin
  # reads (devicePlugin.config.name = "device-plugin-config").
  device_plugin_config {
    namespace = "gpu-operator"
    name      = "device-plugin-config"
  }
}

# Each replica takes one nvidia.com/gpu.shared slot. Referencing the policy
# also orders the apply: the nodes are labelled before the workload lands.
resource "gpu_workload" "classifier" {
  name      = "classifier"
  namespace = "ml"
  node_pool = gpu_node_pool_policy.t4_shared.ref
  image     = "registry.example/ml/classifier:0.9"
  replicas  = 4

  gpu {
    count = 1
  }
}
