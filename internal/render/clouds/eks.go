// Every rule of EKS with managed (or self-managed) node groups: workloads,
// node groups, live nodes and chart values. EC2 shapes and labels shared
// with Karpenter and EKS Auto Mode are in aws.go.
//
// Upstream sources of its labels and facts: cluster-autoscaler's AWS cloud
// provider (k8s.amazonaws.com/accelerator, which users put on node groups);
// EKS managed node group docs (eks.amazonaws.com/capacityType and
// eks.amazonaws.com/nodegroup, set by EKS); the aws_eks_node_group
// ami_type list and the EKS-optimized accelerated AMI docs (driver and
// container toolkit preinstalled).

package clouds

import (
	"cmp"
	"maps"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

const (
	// eksAcceleratedAMIType is the EKS-optimized Amazon Linux 2023 AMI with
	// the NVIDIA driver and container toolkit (aws_eks_node_group ami_type).
	eksAcceleratedAMIType = "AL2023_x86_64_NVIDIA"
	// eksLabelNodeGroup names the managed node group of a node (docs/design/clouds.md).
	eksLabelNodeGroup = "eks.amazonaws.com/nodegroup"
)

// eksProfile is EKS with managed node groups; the GPU Operator configures
// MIG and sharing.
type eksProfile struct {
	operatorProfile
	ec2Machines
	al2023DRALabels
}

func (eksProfile) Offers(a *catalog.Accelerator) bool { return a.EKSAccelerator != "" }

func (eksProfile) Validate(in GPUIntent, _ bool) gpudiag.Diagnostics {
	return warnSharedClientsWithoutLabel(spec.CloudEKS, in)
}

func (eksProfile) Place(in GPUIntent) Placement {
	p := devicePluginPlacement(in, true, func(a *catalog.Accelerator) []LabelRequirement {
		term := []LabelRequirement{{Key: eksLabelAccelerator, Values: []string{a.EKSAccelerator}}}
		// V100 16GB and 32GB share "nvidia-tesla-v100": the instance type
		// (p3 vs p3dn) tells them apart.
		if len(a.AWSInstanceTypes) > 0 {
			term = append(term, LabelRequirement{Key: LabelInstanceType, Values: a.AWSInstanceTypes})
		}
		return term
	})
	// Node groups are commonly tainted nvidia.com/gpu=true:NoSchedule.
	p.Tolerations = append(p.Tolerations, TolerateGPUTaint())
	if in.Spot {
		p.NodeSelector[eksLabelCapacityType] = "SPOT"
	}
	return p
}

// poolLabels: EKS sets the capacity type on managed node group nodes, but
// nobody sets the cluster-autoscaler accelerator label workloads select
// on: the node group must carry it.
func (eksProfile) poolLabels(pi PoolIntent, toAdd, set map[string]string) {
	if pi.Accel != nil {
		toAdd[eksLabelAccelerator] = pi.Accel.EKSAccelerator
	}
	set[eksLabelCapacityType] = "ON_DEMAND"
	if pi.Spot {
		set[eksLabelCapacityType] = "SPOT"
	}
	if pi.Machine != "" {
		set[LabelInstanceType] = pi.Machine
	}
}

// topologyLevels: the AWS network node layers, set on node group nodes by
// the cloud controller manager (aws.go).
func (eksProfile) topologyLevels() []TopologyLevel { return awsTopologyLevels() }

// PoolNameLabel: EKS labels managed node group nodes with the group's name.
func (eksProfile) PoolNameLabel() string { return eksLabelNodeGroup }

func (e eksProfile) poolIdentity(pi PoolIntent, _, _ map[string]string) map[string]string {
	return poolNameIdentity(e.PoolNameLabel(), pi.Name)
}

// labelChoices: a node group may list several instance types.
func (eksProfile) labelChoices(pi PoolIntent) map[string][]string {
	return machineChoices(pi.LaunchedMachines())
}

func (eksProfile) NodePoolShape(r *spec.PoolRendered, pi PoolIntent, taints []PoolTaint) {
	ng := &spec.EKSNodeGroup{
		InstanceTypes: pi.LaunchedMachines(),
		CapacityType:  "ON_DEMAND",
		AMIType:       eksAcceleratedAMIType,
		Labels:        maps.Clone(r.NodeLabels),
		Taints:        cloudTaints(taints),
	}
	if pi.Spot {
		ng.CapacityType = "SPOT"
	}
	efaNodeGroup(ng, pi.Network)
	r.EKS = ng
}

func (eksProfile) Classify(n *corev1.Node) (NodeClass, bool) {
	l := n.Labels
	if l[eksLabelNodeGroup] == "" {
		return NodeClass{}, false
	}
	c := NodeClass{Cloud: spec.CloudEKS, Key: "eks/" + l[eksLabelNodeGroup], Product: cmp.Or(l[eksLabelAccelerator], l[LabelInstanceType])}
	c.Accel = cmp.Or(AcceleratorForInstanceType(l[LabelInstanceType]), acceleratorForEKS(l[eksLabelAccelerator]))
	return c, true
}

func (eksProfile) MarksGPUNode(l map[string]string) bool { return l[eksLabelAccelerator] != "" }

// acceleratorForEKS matches the cluster-autoscaler accelerator label; it is
// ambiguous for nvidia-tesla-v100 (16 and 32 GB), which then stays unknown
// unless the instance type resolved it.
func acceleratorForEKS(value string) *catalog.Accelerator {
	var found *catalog.Accelerator
	for i := range catalog.Table {
		if value != "" && catalog.Table[i].EKSAccelerator == value {
			if found != nil {
				return nil
			}
			found = &catalog.Table[i]
		}
	}
	return found
}

// DriverPreinstalled: node groups run the EKS-optimized accelerated AMI
// (eksAcceleratedAMIType, which nodePoolShape puts in the node group), with
// driver and toolkit.
func (eksProfile) DriverPreinstalled() bool { return true }
