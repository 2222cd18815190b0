# Karpenter (or EKS Auto Mode with cloud = "eks-auto"): the policy renders a
# complete NodePool whose requirements are exactly the labels its workloads
# select, so Karpenter launches only nodes those pods can use.
resource "gpu_node_pool_policy" "l4_spot" {
  name          = "l4-spot"
  cloud         = "karpenter"
  accelerator   = "l4"
  gpus_per_node = 4
  spot          = true
}

# kubernetes_manifest reads the cluster while planning: the Karpenter CRDs
# must already be installed.
resource "kubernetes_manifest" "l4_spot" {
  manifest = yamldecode(gpu_node_pool_policy.l4_spot.karpenter_node_pool)
}

resource "gpu_workload" "embedder" {
  name      = "embedder"
  namespace = "ml"
  node_pool = gpu_node_pool_policy.l4_spot.ref
  image     = "registry.example/ml/embedder:2.1"

  gpu {
    count = 1
  }

  # Karpenter launches a node for the pending pod; give it time.
  timeouts {
    create = "30m"
  }

  depends_on = [kubernetes_manifest.l4_spot]
}
