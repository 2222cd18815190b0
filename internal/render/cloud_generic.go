package render

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
)

// Labels set by the NVIDIA device plugin / GFD (GPU Operator).
const (
	labelSharingStrategy = "nvidia.com/gpu.sharing-strategy"
	labelGPUReplicas     = "nvidia.com/gpu.replicas"
)

// genericProfile assumes the NVIDIA GPU Operator: GPU Feature Discovery
// labels, the nvidia.com/gpu taint convention, and a device plugin whose MIG
// and sharing settings are visible as node labels.
type genericProfile struct{}

func (genericProfile) offers(*Accelerator) bool { return true }

func (genericProfile) validate(in gpuIntent, _ bool) Diagnostics {
	var diags Diagnostics
	if in.spot {
		diags.addWarning(at("spot"), "spot has no effect on generic clusters",
			"Generic clusters have no standard label or taint for spot/preemptible capacity, so spot = true changes "+
				"nothing. spot selects capacity on: \"gke\", \"gke-autopilot\", \"aks\", \"eks\", \"eks-auto\", \"karpenter\".")
	}
	return diags
}

func (genericProfile) resource(in gpuIntent) corev1.ResourceName { return devicePluginResource(in) }

func (genericProfile) place(in gpuIntent) placement {
	p := newPlacement(devicePluginResource(in))
	p.nodeSelector[labelGPUPresent] = "true"
	p.tolerations = append(p.tolerations, tolerateGPUTaint())
	for _, a := range in.accelerators {
		products := labelRequirement{key: labelGFDProduct, values: a.GFDProducts}
		// Under the "single" strategy GFD replaces the product name with its
		// MIG form, so the plain product would match no partitioned node.
		if in.partition != nil && in.migStrategy == MIGStrategySingle {
			products = devicePluginMIGRequirement(a, *in.partition)
		}
		p.acceleratorTerms = append(p.acceleratorTerms, []labelRequirement{products})
	}
	if in.sharing != "" {
		// Device plugin label values are exactly our sharing names.
		p.nodeSelector[labelSharingStrategy] = in.sharing
		if in.maxSharedClients > 0 {
			p.nodeSelector[labelGPUReplicas] = strconv.FormatInt(in.maxSharedClients, 10)
		}
	}
	return p
}
