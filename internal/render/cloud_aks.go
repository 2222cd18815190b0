package render

import corev1 "k8s.io/api/core/v1"

// AKS node labels (azure-aks-docs use-labels.md, use-nvidia-gpu.md).
const (
	aksLabelAccelerator      = "kubernetes.azure.com/accelerator"
	aksLabelScaleSetPriority = "kubernetes.azure.com/scalesetpriority"
	// aksGPUTaintKey/Value is the documented convention for GPU node pools
	// (--node-taints sku=gpu:NoSchedule). AKS does not add it by itself, but
	// tolerating a taint that is absent is harmless.
	aksGPUTaintKey   = "sku"
	aksGPUTaintValue = "gpu"
)

type aksProfile struct{}

func (aksProfile) offers(a *Accelerator) bool { return len(a.AKSVMSizes) > 0 }

func (aksProfile) validate(in gpuIntent, _ bool) Diagnostics {
	return warnSharedClientsWithoutLabel(CloudAKS, in)
}

func (aksProfile) resource(in gpuIntent) corev1.ResourceName { return devicePluginResource(in) }

func (aksProfile) place(in gpuIntent) placement {
	p := newPlacement(devicePluginResource(in))
	// AKS labels every NVIDIA GPU node with accelerator=nvidia; the VM size
	// is the only node label that identifies the model.
	p.nodeSelector[aksLabelAccelerator] = "nvidia"
	p.tolerations = append(p.tolerations, tolerateEqual(aksGPUTaintKey, aksGPUTaintValue))
	for i, a := range in.accelerators {
		term := []labelRequirement{{key: labelInstanceType, values: a.AKSVMSizes}}
		if i == 0 && in.partition != nil && in.migStrategy == MIGStrategySingle {
			term = append(term, devicePluginMIGRequirement(a, *in.partition))
		}
		p.acceleratorTerms = append(p.acceleratorTerms, term)
	}
	if in.spot {
		// AKS labels and taints spot pools with scalesetpriority=spot.
		p.nodeSelector[aksLabelScaleSetPriority] = "spot"
		p.tolerations = append(p.tolerations, tolerateEqual(aksLabelScaleSetPriority, "spot"))
	}
	return p
}
