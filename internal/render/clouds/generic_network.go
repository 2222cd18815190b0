// The GPU network of generic clusters: whatever RDMA resource the cluster's
// NVIDIA Network Operator advertises. No machine table says which nodes
// have one, so the pool names the resource (gpu_network.rdma_resource)
// and how many a pod asking every GPU requests (rdma_devices, default 1:
// the shared device plugin, whose one unit opens every NIC)
// (docs/design/gpu-networks.md#generic).
//
// Upstream sources: NVIDIA Network Operator NicClusterPolicy examples
// (rdmaSharedDevicePlugin resourceName rdma_shared_device_a → resource
// rdma/rdma_shared_device_a; sriovDevicePlugin nvidia.com/hostdev).

package clouds

import "github.com/gpuform/terraform-provider-gpu/internal/render/spec"

// defaultRDMAResource: none, the pool must name the cluster's.
func (genericProfile) defaultRDMAResource() string { return "" }

func (genericProfile) machineNetwork(_ string, settings *spec.PoolGPUNetwork) (GPUNetwork, bool) {
	if settings == nil || settings.RDMAResource == "" {
		return GPUNetwork{}, false
	}
	n := rdmaNetwork(NetworkRDMA, settings.RDMAResource, 1, settings)
	n.NICs = n.Devices
	return n, true
}
