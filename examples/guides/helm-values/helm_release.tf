# Install the NVIDIA GPU Operator with values generated for the cluster's
# GPU pools: one device plugin config per shared or partitioned pool,
# operand tolerations for the pools' taints, driver switches for the cloud.
resource "gpu_node_pool_policy" "t4_shared" {
  name          = "t4-shared"
  cloud         = "generic"
  accelerator   = "t4"
  gpus_per_node = 1
  sharing       = "time-slicing"
  replicas      = 4
}

resource "gpu_node_pool_policy" "a100_mig" {
  name          = "a100-mig"
  cloud         = "generic"
  accelerator   = "a100-40gb"
  gpus_per_node = 8
  partition     = "all-1g.5gb"
  mig_strategy  = "mixed"
}

resource "gpu_operator_values" "gpu_operator" {
  target = "gpu-operator"

  # Your own values files, merged under the generated ones as
  # `helm install -f base.yaml -f generated.yaml` would merge them.
  base_values_yaml = [file("${path.module}/gpu-operator-base.yaml")]

  # The chart unpacked next to the configuration (`helm pull --untar`): the
  # merged values are checked against its values.schema.json files (here
  # the node-feature-discovery subchart's) at plan time.
  chart_path = "${path.module}/charts/gpu-operator"

  gpu_operator {
    node_pools = [
      gpu_node_pool_policy.t4_shared.ref,
      gpu_node_pool_policy.a100_mig.ref,
    ]
  }
}

resource "helm_release" "gpu_operator" {
  name             = "gpu-operator"
  namespace        = "gpu-operator"
  create_namespace = true
  chart            = "${path.module}/charts/gpu-operator"

  # The base values are already merged in: pass only the result.
  values = [gpu_operator_values.gpu_operator.values_yaml]
}
