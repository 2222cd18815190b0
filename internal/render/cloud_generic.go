// Every rule of a generic cluster running the NVIDIA GPU Operator (e.g.
// on-premises): workloads, pools, live nodes and chart values.
//
// Upstream sources of its labels and facts: NVIDIA GPU Feature Discovery's
// labels (nvidia.com/gpu.product, gpu.count, gpu.replicas, gpu.sharing-
// strategy, mig.strategy) and the GPU Operator's (nvidia.com/gpu.present,
// nvidia.com/mig.config, nvidia.com/device-plugin.config), from the GPU
// Operator and k8s-device-plugin documentation (docs/design/nvidia.md#gpu-feature-discovery-labels).

package render

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
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
type genericProfile struct{ operatorProfile }

func (genericProfile) offers(*Accelerator) bool { return true }

func (genericProfile) validate(in gpuIntent, _ bool) gpudiag.Diagnostics {
	var diags gpudiag.Diagnostics
	if in.spot {
		diags.AddWarning(gpudiag.At("spot"), "spot has no effect on generic clusters",
			"Generic clusters have no standard label or taint for spot/preemptible capacity, so spot = true changes "+
				"nothing. spot selects capacity on: \"gke\", \"gke-autopilot\", \"aks\", \"eks\", \"eks-auto\", \"karpenter\".")
	}
	return diags
}

func (genericProfile) place(in gpuIntent) placement {
	p := newPlacement(devicePluginResource(in))
	// No nvidia.com/gpu.present: only the GPU Operator sets it, not the
	// standalone device plugin with GFD, and the GPU resource request
	// already keeps the pod on GPU nodes. Every label selected here is
	// GPU Feature Discovery's (enableGFD turns it on in our device plugin
	// values; the GPU Operator runs it by default).
	p.tolerations = append(p.tolerations, tolerateGPUTaint())
	for _, a := range in.accelerators {
		products := labelRequirement{key: labelGFDProduct, values: a.GFDProducts}
		// Under the "single" strategy GFD replaces the product name with its
		// MIG form, so the plain product would match no partitioned node.
		if in.partition != nil && in.migStrategy == MIGStrategySingle {
			products = devicePluginMIGRequirement(a, *in.partition)
		}
		// products already names the plain (unpartitioned) product.
		term := append([]labelRequirement{products}, wholeGPUModelExclusions(in, a, true)...)
		p.acceleratorTerms = append(p.acceleratorTerms, term)
	}
	p.excludedValues = append(wholeGPUNodeExclusions(in), anyModelExclusions(in)...)
	selectSharingStrategy(in, &p)
	if in.sharing != "" {
		if in.maxSharedClients > 0 {
			p.nodeSelector[labelGPUReplicas] = strconv.FormatInt(in.maxSharedClients, 10)
		}
	}
	return p
}

func (genericProfile) poolNotes(_ PoolPolicy, pi poolIntent, diags *gpudiag.Diagnostics) {
	if pi.spot {
		diags.AddWarning(gpudiag.At("spot"), "spot has no effect on generic clusters",
			"Generic clusters have no standard label or taint for spot capacity, so spot = true changes nothing. "+
				"Allowed: remove spot; it selects capacity on "+gpudiag.QuoteList(slices.DeleteFunc(PoolCloudNames(), func(c string) bool { return c == string(CloudGeneric) }))+".")
	}
}

// poolLabels: on a GPU Operator cluster, the operator and GPU Feature
// Discovery label the nodes (docs/design/nvidia.md#gpu-feature-discovery-labels).
func (genericProfile) poolLabels(pi poolIntent, _, set map[string]string) {
	set[labelGPUPresent] = "true"
	if pi.accel != nil && len(pi.accel.GFDProducts) > 0 {
		set[labelGFDProduct] = pi.accel.GFDProducts[0]
	}
	if pi.gpus > 0 {
		set["nvidia.com/gpu.count"] = strconv.FormatInt(pi.gpus, 10)
	}
	if pi.sharing != "" {
		// GFD reports nvidia.com/gpu's replicas; MIG resources get their
		// own nvidia.com/mig-<profile>.replicas labels.
		if pi.replicas > 0 && !pi.hasMIG() {
			set[labelGPUReplicas] = strconv.FormatInt(pi.replicas, 10)
		}
	}
	if pi.hasMIG() {
		set["nvidia.com/mig.strategy"] = pi.migStrategy
	}
}

// selectsSharedClients: GFD's nvidia.com/gpu.replicas covers nvidia.com/gpu
// only, not MIG resources.
func (genericProfile) selectsSharedClients(pi poolIntent) bool { return !pi.hasMIG() }

func (genericProfile) classify(n *corev1.Node) (nodeClass, bool) {
	l := n.Labels
	if l[labelGFDProduct] == "" && l[labelGPUPresent] != "true" {
		return nodeClass{}, false
	}
	return nodeClass{cloud: CloudGeneric, key: genericPoolKey(l), product: l[labelGFDProduct]}, true
}

func (genericProfile) marksGPUNode(l map[string]string) bool {
	return l[labelGPUPresent] == "true" || l[labelGFDProduct] != ""
}

// genericPoolKey groups GPU Operator nodes by model and configuration.
func genericPoolKey(l map[string]string) string {
	parts := []string{"generic", cmp.Or(l[labelGFDProduct], "unknown-gpu")}
	if cfg := l[LabelMIGConfig]; cfg != "" && cfg != MIGConfigDisabled {
		parts = append(parts, "mig-"+cfg)
	}
	if s := l[labelSharingStrategy]; s != "" && s != "none" {
		parts = append(parts, s+"-"+cmp.Or(l[labelGPUReplicas], "0"))
	}
	return strings.Join(parts, "/")
}
