// The GPU network of EKS node groups: Elastic Fabric Adapter (EFA). A pod
// gets the NICs as the EFA device plugin's extended resource and asks for
// huge pages beside them (docs/design/gpu-networks.md#eks).
//
// Upstream sources: the EKS user guide's "Manage EFA devices on Amazon
// EKS" and "Run machine learning training on Amazon EKS with Elastic Fabric
// Adapter" (vpc.amazonaws.com/efa, 32 on p5.48xlarge, hugepages-2Mi 5120Mi
// requested with memory; 5128 pages pre-allocated by the EFA driver); the
// EKS P6e-GB200 UltraServer page (4 allocatable EFA); EC2 launch template
// examples (p6-b200: 8 efa-only interfaces); torchx named_resources_aws.py
// (p5en.48xlarge: 16).

package clouds

import (
	"slices"

	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// ResourceEFA is the EFA device plugin's extended resource.
const ResourceEFA = "vpc.amazonaws.com/efa"

// eksEFADevices is the EFA devices one instance advertises, per instance
// type with a GPU network. p6-b300 and p6e-gb300 are left out until their
// counts are checked at a source.
var eksEFADevices = map[string]int64{
	"p4d.24xlarge":       4,
	"p4de.24xlarge":      4,
	"p5.48xlarge":        32,
	"p5e.48xlarge":       32,
	"p5en.48xlarge":      16,
	"p6-b200.48xlarge":   8,
	"p6e-gb200.36xlarge": 4,
}

// eksEFAHugePagesMi is the 2 MiB huge pages AWS's examples request for a
// whole instance (5120Mi of the 5128 pages the EFA installer reserves).
const eksEFAHugePagesMi = 5120

// eksEFAAdvertiser: the EFA device plugin advertises the devices; the EFA
// installer of the EKS-optimized accelerated AMI pre-allocates the pages.
const eksEFAAdvertiser = "the EFA device plugin (aws-efa-k8s-device-plugin, a DaemonSet) on nodes launched with " +
	"EFA interfaces from an AMI with the EFA installer, which pre-allocates the huge pages"

// eksPlacementGroupStrategy: EFA needs the instances close together, in a
// cluster placement group.
const eksPlacementGroupStrategy = "cluster"

// efaNetwork is an EC2 instance type's EFA network.
func efaNetwork(machine string) (GPUNetwork, bool) {
	devices, ok := eksEFADevices[machine]
	if !ok {
		return GPUNetwork{}, false
	}
	return GPUNetwork{Kind: NetworkEFA, Machine: machine, GPUs: tableMachineGPUs(AWSMachines, machine), NICs: devices,
		Resource: ResourceEFA, Devices: devices, HugePagesMi: eksEFAHugePagesMi, Advertiser: eksEFAAdvertiser,
		pod: resourcePod}, true
}

func (eksProfile) machineNetwork(machine string, _ *spec.PoolGPUNetwork) (GPUNetwork, bool) {
	return efaNetwork(machine)
}

// eksEFAUncounted are instance types with EFA whose device count is not
// checked at a source yet (docs/design/gpu-networks.md, "Left open"):
// multi-node jobs on them are warned rather than given a guessed count.
var eksEFAUncounted = []string{"p6-b300.48xlarge", "p6e-gb300.36xlarge"}

func (eksProfile) uncountedNetwork(machine string) (string, string) {
	return uncountedEFA(machine)
}

// uncountedEFA: the EFA of instance types in eksEFAUncounted.
func uncountedEFA(machine string) (string, string) {
	if slices.Contains(eksEFAUncounted, machine) {
		return NetworkEFA, "its efa device count is not known to this provider version"
	}
	return "", ""
}

// launchesEveryMachine: the node group lists every instance type with the
// pool's GPU count.
func (eksProfile) launchesEveryMachine() {}

// efaNodeGroup puts what EFA needs into the node group: every EFA
// interface in its launch template, and a cluster placement group.
func efaNodeGroup(ng *spec.EKSNodeGroup, n *GPUNetwork) {
	if n == nil || n.Kind != NetworkEFA {
		return
	}
	ng.EFAInterfaces = n.NICs
	ng.PlacementGroupStrategy = eksPlacementGroupStrategy
}
