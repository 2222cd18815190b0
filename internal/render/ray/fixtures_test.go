package ray

import (
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// Pools of the fixtures: an EKS p5 node group (8 H100s, EFA), an EKS L4
// node group, a generic cluster's A100 pool cut into 1g.10gb instances
// under the mixed strategy, and a generic DRA pool of H100s.
var (
	poolH100 = spec.PoolPolicy{Name: "h100", Cloud: "eks", Accelerator: "h100-80gb", GPUsPerNode: 8, MachineType: "p5.48xlarge"}
	poolL4   = spec.PoolPolicy{Name: "l4", Cloud: "eks", Accelerator: "l4", GPUsPerNode: 1}
	poolMIG  = spec.PoolPolicy{Name: "a100-mig", Cloud: "generic", Accelerator: "a100-80gb", GPUsPerNode: 8,
		Partition: "1g.10gb", MIGStrategy: spec.MIGStrategyMixed}
	poolDRA = spec.PoolPolicy{Name: "h100-dra", Cloud: "generic", Accelerator: "h100-80gb", GPUsPerNode: 8,
		GPUAllocation: spec.GPUAllocationDRA}
)

func pooled(p spec.PoolPolicy) *spec.PoolPolicy { return &p }

// cpuHeadCluster is a CPU head and two GPU worker groups on their pools.
func cpuHeadCluster() spec.RayCluster {
	return spec.RayCluster{
		Name: "llm", Namespace: "ml", Cloud: "eks", RayVersion: "2.52.0", Image: "rayproject/ray:2.52.0-gpu",
		Head: spec.RayGroup{CPU: "4", Memory: "16Gi"},
		WorkerGroups: []spec.RayGroup{
			{Name: "train", NodePool: pooled(poolH100), GPU: &spec.GPU{Count: 8}, Replicas: rendertest.Ptr(int32(2))},
			{Name: "serve", NodePool: pooled(poolL4), GPU: &spec.GPU{Count: 1}, Replicas: rendertest.Ptr(int32(3))},
		},
	}
}

// mustRender resolves and renders c strictly, failing on errors.
func mustRender(t *testing.T, c spec.RayCluster) (*Rendered, gpudiag.Diagnostics) {
	t.Helper()
	resolved := Resolve(c, true)
	rendertest.RequireNoErrors(t, resolved.Findings)
	r, diags := Render(resolved, workload.Options{})
	rendertest.RequireNoErrors(t, diags)
	return r, append(resolved.Findings, diags...)
}
