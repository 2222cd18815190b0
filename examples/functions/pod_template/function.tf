# A whole GPU-correct pod template for a JobSet's replicated job, one
# function call: the container gets the GPU limit and the cloud's driver
# environment, the pod the cloud's node selector, affinity and tolerations.
resource "kubernetes_manifest" "training" {
  manifest = {
    apiVersion = "jobset.x-k8s.io/v1alpha2"
    kind       = "JobSet"
    metadata   = { name = "pretrain", namespace = "training" }
    spec = {
      replicatedJobs = [{
        name     = "workers"
        replicas = 4
        template = {
          spec = {
            parallelism = 1
            completions = 1
            template = provider::gpu::pod_template("eks", { accelerator = "h100-80gb", count = 8 }, {
              name    = "trainer"
              image   = "nvcr.io/nvidia/pytorch:24.08-py3"
              command = ["torchrun", "train.py"]
            })
          }
        }
      }]
    }
  }
}
