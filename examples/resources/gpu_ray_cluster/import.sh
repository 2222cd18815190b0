# A RayCluster, RayJob or RayService applied by gpu_ray_cluster is imported
# by <namespace>/<name>.
terraform import gpu_ray_cluster.llm ml/llm

# One written by hand is adopted the same way: each group's name, replicas,
# image, CPU, memory, start parameters and nvidia.com/gpu count are read
# from the object; the node pools, MIG, sharing and DRA cannot be, and the
# import says so. With an import block, Terraform also writes its configuration:
#   import {
#     to = gpu_ray_cluster.llm
#     id = "ml/llm"
#   }
#   terraform plan -generate-config-out=adopted.tf
