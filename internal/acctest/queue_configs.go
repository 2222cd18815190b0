package acctest

import "fmt"

// Plan-time queue configurations shared by the gpu_queue tests and the
// provider's plan-shape tests: no cluster, apply = false everywhere.

// QueuePools is two GKE pools (whole A100s and A100s cut into 2g.10gb) and
// a third on EKS, for the plan-time queue tests.
const QueuePools = `
resource "gpu_node_pool_policy" "a100" {
  name          = "a100"
  cloud         = "gke"
  accelerator   = "a100-40gb"
  gpus_per_node = 8
}

resource "gpu_node_pool_policy" "a100_mig" {
  name          = "a100-mig"
  cloud         = "gke"
  accelerator   = "a100-40gb"
  gpus_per_node = 8
  partition     = "2g.10gb"
}

resource "gpu_node_pool_policy" "eks" {
  name          = "eks-a100"
  cloud         = "eks"
  accelerator   = "a100-40gb"
  gpus_per_node = 8
}

resource "gpu_node_pool_policy" "h100" {
  name          = "h100"
  cloud         = "gke"
  accelerator   = "h100-80gb"
  gpus_per_node = 8
}
`

// RenderOnlyQueue is a gpu_queue with apply = false and the given flavor
// blocks and extra attributes.
func RenderOnlyQueue(body string) string {
	return QueuePools + fmt.Sprintf(`
resource "gpu_queue" "q" {
  name       = "team-a"
  namespaces = ["team-a"]
  apply      = false
  %s
}
`, body)
}

// QueuedJob is a render-only Job in RenderOnlyQueue's queue, on pool (one of
// QueuePools' resource names) with count GPUs per pod.
func QueuedJob(pool string, count int, extra string) string {
	return fmt.Sprintf(`
resource "gpu_workload" "w" {
  name      = "train"
  namespace = "team-a"
  kind      = "job"
  node_pool = gpu_node_pool_policy.%s.ref
  queue     = gpu_queue.q.ref
  image     = "registry.example/train:1"
  apply     = false
  gpu {
    count = %d
  }
  %s
}
`, pool, count, extra)
}
