// The GPU network of Karpenter and EKS Auto Mode pools: EFA, on the same
// EC2 instance types as EKS node groups (eks_network.go). The EKS user
// guide's "Manage EFA devices on Amazon EKS" says what differs: an instance
// Karpenter or Auto Mode launches for pods requesting vpc.amazonaws.com/efa
// gets every network interface as EFA (nothing to set in a NodePool), the
// EFA device plugin runs on both, and neither supports placement groups.
// What is not known here is whether EKS Auto Mode's node images
// pre-allocate the huge pages EFA's libfabric uses (the EKS-optimized
// AL2023 AMIs that self-managed Karpenter launches do), so multi-node jobs
// on Auto Mode pools are warned rather than given the network.

package clouds

import "github.com/gpuform/terraform-provider-gpu/internal/render/spec"

// karpenterEFAAdvertiser says what puts EFA on Karpenter's nodes.
const karpenterEFAAdvertiser = "the EFA device plugin (aws-efa-k8s-device-plugin, a DaemonSet); Karpenter gives " +
	"every interface of an instance it launches for pods requesting vpc.amazonaws.com/efa the EFA type, and the " +
	"EKS-optimized accelerated AMI's EFA installer pre-allocates the huge pages"

func (k awsKarpenterProfile) machineNetwork(machine string, _ *spec.PoolGPUNetwork) (GPUNetwork, bool) {
	if k.auto {
		return GPUNetwork{}, false
	}
	n, ok := efaNetwork(machine)
	n.Advertiser = karpenterEFAAdvertiser
	return n, ok
}

func (k awsKarpenterProfile) uncountedNetwork(machine string) (string, string) {
	if !k.auto {
		return uncountedEFA(machine)
	}
	if kind, _ := uncountedEFA(machine); kind != "" {
		return uncountedEFA(machine)
	}
	if _, ok := efaNetwork(machine); ok {
		return NetworkEFA, "whether EKS Auto Mode's nodes pre-allocate the huge pages EFA uses is not known to this " +
			"provider version"
	}
	return "", ""
}

// launchesEveryMachine: a NodePool selects instances by GPU name and count,
// so Karpenter may launch any instance type with the pool's GPUs.
func (awsKarpenterProfile) launchesEveryMachine() {}
