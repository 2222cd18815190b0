package placement

import (
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// The pool's GPU network for pods the provider does not own (issue #42,
// docs/design/gpu-networks.md#workloads): a request with pods > 1 on a
// pool whose machines have a GPU network gets its share, under the rule
// gpu_workload's pods follow, so a hand-written JobSet, LeaderWorkerSet or
// PyTorchJob gets the same NICs, huge pages, annotations and sidecar.
// placementObject and podTemplateObject merge it with workload.AddNetwork,
// as gpu_workload's pods do.

// withNetwork is the request's network pieces on pool, with its findings
// added to diags; nil for a single pod or a pool without a network.
func withNetwork(pool spec.PoolPolicy, req gpuRequest, diags gpudiag.Diagnostics) (*clouds.NetworkPod, gpudiag.Diagnostics) {
	net, more := workload.NetworkFor(pool, req.GPU, req.Pods)
	return net, append(diags, more...)
}
