# What provider::gpu::pod_placement and pod_template return, for Terraform
# versions before 1.8.
data "gpu_pod_placement" "ray_worker" {
  cloud = "aks"
  gpu = {
    accelerator = "a100-80gb"
    count       = 1
    spot        = true
  }
  container = {
    name  = "ray-worker"
    image = "rayproject/ray-ml:2.9.0-gpu"
  }
}

# data.gpu_pod_placement.ray_worker.placement.nodeSelector, .affinity,
# .tolerations and .resources go into a RayCluster's workerGroupSpecs;
# data.gpu_pod_placement.ray_worker.pod_template is a whole template.
output "worker_template" {
  value = data.gpu_pod_placement.ray_worker.pod_template
}
