// Every rule of EKS with managed (or self-managed) node groups: workloads,
// node groups, live nodes and chart values. EC2 shapes and labels shared
// with Karpenter and EKS Auto Mode are in cloud_aws.go.
//
// Upstream sources of its labels and facts: cluster-autoscaler's AWS cloud
// provider (k8s.amazonaws.com/accelerator, which users put on node groups);
// EKS managed node group docs (eks.amazonaws.com/capacityType and
// eks.amazonaws.com/nodegroup, set by EKS); the aws_eks_node_group
// ami_type list and the EKS-optimized accelerated AMI docs (driver and
// container toolkit preinstalled).

package render

import (
	"cmp"
	"maps"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	corev1 "k8s.io/api/core/v1"
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
}

func (eksProfile) offers(a *Accelerator) bool { return a.EKSAccelerator != "" }

func (eksProfile) validate(in gpuIntent, _ bool) gpudiag.Diagnostics {
	return warnSharedClientsWithoutLabel(CloudEKS, in)
}

func (eksProfile) place(in gpuIntent) placement {
	p := devicePluginPlacement(in, true, func(a *Accelerator) []labelRequirement {
		term := []labelRequirement{{key: eksLabelAccelerator, values: []string{a.EKSAccelerator}}}
		// V100 16GB and 32GB share "nvidia-tesla-v100": the instance type
		// (p3 vs p3dn) tells them apart.
		if len(a.AWSInstanceTypes) > 0 {
			term = append(term, labelRequirement{key: labelInstanceType, values: a.AWSInstanceTypes})
		}
		return term
	})
	// Node groups are commonly tainted nvidia.com/gpu=true:NoSchedule.
	p.tolerations = append(p.tolerations, tolerateGPUTaint())
	if in.spot {
		p.nodeSelector[eksLabelCapacityType] = "SPOT"
	}
	return p
}

// poolLabels: EKS sets the capacity type on managed node group nodes, but
// nobody sets the cluster-autoscaler accelerator label workloads select
// on: the node group must carry it.
func (eksProfile) poolLabels(pi poolIntent, toAdd, set map[string]string) {
	if pi.accel != nil {
		toAdd[eksLabelAccelerator] = pi.accel.EKSAccelerator
	}
	set[eksLabelCapacityType] = "ON_DEMAND"
	if pi.spot {
		set[eksLabelCapacityType] = "SPOT"
	}
	if t := firstValue(machinesWithGPUs(catalogMachines(awsMachines, pi.accel), pi.gpus)); t != "" {
		set[labelInstanceType] = t
	}
}

func (eksProfile) nodePoolShape(r *PoolRendered, pi poolIntent, taints []poolTaint) {
	ng := &EKSNodeGroup{
		InstanceTypes: machinesWithGPUs(catalogMachines(awsMachines, pi.accel), pi.gpus),
		CapacityType:  "ON_DEMAND",
		AMIType:       eksAcceleratedAMIType,
		Labels:        maps.Clone(r.NodeLabels),
		Taints:        cloudTaints(taints),
	}
	if pi.spot {
		ng.CapacityType = "SPOT"
	}
	r.EKS = ng
}

func (eksProfile) classify(n *corev1.Node) (nodeClass, bool) {
	l := n.Labels
	if l[eksLabelNodeGroup] == "" {
		return nodeClass{}, false
	}
	c := nodeClass{cloud: CloudEKS, key: "eks/" + l[eksLabelNodeGroup], product: cmp.Or(l[eksLabelAccelerator], l[labelInstanceType])}
	c.accel = cmp.Or(acceleratorForInstanceType(l[labelInstanceType]), acceleratorForEKS(l[eksLabelAccelerator]))
	return c, true
}

func (eksProfile) marksGPUNode(l map[string]string) bool { return l[eksLabelAccelerator] != "" }

// acceleratorForEKS matches the cluster-autoscaler accelerator label; it is
// ambiguous for nvidia-tesla-v100 (16 and 32 GB), which then stays unknown
// unless the instance type resolved it.
func acceleratorForEKS(value string) *Accelerator {
	var found *Accelerator
	for i := range catalog {
		if value != "" && catalog[i].EKSAccelerator == value {
			if found != nil {
				return nil
			}
			found = &catalog[i]
		}
	}
	return found
}

// driverPreinstalled: node groups run the EKS-optimized accelerated AMI
// (eksAcceleratedAMIType, which nodePoolShape puts in the node group), with
// driver and toolkit.
func (eksProfile) driverPreinstalled() bool { return true }
