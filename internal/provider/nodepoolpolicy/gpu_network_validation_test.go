package nodepoolpolicy_test

import (
	"fmt"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// Plan-time validation of the pool's machine type and GPU network (issue
// #42, docs/design/gpu-networks.md), with no cluster configured: each rule
// fails the plan on the line that caused it and says what is allowed.
func TestGPUNetwork_planTimeValidation(t *testing.T) {
	const h100x8 = "accelerator = \"h100-80gb\"\n  gpus_per_node = 8\n  "
	cases := map[string]poolRule{
		"machine type of another model": {body: `cloud = "gke"
  ` + h100x8 + `machine_type = "a3-ultragpu-8g"`,
			want: acctest.Phrases(`Machine type not in the pool`, `machine_type = "a3-ultragpu-8g"`, `Allowed: "a3-highgpu-8g", "a3-megagpu-8g"`)},
		"machine type no cloud names": {body: `cloud = "gke"
  ` + h100x8 + `machine_type = "a3-megagpu-16g"`,
			want: acctest.Phrases(`Invalid Attribute Value Match`, `machine_type = "a3-megagpu-16g"`, `must be one of`)},
		"machine type on generic": {body: `cloud = "generic"
  ` + h100x8 + `machine_type = "p5.48xlarge"`,
			want: acctest.Phrases(`No machine types known here`, `machine_type = "p5.48xlarge"`, `Allowed: remove machine_type`)},
		"network on a machine without one": {body: `cloud = "eks"
  accelerator   = "a10g"
  gpus_per_node = 8
  gpu_network {
    enabled = true
  }`,
			want: acctest.Phrases(`The machine type has no GPU network`, `enabled = true`, `Allowed: remove gpu_network`)},
		"network whose device count is not known": {body: `cloud = "eks"
  accelerator   = "b300"
  gpus_per_node = 8
  gpu_network {
    enabled = true
  }`,
			want: acctest.Phrases(`The GPU network cannot be given`, `enabled = true`, `efa device count is not known`, `Allowed: remove enabled = true`)},
		"rdma resource on eks": {body: `cloud = "eks"
  ` + h100x8 + `gpu_network {
    rdma_resource = "rdma/ib"
  }`,
			want: acctest.Phrases(`No RDMA resource on eks`, `rdma_resource = "rdma/ib"`, `Allowed: remove rdma_resource`)},
		"rdma devices matching no NIC count": {body: `cloud = "aks"
  ` + h100x8 + `gpu_network {
    rdma_devices = 3
  }`,
			want: acctest.Phrases(`RDMA devices do not match the NICs`, `rdma_devices = 3`, `Allowed: 8 (one per NIC`)},
		"generic network without its resource": {body: `cloud = "generic"
  ` + h100x8 + `gpu_network {
    enabled = true
  }`,
			want: acctest.Phrases(`Name the RDMA resource`, `gpu_network {`, `Allowed: e.g. "rdma/rdma_shared_device_a"`)},
		"rdma resource that is no resource name": {body: `cloud = "aks"
  ` + h100x8 + `gpu_network {
    rdma_resource = "ib"
  }`,
			want: acctest.Phrases(`rdma_resource = "ib"`, `must be an extended resource name`)},
	}
	acctest.ClearClusterEnv(t)
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			planFails(t, fmt.Sprintf("resource \"gpu_node_pool_policy\" \"bad\" {\n  name = \"pool\"\n  %s\n}\n", c.body), c.want)
		})
	}
}

// A workload on a network pool whose GPUs match no NIC share fails the
// plan at gpu.count: A3 Mega's NICs attach to one pod per machine.
func TestGPUNetwork_workloadCountValidation(t *testing.T) {
	acctest.ClearClusterEnv(t)
	planFails(t, `
resource "gpu_node_pool_policy" "p" {
  name          = "a3mega"
  cloud         = "gke"
  accelerator   = "h100-80gb"
  gpus_per_node = 8
  machine_type  = "a3-megagpu-8g"
}

resource "gpu_workload" "w" {
  name      = "w"
  namespace = "default"
  kind      = "job"
  node_pool = gpu_node_pool_policy.p.ref
  image     = "registry.invalid/cuda:12"
  job {
    parallelism = 2
  }
  gpu {
    count = 4
  }
}
`, acctest.Phrases(`GPUs do not match the pool's GPU network`, `count = 4`, `Allowed: gpu.count = 8`))
}
