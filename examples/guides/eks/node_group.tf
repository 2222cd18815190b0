# EKS managed node group of g5.12xlarge (4 x A10G).
provider "gpu" {
  host                   = aws_eks_cluster.main.endpoint
  cluster_ca_certificate = base64decode(aws_eks_cluster.main.certificate_authority[0].data)

  exec {
    api_version = "client.authentication.k8s.io/v1beta1"
    command     = "aws"
    args        = ["eks", "get-token", "--cluster-name", aws_eks_cluster.main.name]
  }
}

resource "gpu_node_pool_policy" "a10g" {
  name          = "gpu-g5"
  cloud         = "eks"
  accelerator   = "a10g"
  gpus_per_node = 4
}

resource "aws_eks_node_group" "a10g" {
  cluster_name    = aws_eks_cluster.main.name
  node_group_name = gpu_node_pool_policy.a10g.name
  node_role_arn   = aws_iam_role.node.arn
  subnet_ids      = var.private_subnet_ids
  instance_types  = gpu_node_pool_policy.a10g.eks.instance_types # ["g5.12xlarge", "g5.24xlarge"]
  capacity_type   = gpu_node_pool_policy.a10g.eks.capacity_type
  ami_type        = gpu_node_pool_policy.a10g.eks.ami_type # AL2023_x86_64_NVIDIA
  # k8s.amazonaws.com/accelerator = "nvidia-a10g": nobody else sets it.
  labels = gpu_node_pool_policy.a10g.eks.labels

  dynamic "taint" {
    for_each = gpu_node_pool_policy.a10g.eks.taints # nvidia.com/gpu=true, NO_SCHEDULE
    content {
      key    = taint.value.key
      value  = taint.value.value
      effect = taint.value.effect
    }
  }

  scaling_config {
    desired_size = 1
    min_size     = 0
    max_size     = 4
  }
}

resource "gpu_workload" "scorer" {
  name      = "scorer"
  namespace = "ml"
  node_pool = gpu_node_pool_policy.a10g.ref
  image     = "registry.example/ml/scorer:1.0"

  gpu {
    count = 2
  }

  depends_on = [aws_eks_node_group.a10g]
}
