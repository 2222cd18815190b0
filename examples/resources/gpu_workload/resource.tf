# One A100 on GKE: the provider adds the accelerator node selector, the
# toleration for GKE's nvidia.com/gpu taint, LD_LIBRARY_PATH for GKE's driver
# mount, and puts the GPU in limits with an equal request.
resource "gpu_workload" "inference" {
  name      = "llm-inference"
  namespace = "ml"
  cloud     = "gke"
  image     = "vllm/vllm-openai:v0.6.3"
  args      = ["--model", "/models/llama-3-8b"]
  ports     = [8000]
  replicas  = 2

  gpu {
    count       = 1
    accelerator = "a100-40gb"
  }

  shm_size = "16Gi"
  model_cache {
    claim_name = "model-weights"
    read_only  = true
  }
  startup_probe {
    http_path = "/health"
    port      = 8000
  }
}

# A 4-GPU training Job on an AKS V100 pool (Standard_NC24s_v3, 4 x V100 16GB)
# tainted sku=gpu:NoSchedule.
resource "gpu_workload" "training" {
  name      = "finetune"
  namespace = "ml"
  kind      = "job"
  cloud     = "aks"
  image     = "registry.example/nvidia/pytorch:24.08-py3"
  command   = ["torchrun", "--nproc-per-node=4", "train.py"]

  gpu {
    count       = 4
    accelerator = "v100-16gb"
  }
  size     = "medium"
  ipc_lock = true

  job {
    backoff_limit              = 2
    active_deadline_seconds    = 86400
    ttl_seconds_after_finished = 3600
  }
}

# One 2g.10gb MIG slice of an A100 on GKE.
resource "gpu_workload" "notebook" {
  name      = "notebook"
  namespace = "research"
  cloud     = "gke"
  image     = "jupyter/pytorch-notebook:latest"

  gpu {
    count       = 1
    accelerator = "a100-40gb"
    partition   = "2g.10gb"
  }
}

# GKE Autopilot provisions a node from the accelerator and count selectors.
resource "gpu_workload" "autopilot" {
  name      = "summarizer"
  namespace = "ml"
  cloud     = "gke-autopilot"
  image     = "registry.example/ml/summarizer:3.2"

  gpu {
    count       = 2
    accelerator = "l4"
  }
}

# EKS Auto Mode selects by eks.amazonaws.com/instance-gpu-name.
resource "gpu_workload" "eks_auto" {
  name      = "reranker"
  namespace = "ml"
  cloud     = "eks-auto"
  image     = "registry.example/ml/reranker:1.4"

  gpu {
    count       = 1
    accelerator = "l40s"
  }
}

# On-premises or any cluster labelled by NVIDIA GPU Feature Discovery: a T4
# shared by time-slicing (the device plugin's nvidia.com/gpu.shared).
resource "gpu_workload" "generic" {
  name      = "classifier"
  namespace = "ml"
  cloud     = "generic"
  image     = "registry.example/ml/classifier:0.9"

  gpu {
    count       = 1
    accelerator = "t4"
    sharing     = "time-slicing"
  }
}

# Karpenter spot capacity, preferring L40S and accepting L4.
resource "gpu_workload" "batch_embed" {
  name      = "embedder"
  namespace = "ml"
  cloud     = "karpenter"
  image     = "registry.example/ml/embedder:2.1"
  spot      = true

  gpu {
    count        = 1
    accelerators = ["l40s", "l4"]
  }
}

# Render only: the manifests go to a GitOps repository, no cluster needed.
resource "gpu_workload" "gitops" {
  name      = "batch-scorer"
  namespace = "ml"
  cloud     = "eks"
  image     = "registry.example/ml/scorer:1.0"
  apply     = false

  gpu {
    count       = 1
    accelerator = "a10g"
  }
}

output "gitops_manifest" {
  value = join("---\n", gpu_workload.gitops.manifests)
}

# An NGC image pulled with a dockerconfigjson Secret (image_pull_secrets),
# updated without dropping below the running replicas (update_strategy
# "surge": the pool needs a spare GPU during an update). Anything no
# attribute covers goes through `patch`, a strategic merge patch of the
# rendered Deployment: here a metrics sidecar and a restricted security
# context. The GPU placement cannot be undone through it.
resource "gpu_workload" "ngc_inference" {
  name               = "triton"
  namespace          = "inference"
  cloud              = "gke"
  image              = "nvcr.io/nvidia/tritonserver:24.08-py3"
  image_pull_secrets = ["ngc"]
  replicas           = 2
  update_strategy    = "surge"

  gpu {
    count       = 1
    accelerator = "l4"
  }

  patch = <<-EOT
    spec:
      template:
        spec:
          securityContext: {runAsNonRoot: true, runAsUser: 1000}
          containers:
            - name: metrics
              image: prom/statsd-exporter:v0.27.0
  EOT
}

# A StatefulSet of two inference replicas, each with its own model cache
# (a volume claim template: downloaded weights survive restarts, and the
# claims go away with the StatefulSet).
resource "gpu_workload" "sharded" {
  name      = "llm-shard"
  namespace = "inference"
  kind      = "statefulset"
  cloud     = "aks"
  image     = "vllm/vllm-openai:v0.6.0"
  replicas  = 2

  gpu {
    count       = 1
    accelerator = "a100-80gb"
  }

  model_cache {
    size          = "200Gi"
    storage_class = "managed-csi-premium"
  }
}

# A nightly evaluation on a schedule: the job block shapes every run, and
# Forbid keeps a slow run from doubling its GPU use.
resource "gpu_workload" "nightly_eval" {
  name      = "nightly-eval"
  namespace = "ml"
  kind      = "cronjob"
  cloud     = "karpenter"
  image     = "registry.example/ml/eval:3.2"

  gpu {
    count       = 1
    accelerator = "l4"
  }

  cronjob {
    schedule           = "0 3 * * *"
    time_zone          = "Europe/Berlin"
    concurrency_policy = "Forbid"
  }

  job {
    backoff_limit           = 1
    active_deadline_seconds = 14400
  }
}
