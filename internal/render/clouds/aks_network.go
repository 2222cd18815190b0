// The GPU network of AKS ND-series VMs: InfiniBand, handed to pods as the
// RDMA resource of the NVIDIA Network Operator's device plugin. The
// cluster's NicClusterPolicy names that resource, so the pool takes it as
// a setting (gpu_network.rdma_resource) with Azure's documented default
// (docs/design/gpu-networks.md#aks).
//
// Upstream sources: Azure/aks-rdma-infiniband website/docs (SR-IOV device
// plugin resourcePrefix rdma, resourceName ib: rdma/ib, one per NIC, and
// IPC_LOCK in the pod; the shared plugin's rdma/shared_ib: 1; the
// AKSInfinibandSupport feature); Azure VM size pages for ND A100 v4, ND
// H100 v5 and ND H200 v5 (8 GPUs, 8 InfiniBand NICs, one per GPU).

package clouds

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// AKSDefaultRDMAResource is the SR-IOV device plugin's resource in Azure's
// Network Operator configuration: one unit per InfiniBand NIC.
const AKSDefaultRDMAResource = "rdma/ib"

// aksInfiniBandNICs: the VM sizes whose GPUs talk over InfiniBand, with
// their NICs (one per GPU).
var aksInfiniBandNICs = map[string]int64{
	"Standard_ND96asr_v4":       8,
	"Standard_ND96amsr_A100_v4": 8,
	"Standard_ND96isr_H100_v5":  8,
	"Standard_ND96isr_H200_v5":  8,
}

func (aksProfile) defaultRDMAResource() string { return AKSDefaultRDMAResource }

func (aksProfile) machineNetwork(machine string, settings *spec.PoolGPUNetwork) (GPUNetwork, bool) {
	nics, ok := aksInfiniBandNICs[machine]
	if !ok {
		return GPUNetwork{}, false
	}
	n := rdmaNetwork(NetworkInfiniBand, AKSDefaultRDMAResource, nics, settings)
	n.Machine, n.GPUs, n.NICs = machine, tableMachineGPUs(AKSMachines, machine), nics
	return n, true
}

// rdmaAdvertiser: the RDMA resources come from the NVIDIA Network
// Operator's device plugin, configured by its NicClusterPolicy.
const rdmaAdvertiser = "the NVIDIA Network Operator's RDMA device plugin (its NicClusterPolicy names the resource; " +
	"the pool's gpu_network.rdma_resource must be the same name)"

// rdmaNetwork is an RDMA device plugin's network: the pool's resource and
// devices over the defaults. Pods pin memory for RDMA, hence IPC_LOCK.
func rdmaNetwork(kind, resource string, devices int64, settings *spec.PoolGPUNetwork) GPUNetwork {
	if settings != nil && settings.RDMAResource != "" {
		resource = settings.RDMAResource
	}
	if settings != nil && settings.RDMADevices > 0 {
		devices = settings.RDMADevices
	}
	return GPUNetwork{Kind: kind, Resource: corev1.ResourceName(resource), Devices: devices, Advertiser: rdmaAdvertiser,
		pod: rdmaPod}
}

func rdmaPod(n GPUNetwork, devices int64) NetworkPod {
	pod := resourcePod(n, devices)
	pod.IPCLock = true
	return pod
}
