# A workload applied by gpu_workload is imported by <namespace>/<name>.
terraform import gpu_workload.inference ml/llm-inference

# A GPU Deployment, StatefulSet, CronJob or Indexed Job (with its headless
# Service) written by hand is adopted the same way; with an import block, Terraform also writes its configuration:
#   import {
#     to = gpu_workload.inference
#     id = "ml/llm-inference"
#   }
#   terraform plan -generate-config-out=adopted.tf
