# Use a kubeconfig file and one of its contexts.
provider "gpu" {
  config_path    = "~/.kube/config"
  config_context = "gke_my-project_us-central1_ml"
  default_cloud  = "gke"
}

# Or connect with a host, a token and the cluster CA, for example from a
# cluster created in the same configuration. Planning resources contacts no
# cluster, so unknown values here are fine (the gpu_cluster_capacity and
# gpu_queue_usage data sources read the cluster when Terraform reads them).
provider "gpu" {
  alias                  = "eks"
  host                   = var.cluster_endpoint
  cluster_ca_certificate = base64decode(var.cluster_ca)
  default_cloud          = "eks"

  exec {
    api_version = "client.authentication.k8s.io/v1beta1"
    command     = "aws"
    args        = ["eks", "get-token", "--cluster-name", var.cluster_name]
  }
}

variable "cluster_endpoint" {
  type = string
}

variable "cluster_ca" {
  type = string
}

variable "cluster_name" {
  type = string
}
