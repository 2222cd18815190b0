# GPUs through Dynamic Resource Allocation: a DRA pool, a workload on it, a
# queue over it, and a workload that asks by model without a pool.

# The pool's nodes run NVIDIA's DRA driver, not the device plugin. The pool
# applies its DeviceClass (device_class_name) to the cluster.
resource "gpu_node_pool_policy" "h100" {
  name           = "dra-h100"
  cloud          = "generic"
  accelerator    = "h100-80gb"
  gpus_per_node  = 8
  gpu_allocation = "dra"
}

# On a DRA pool a workload needs no dra block: its claim names the pool's
# class and asks for count devices, the shape Kueue counts.
resource "gpu_workload" "llm" {
  name      = "llm"
  namespace = "ml"
  node_pool = gpu_node_pool_policy.h100.ref
  image     = "vllm/vllm-openai:v0.6.3"
  gpu {
    count = 2
  }
}

# A quota of the pool's devices. Kueue counts them only when its own
# configuration maps the pool's class: kueue_device_class_mappings says what
# to add under resources.deviceClassMappings.
resource "gpu_queue" "research" {
  name       = "research"
  namespaces = ["research"]
  flavor {
    node_pool = gpu_node_pool_policy.h100.ref
    nodes     = 2
    gpus      = 16
  }
}

output "kueue_device_class_mappings" {
  value = gpu_queue.research.kueue_device_class_mappings
}

# Without a pool: the claim is derived from the intent. An H200 while one is
# free, else an H100 with at least 80Gi, both devices under one PCIe root.
resource "gpu_workload" "finetune" {
  name      = "finetune"
  namespace = "research"
  kind      = "job"
  cloud     = "generic"
  image     = "nvcr.io/nvidia/pytorch:24.08-py3"
  gpu {
    count        = 2
    accelerators = ["h200", "h100-80gb"]
    dra {
      min_memory = "79Gi"
      same       = "pcie-root"
    }
  }
}
