package render

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
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
)

// eksProfile is EKS with managed node groups.
type eksProfile struct{}

func (eksProfile) offers(a *Accelerator) bool { return a.EKSAccelerator != "" }

func (eksProfile) validate(in gpuIntent, _ bool) Diagnostics {
	return warnSharedClientsWithoutLabel(CloudEKS, in)
}

func (eksProfile) resource(in gpuIntent) corev1.ResourceName { return devicePluginResource(in) }

func (eksProfile) place(in gpuIntent) placement {
	p := newPlacement(devicePluginResource(in))
	// Node groups are commonly tainted nvidia.com/gpu=true:NoSchedule.
	p.tolerations = append(p.tolerations, tolerateGPUTaint())
	for i, a := range in.accelerators {
		term := []labelRequirement{{key: eksLabelAccelerator, values: []string{a.EKSAccelerator}}}
		// V100 16GB and 32GB share "nvidia-tesla-v100": the instance type
		// (p3 vs p3dn) tells them apart.
		if len(a.AWSInstanceTypes) > 0 {
			term = append(term, labelRequirement{key: labelInstanceType, values: a.AWSInstanceTypes})
		}
		if i == 0 && in.partition != nil && in.migStrategy == MIGStrategySingle {
			term = append(term, devicePluginMIGRequirement(a, *in.partition))
		}
		p.acceleratorTerms = append(p.acceleratorTerms, term)
	}
	if in.spot {
		p.nodeSelector[eksLabelCapacityType] = "SPOT"
	}
	return p
}

// awsKarpenterProfile covers EKS Auto Mode (labelPrefix
// "eks.amazonaws.com/") and self-managed Karpenter ("karpenter.k8s.aws/").
// Both derive GPU labels from EC2 instance data, so they share one rule set.
type awsKarpenterProfile struct{ labelPrefix string }

func (k awsKarpenterProfile) cloud() Cloud {
	if k.labelPrefix == "eks.amazonaws.com/" {
		return CloudEKSAuto
	}
	return CloudKarpenter
}

func (awsKarpenterProfile) offers(a *Accelerator) bool { return a.AWSGPUName != "" }

func (k awsKarpenterProfile) validate(in gpuIntent, _ bool) Diagnostics {
	return warnSharedClientsWithoutLabel(k.cloud(), in)
}

func (awsKarpenterProfile) resource(in gpuIntent) corev1.ResourceName {
	return devicePluginResource(in)
}

func (k awsKarpenterProfile) place(in gpuIntent) placement {
	p := newPlacement(devicePluginResource(in))
	// Neither EKS Auto Mode nor Karpenter taints GPU nodes by itself, but
	// NodePools commonly add nvidia.com/gpu:NoSchedule; tolerating is harmless.
	p.tolerations = append(p.tolerations, tolerateGPUTaint())
	for i, a := range in.accelerators {
		term := []labelRequirement{{key: k.labelPrefix + "instance-gpu-name", values: []string{a.AWSGPUName}}}
		// "a100" is both p4d (40 GB) and p4de (80 GB); "v100" both p3 and
		// p3dn. Per-GPU memory (MiB, from EC2) tells them apart.
		if a.AWSGPUMemoryMiB > 0 {
			term = append(term, labelRequirement{
				key:    k.labelPrefix + "instance-gpu-memory",
				values: []string{strconv.FormatInt(a.AWSGPUMemoryMiB, 10)},
			})
		}
		if i == 0 && in.partition != nil && in.migStrategy == MIGStrategySingle {
			term = append(term, devicePluginMIGRequirement(a, *in.partition))
		}
		p.acceleratorTerms = append(p.acceleratorTerms, term)
	}
	if in.spot {
		p.nodeSelector[karpenterLabelCapacityType] = "spot"
	}
	return p
}

// warnSharedClientsWithoutLabel: outside GKE and generic (GFD) clusters no
// node label says how many clients share a GPU, so max_shared_clients cannot
// select anything. The pod still requests nvidia.com/gpu.shared, which only
// exists where the device plugin shares GPUs.
func warnSharedClientsWithoutLabel(c Cloud, in gpuIntent) Diagnostics {
	var diags Diagnostics
	if in.sharing != "" && in.maxSharedClients > 0 {
		diags.addWarning(at("gpu", "max_shared_clients"), "max_shared_clients has no effect on "+string(c),
			"No node label on "+string(c)+" records the device plugin's replica count, so max_shared_clients = "+
				strconv.FormatInt(in.maxSharedClients, 10)+" is ignored; the pod requests "+string(ResourceNvidiaGPUShared)+
				". It selects nodes on: \"gke\", \"gke-autopilot\", \"generic\".")
	}
	return diags
}
