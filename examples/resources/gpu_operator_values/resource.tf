# FiftyOne Enterprise on GKE: an L4 delegated-operator runner (node selector,
# nvidia.com/gpu limit with an equal request, LD_LIBRARY_PATH for GKE's
# driver mount), the chart's CPU runner resized, and a spot GPU job template.
resource "gpu_operator_values" "fiftyone_gke" {
  target = "fiftyone"
  cloud  = "gke"

  fiftyone {
    deployment {
      key         = "gpuL4"
      replicas    = 2
      description = "GPU runner for model inference"
      cpu         = "8"
      memory      = "32Gi"
      env         = { FIFTYONE_MEDIA_CACHE_DIR = "/opt/media_cache" }

      gpu {
        count       = 1
        accelerator = "l4"
      }
    }

    # CPU-only: no gpu block. The chart's schema wants whole CPUs here.
    deployment {
      key     = "teamsDoCpuDefault"
      enabled = true
      cpu     = "4"
      memory  = "16Gi"
    }

    job_template {
      key                        = "gpuBatch"
      spot                       = true
      memory                     = "24Gi"
      backoff_limit              = 2
      ttl_seconds_after_finished = 3600

      gpu {
        count       = 1
        accelerator = "l4"
      }
    }
  }
}

# The same runner on an AKS T4 pool: tolerates sku=gpu:NoSchedule and
# selects the pool's VM sizes.
resource "gpu_operator_values" "fiftyone_aks" {
  target = "fiftyone"
  cloud  = "aks"

  fiftyone {
    deployment {
      key = "gpuT4"
      gpu {
        count       = 1
        accelerator = "t4"
      }
    }
  }
}

# On EKS the runner is placed on a node pool policy: it takes the pool's
# accelerator and tolerates its taints, like a gpu_workload with node_pool.
resource "gpu_node_pool_policy" "eks_a10g" {
  name          = "a10g"
  cloud         = "eks"
  accelerator   = "a10g"
  gpus_per_node = 4
}

resource "gpu_operator_values" "fiftyone_eks" {
  target = "fiftyone"

  fiftyone {
    deployment {
      key       = "gpuA10g"
      node_pool = gpu_node_pool_policy.eks_a10g.ref
      gpu {
        count = 1
      }
    }
  }
}

# flytepropeller's k8s plugin for flyte-core on GKE: GPU resource name,
# resource-tolerations in the list form every Flyte v1 release reads, device
# and partition labels; interruptible tasks go to spot nodes.
resource "gpu_operator_values" "flyte_core" {
  target = "flyte-core"
  cloud  = "gke"

  flyte {
    accelerators  = ["a100-40gb", "l4"]
    interruptible = true
  }
}

# flyte-binary of Flyte v2 on EKS: accelerator-devices and
# accelerator-device-classes under configuration.inline.
resource "gpu_operator_values" "flyte_binary" {
  target = "flyte-binary"
  cloud  = "eks"

  flyte {
    flyte_version = 2
    accelerators  = ["a10g"]
  }
}

# The GPU Operator for self-managed nodes with a time-sliced T4 pool: the
# pool's device plugin config becomes devicePlugin.config.data["t4-shared"],
# and the operands tolerate the pool's taints. The cloud follows the pool.
resource "gpu_node_pool_policy" "t4_shared" {
  name          = "t4-shared"
  cloud         = "generic"
  accelerator   = "t4"
  gpus_per_node = 1
  sharing       = "time-slicing"
  replicas      = 4
}

resource "gpu_operator_values" "gpu_operator" {
  target = "gpu-operator"

  gpu_operator {
    node_pools = [gpu_node_pool_policy.t4_shared.ref]
  }
}

# The standalone device plugin on AKS, merged over a values file of your
# own: generated values win, lists are replaced, other keys are kept.
resource "gpu_operator_values" "device_plugin" {
  target = "nvidia-device-plugin"
  cloud  = "aks"
  base_values_yaml = [yamlencode({
    priorityClassName = "system-node-critical"
  })]

  nvidia_device_plugin {}
}

# A minimal Numaflow Pipeline (generator -> GPU UDF -> log) with the UDF
# placed on an L4 on GKE; without manifest only the vertex fields come out.
resource "gpu_operator_values" "numaflow" {
  target = "numaflow"
  cloud  = "gke"

  numaflow {
    name      = "embeddings"
    namespace = "pipelines"
    image     = "registry.example/ml/embed-udf:1.0"
    manifest  = true
    cpu       = "2"
    memory    = "8Gi"

    gpu {
      count       = 1
      accelerator = "l4"
    }
  }
}

output "gpu_operator_device_plugin_config" {
  value = gpu_operator_values.gpu_operator.values.devicePlugin.config.name
}

# Installing the charts needs the helm provider (and local_file the local
# provider), which this example does not require:
#
# resource "helm_release" "fiftyone" {
#   name       = "fiftyone-teams-app"
#   repository = "https://helm.fiftyone.ai"
#   chart      = "fiftyone-teams-app"
#   namespace  = "fiftyone"
#   values     = [file("fiftyone-values.yaml"), gpu_operator_values.fiftyone_gke.values_yaml]
# }
#
# resource "helm_release" "gpu_operator" {
#   name       = "gpu-operator"
#   repository = var.nvidia_helm_repository
#   chart      = "gpu-operator"
#   namespace  = "gpu-operator"
#   values     = [gpu_operator_values.gpu_operator.values_yaml]
# }
#
# # For `helm upgrade --install flyte flyteorg/flyte-core -f flyte-gpu-values.yaml`:
# resource "local_file" "flyte_values" {
#   filename = "${path.module}/flyte-gpu-values.yaml"
#   content  = gpu_operator_values.flyte_core.values_yaml
# }
