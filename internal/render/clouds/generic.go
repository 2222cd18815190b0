// Every rule of a generic cluster running the NVIDIA GPU Operator (e.g.
// on-premises): workloads, pools, live nodes and chart values.
//
// Upstream sources of its labels and facts: NVIDIA GPU Feature Discovery's
// labels (nvidia.com/gpu.product, gpu.count, gpu.replicas, gpu.sharing-
// strategy, mig.strategy) and the GPU Operator's (nvidia.com/gpu.present,
// nvidia.com/mig.config, nvidia.com/device-plugin.config), from the GPU
// Operator and k8s-device-plugin documentation (docs/design/nvidia.md#gpu-feature-discovery-labels).

package clouds

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// Labels set by the NVIDIA device plugin / GFD (GPU Operator).
const (
	LabelSharingStrategy = "nvidia.com/gpu.sharing-strategy"
	LabelGPUReplicas     = "nvidia.com/gpu.replicas"
)

// genericProfile assumes the NVIDIA GPU Operator: GPU Feature Discovery
// labels, the nvidia.com/gpu taint convention, and a device plugin whose MIG
// and sharing settings are visible as node labels.
type genericProfile struct{ operatorProfile }

func (genericProfile) Offers(*catalog.Accelerator) bool { return true }

func (genericProfile) Validate(in GPUIntent, _ bool) gpudiag.Diagnostics {
	var diags gpudiag.Diagnostics
	if in.Spot {
		diags.AddWarning(gpudiag.At("spot"), "spot has no effect on generic clusters",
			"Generic clusters have no standard label or taint for spot/preemptible capacity, so spot = true changes "+
				"nothing. spot selects capacity on: \"gke\", \"gke-autopilot\", \"aks\", \"eks\", \"eks-auto\", \"karpenter\".")
	}
	return diags
}

func (genericProfile) Place(in GPUIntent) Placement {
	p := NewPlacement(DevicePluginResource(in))
	// No nvidia.com/gpu.present: only the GPU Operator sets it, not the
	// standalone device plugin with GFD, and the GPU resource request
	// already keeps the pod on GPU nodes. Every label selected here is
	// GPU Feature Discovery's (enableGFD turns it on in our device plugin
	// values; the GPU Operator runs it by default).
	p.Tolerations = append(p.Tolerations, TolerateGPUTaint())
	for _, a := range in.Accelerators {
		products := LabelRequirement{Key: LabelGFDProduct, Values: a.GFDProducts}
		// Under the "single" strategy GFD replaces the product name with its
		// MIG form, so the plain product would match no partitioned node.
		if in.Partition != nil && in.MIGStrategy == spec.MIGStrategySingle {
			products = devicePluginMIGRequirement(a, *in.Partition)
		}
		// Through DRA the claim picks the MIG device, and no device plugin
		// strategy says how GFD labels the node: GFD run with "single"
		// still rewrites the product on a node whose GPUs are all cut
		// alike, so either form is a node with the model.
		if in.Partition != nil && in.DRA {
			products.Values = append(slices.Clone(a.GFDProducts), a.GFDMIGProducts(*in.Partition)...)
		}
		// products already names the plain (unpartitioned) product.
		term := append([]LabelRequirement{products}, wholeGPUModelExclusions(in, a, true)...)
		p.AcceleratorTerms = append(p.AcceleratorTerms, term)
	}
	p.excludedValues = append(wholeGPUNodeExclusions(in), anyModelExclusions(in)...)
	selectSharingStrategy(in, &p)
	if in.Sharing != "" {
		if in.MaxSharedClients > 0 {
			p.NodeSelector[LabelGPUReplicas] = strconv.FormatInt(in.MaxSharedClients, 10)
		}
	}
	return p
}

func (genericProfile) PoolNotes(_ spec.PoolPolicy, pi PoolIntent, diags *gpudiag.Diagnostics) {
	if pi.Spot {
		diags.AddWarning(gpudiag.At("spot"), "spot has no effect on generic clusters",
			"Generic clusters have no standard label or taint for spot capacity, so spot = true changes nothing. "+
				"Allowed: remove spot; it selects capacity on "+gpudiag.QuoteList(slices.DeleteFunc(PoolNames(), func(c string) bool { return c == string(spec.CloudGeneric) }))+".")
	}
}

// poolLabels: on a GPU Operator cluster, the operator and GPU Feature
// Discovery label the nodes (docs/design/nvidia.md#gpu-feature-discovery-labels):
// GFD's labels of the pool's GPUs, MIG layout and sharing (gfdPoolLabels;
// a DRA MIG pool's under the GPU Operator's default strategy, its
// label choices give the others).
func (genericProfile) poolLabels(pi PoolIntent, _, set map[string]string) {
	set[LabelGPUPresent] = "true"
	maps.Copy(set, gfdPoolLabels(pi))
}

// poolIdentity: no label names a generic node's pool, so GPU Feature
// Discovery's labels tell pools apart (gfdIdentity).
func (genericProfile) poolIdentity(pi PoolIntent, toAdd, cloudSet map[string]string) map[string]string {
	return gfdIdentity(pi, toAdd, cloudSet)
}

// selectsSharedClients: GFD's nvidia.com/gpu.replicas covers nvidia.com/gpu
// only, not MIG resources.
// labelGFDClique is GPU Feature Discovery's NVLink domain of a node
// (<ClusterUUID>.<CliqueID>), set on fabric-attached GPUs such as GB200 and
// GB300 NVL72 trays (docs/design/topology.md §3).
const labelGFDClique = LabelGFDClique

// LabelGFDClique is exported for the NVLink domain checks of gpu_workload.
const LabelGFDClique = "nvidia.com/gpu.clique"

// topologyLevels: a GPU Operator cluster has no standard network labels, so
// nothing is a default; "clique" names GFD's NVLink domain for NVL72 pools.
func (genericProfile) topologyLevels() []TopologyLevel {
	return []TopologyLevel{{Name: "clique", NodeLabel: labelGFDClique}}
}

func (genericProfile) selectsSharedClients(pi PoolIntent) bool { return !pi.HasMIG() }

func (genericProfile) Classify(n *corev1.Node) (NodeClass, bool) {
	l := n.Labels
	if l[LabelGFDProduct] == "" && l[LabelGPUPresent] != "true" {
		return NodeClass{}, false
	}
	return NodeClass{Cloud: spec.CloudGeneric, Key: genericPoolKey(l), Product: l[LabelGFDProduct]}, true
}

func (genericProfile) MarksGPUNode(l map[string]string) bool {
	return l[LabelGPUPresent] == "true" || l[LabelGFDProduct] != ""
}

// genericPoolKey groups GPU Operator nodes by model and configuration.
func genericPoolKey(l map[string]string) string {
	parts := []string{"generic", cmp.Or(l[LabelGFDProduct], "unknown-gpu")}
	if cfg := l[spec.LabelMIGConfig]; cfg != "" && cfg != spec.MIGConfigDisabled {
		parts = append(parts, "mig-"+cfg)
	}
	if s := l[LabelSharingStrategy]; s != "" && s != "none" {
		parts = append(parts, s+"-"+cmp.Or(l[LabelGPUReplicas], "0"))
	}
	return strings.Join(parts, "/")
}
