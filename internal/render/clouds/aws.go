// What the AWS clouds (eks, eks-auto, karpenter) share: EC2 GPU instance
// shapes, the names EC2 gives its GPUs, and the labels AWS tooling sets.
// The per-cloud rules are in eks.go and karpenter.go.
//
// Upstream sources: AWS "Amazon EC2 accelerated computing instances"
// specifications (instance types, GPU counts, GPU names and memory as the
// EC2 DescribeInstanceTypes API reports them, which Karpenter and EKS Auto
// Mode copy into instance-gpu-* labels); cluster-autoscaler's AWS cloud
// provider (k8s.amazonaws.com/accelerator); EKS managed node group docs
// (eks.amazonaws.com/capacityType, nodegroup); Karpenter's well-known labels
// (karpenter.sh/capacity-type, karpenter.sh/nodepool).

package clouds

import (
	"slices"
	"strconv"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
)

// AWS node labels.
const (
	// eksLabelAccelerator is cluster-autoscaler's AWS GPU label; you put it
	// on managed node groups (EKS does not). Flyte uses it by default too.
	eksLabelAccelerator = "k8s.amazonaws.com/accelerator"
	// eksLabelCapacityType is set by EKS on managed node group nodes.
	eksLabelCapacityType = "eks.amazonaws.com/capacityType"
	// karpenterLabelCapacityType is set by Karpenter and EKS Auto Mode.
	karpenterLabelCapacityType = "karpenter.sh/capacity-type"
	// karpenterLabelNodePool is set by Karpenter (and EKS Auto Mode, and
	// AKS node auto-provisioning) to the NodePool name.
	karpenterLabelNodePool = "karpenter.sh/nodepool"
)

// awsLabelNetworkNodeLayer is the prefix of the network topology labels the
// AWS cloud controller manager puts on EC2 nodes whose instance type has a
// topology: topology.k8s.aws/network-node-layer-1 (top) to -3, or -4 on
// types with four layers (docs/design/topology.md §2).
const awsLabelNetworkNodeLayer = "topology.k8s.aws/network-node-layer-"

// awsTopologyLevels are the network node layers, named "layer-1" to
// "layer-4"; the first three by default, since most supported instance
// types have three and a Kueue level whose label a node lacks would leave
// that node out.
func awsTopologyLevels() []TopologyLevel {
	out := make([]TopologyLevel, 0, 4)
	for i := 1; i <= 4; i++ {
		n := strconv.Itoa(i)
		out = append(out, TopologyLevel{Name: "layer-" + n, NodeLabel: awsLabelNetworkNodeLayer + n, Default: i <= 3})
	}
	return out
}

// AWSMachines lists, per catalog id, the EC2 instance types and their GPU
// count (AWS "Amazon EC2 accelerated computing instances" specifications,
// https://docs.aws.amazon.com/ec2/latest/instancetypes/ac.html: G4dn, G5,
// G6, G6e, G7e, P3, P3dn, P4d, P4de, P5, P5e, P5en, P6-B200, P6-B300,
// P6e-GB200). Smallest first, so the first entry with a count is the
// cheapest suggestion.
var AWSMachines = map[string][]MachineShape{
	"t4":        {{"g4dn.xlarge", 1}, {"g4dn.2xlarge", 1}, {"g4dn.4xlarge", 1}, {"g4dn.8xlarge", 1}, {"g4dn.16xlarge", 1}, {"g4dn.12xlarge", 4}, {"g4dn.metal", 8}},
	"a10g":      {{"g5.xlarge", 1}, {"g5.2xlarge", 1}, {"g5.4xlarge", 1}, {"g5.8xlarge", 1}, {"g5.16xlarge", 1}, {"g5.12xlarge", 4}, {"g5.24xlarge", 4}, {"g5.48xlarge", 8}},
	"l4":        {{"g6.xlarge", 1}, {"g6.2xlarge", 1}, {"g6.4xlarge", 1}, {"g6.8xlarge", 1}, {"g6.16xlarge", 1}, {"g6.12xlarge", 4}, {"g6.24xlarge", 4}, {"g6.48xlarge", 8}},
	"l40s":      {{"g6e.xlarge", 1}, {"g6e.2xlarge", 1}, {"g6e.4xlarge", 1}, {"g6e.8xlarge", 1}, {"g6e.16xlarge", 1}, {"g6e.12xlarge", 4}, {"g6e.24xlarge", 4}, {"g6e.48xlarge", 8}},
	"v100-16gb": {{"p3.2xlarge", 1}, {"p3.8xlarge", 4}, {"p3.16xlarge", 8}},
	"v100-32gb": {{"p3dn.24xlarge", 8}},
	"a100-40gb": {{"p4d.24xlarge", 8}},
	"a100-80gb": {{"p4de.24xlarge", 8}},
	// p5.4xlarge is the single-H100 size added in 2025.
	"h100-80gb": {{"p5.4xlarge", 1}, {"p5.48xlarge", 8}},
	"h200":      {{"p5e.48xlarge", 8}, {"p5en.48xlarge", 8}},
	"b200":      {{"p6-b200.48xlarge", 8}},
	// P6-B300 (8 x B300), P6e-GB200 (4 x GB200 per instance; an
	// UltraServer joins them into 36 or 72 GPUs), G7e (RTX PRO 6000 Blackwell Server
	// Edition, 96 GB: 2x/4x/8xlarge 1, 12xlarge 2, 24xlarge 4, 48xlarge 8).
	"b300":         {{"p6-b300.48xlarge", 8}},
	"gb200":        {{"p6e-gb200.36xlarge", 4}},
	"rtx-pro-6000": {{"g7e.2xlarge", 1}, {"g7e.4xlarge", 1}, {"g7e.8xlarge", 1}, {"g7e.12xlarge", 2}, {"g7e.24xlarge", 4}, {"g7e.48xlarge", 8}},
}

// ec2Machines is embedded by every AWS profile: they sell the same EC2
// instance types.
type ec2Machines struct{}

func (ec2Machines) Machines(a *catalog.Accelerator) []MachineShape {
	return catalogMachines(AWSMachines, a)
}

func (ec2Machines) acceleratorForMachine(name string) *catalog.Accelerator {
	return catalogAcceleratorForMachine(AWSMachines, name)
}

// al2023DRALabels is embedded by every AWS profile for its draPoolLabels:
// their GPU nodes run AL2023, whose nodeadm labels a node
// nvidia.com/gpu.present=true, which the DRA kubelet plugin's affinity
// matches, only from kubelet 1.35 on; on 1.34, the first with NVIDIA's DRA
// driver on EKS, the node group or NodePool template must carry it (dra.md
// §9.3, §9.5). Nothing else needs switching off: the EKS node group's
// AL2023 NVIDIA AMI runs no device plugin, and the GPU Operator's, which
// Karpenter's nodes run, is kept off by the shared switch. (Bottlerocket's
// NVIDIA AMIs run a built-in device plugin that only user data turns off,
// settings.kubelet-device-plugins.nvidia.enabled = false from 1.63.0; the
// rendered node group uses AL2023.)
type al2023DRALabels struct{}

func (al2023DRALabels) draPoolLabels(_ PoolIntent, toAdd, _ map[string]string) {
	toAdd[LabelGPUPresent] = "true"
}

// acceleratorForAWSGPU matches EC2's GPU name; where two models share it
// (a100, v100), the per-GPU memory or the instance type decides.
func acceleratorForAWSGPU(name, memoryMiB, instanceType string) *catalog.Accelerator {
	if name == "" {
		return nil
	}
	var candidates []*catalog.Accelerator
	for i := range catalog.Table {
		if catalog.Table[i].AWSGPUName == name {
			candidates = append(candidates, &catalog.Table[i])
		}
	}
	if len(candidates) == 1 {
		return candidates[0]
	}
	for _, a := range candidates {
		if a.AWSGPUMemoryMiB > 0 && strconv.FormatInt(a.AWSGPUMemoryMiB, 10) == memoryMiB {
			return a
		}
	}
	if a := AcceleratorForInstanceType(instanceType); a != nil && slices.Contains(candidates, a) {
		return a
	}
	return nil
}
