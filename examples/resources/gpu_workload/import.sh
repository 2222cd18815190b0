# A workload applied by gpu_workload is imported by <namespace>/<name>.
terraform import gpu_workload.inference ml/llm-inference
