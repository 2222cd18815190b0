# A100 nodes cut by the GPU Operator's mig-manager into seven 1g.5gb
# instances per GPU, advertised as nvidia.com/mig-1g.5gb ("mixed").
resource "gpu_node_pool_policy" "a100_mig" {
  name          = "a100-mig"
  cloud         = "generic"
  accelerator   = "a100-40gb"
  gpus_per_node = 8
  partition     = "all-1g.5gb" # the mig-manager layout (nvidia.com/mig.config)
  mig_strategy  = "mixed"

  manage_nodes {
    selector = "node-role.example.com/mig=true"
  }

  device_plugin_config {
    namespace = "gpu-operator"
    name      = "device-plugin-config"
  }
}

resource "gpu_workload" "notebook" {
  name      = "notebook"
  namespace = "research"
  node_pool = gpu_node_pool_policy.a100_mig.ref
  image     = "jupyter/pytorch-notebook:latest"

  gpu {
    count = 1 # one 1g.5gb instance
  }
}

output "drift" {
  description = "What the last refresh found changed on the nodes (repaired by the next apply)."
  value       = concat(gpu_node_pool_policy.t4_shared.drift, gpu_node_pool_policy.a100_mig.drift)
}
