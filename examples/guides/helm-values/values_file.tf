# FiftyOne Enterprise delegated operators on a GKE L4 pool, written to a
# values file for a Helm run outside Terraform (a CI job, Argo CD, ...).
resource "gpu_node_pool_policy" "l4" {
  name          = "l4-pool"
  cloud         = "gke"
  accelerator   = "l4"
  gpus_per_node = 1
}

resource "gpu_operator_values" "fiftyone" {
  target           = "fiftyone"
  base_values_yaml = [file("${path.module}/fiftyone-values.yaml")]
  chart_path       = "${path.module}/charts/fiftyone-teams-app"

  fiftyone {
    deployment {
      key       = "gpuL4"
      node_pool = gpu_node_pool_policy.l4.ref
      size      = "small"
      gpu {
        count = 1
      }
    }
  }
}

# helm upgrade --install fiftyone ./charts/fiftyone-teams-app \
#   --namespace fiftyone -f generated/fiftyone-values.yaml
resource "local_file" "fiftyone_values" {
  filename        = "${path.module}/generated/fiftyone-values.yaml"
  content         = gpu_operator_values.fiftyone.values_yaml
  file_permission = "0644"
}

# Single values are at hand too: here the GPU runner's entry.
output "fiftyone_gpu_runner" {
  value = gpu_operator_values.fiftyone.values.delegatedOperatorDeployments.deployments.gpuL4
}

# Without the local provider: terraform output -raw fiftyone_values > fiftyone-values.yaml
output "fiftyone_values" {
  value = gpu_operator_values.fiftyone.values_yaml
}
