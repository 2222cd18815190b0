// Every rule of AKS: workloads, VM sizes, node pools, live nodes and chart
// values.
//
// Upstream sources of its labels and facts: azure-aks-docs use-labels.md
// (kubernetes.azure.com/ labels and reserved prefixes), use-nvidia-gpu.md
// (accelerator=nvidia, the sku=gpu taint convention, preinstalled driver),
// spot-node-pool.md (scalesetpriority label and taint); Azure "GPU
// optimized virtual machine sizes" (VM sizes and GPU counts); AKS node
// auto-provisioning (karpenter.azure.com/ labels).

package clouds

import (
	"cmp"
	"maps"
	"regexp"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// AKS node labels (azure-aks-docs use-labels.md, use-nvidia-gpu.md).
const (
	AKSLabelAccelerator      = "kubernetes.azure.com/accelerator"
	aksLabelScaleSetPriority = "kubernetes.azure.com/scalesetpriority"
	// aksGPUTaintKey/Value is the documented convention for GPU node pools
	// (--node-taints sku=gpu:NoSchedule). AKS does not add it by itself, but
	// tolerating a taint that is absent is harmless.
	aksGPUTaintKey   = "sku"
	aksGPUTaintValue = "gpu"

	// Labels that name the pool of an AKS node (docs/design/clouds.md): agent pools,
	// the legacy key, and node auto-provisioning (Karpenter on Azure).
	aksLabelAgentPool  = "kubernetes.azure.com/agentpool"
	aksLegacyAgentPool = "agentpool"
	aksNAPLabelGPUName = "karpenter.azure.com/sku-gpu-name"
)

// aksProfile: the GPU Operator configures MIG and sharing on AKS.
type aksProfile struct{ operatorProfile }

func (aksProfile) Offers(a *catalog.Accelerator) bool { return len(a.AKSVMSizes) > 0 }

func (aksProfile) Validate(in GPUIntent, _ bool) gpudiag.Diagnostics {
	return warnSharedClientsWithoutLabel(spec.CloudAKS, in)
}

func (aksProfile) Place(in GPUIntent) Placement {
	p := devicePluginPlacement(in, true, func(a *catalog.Accelerator) []LabelRequirement {
		return []LabelRequirement{{Key: LabelInstanceType, Values: a.AKSVMSizes}}
	})
	// AKS labels every NVIDIA GPU node with accelerator=nvidia; the VM size
	// is the only node label that identifies the model.
	p.NodeSelector[AKSLabelAccelerator] = "nvidia"
	p.Tolerations = append(p.Tolerations, TolerateEqual(aksGPUTaintKey, aksGPUTaintValue))
	if in.Spot {
		// AKS labels and taints spot pools with scalesetpriority=spot.
		p.NodeSelector[aksLabelScaleSetPriority] = "spot"
		p.Tolerations = append(p.Tolerations, TolerateEqual(aksLabelScaleSetPriority, "spot"))
	}
	return p
}

// AKSMachines lists, per catalog id, the Azure VM sizes and their GPU count
// (Azure "GPU accelerated virtual machine sizes",
// https://learn.microsoft.com/azure/virtual-machines/sizes/overview, one page
// per series: NCasT4_v3, NCv3, NDv2, NDasrA100_v4, NC_A100_v4, NDm_A100_v4,
// ND_H100_v5, ND_H200_v5, NC_H100_v5 (sizes/gpu-accelerated/ncadsh100v5-series),
// ND_GB200_v6 (nd-gb200-v6-series), NVadsA10_v5 (nvadsa10v5-series)). The
// sizes are exactly the catalog's AKSVMSizes (a test keeps them in step).
var AKSMachines = map[string][]MachineShape{
	"t4":        {{"Standard_NC4as_T4_v3", 1}, {"Standard_NC8as_T4_v3", 1}, {"Standard_NC16as_T4_v3", 1}, {"Standard_NC64as_T4_v3", 4}},
	"v100-16gb": {{"Standard_NC6s_v3", 1}, {"Standard_NC12s_v3", 2}, {"Standard_NC24s_v3", 4}, {"Standard_NC24rs_v3", 4}},
	"v100-32gb": {{"Standard_ND40rs_v2", 8}},
	"a100-40gb": {{"Standard_ND96asr_v4", 8}},
	"a100-80gb": {{"Standard_NC24ads_A100_v4", 1}, {"Standard_NC48ads_A100_v4", 2}, {"Standard_NC96ads_A100_v4", 4}, {"Standard_ND96amsr_A100_v4", 8}},
	"h100-80gb": {{"Standard_ND96isr_H100_v5", 8}},
	"h200":      {{"Standard_ND96isr_H200_v5", 8}},
	// NC H100 v5 carries the 94 GB H100 NVL (NC40ads 1, NC80adis 2); ND
	// GB200 v6 four GB200 GPUs (one VM is a four-GPU tray of the NVL72
	// rack); NVadsA10 v5 whole-GPU sizes only (NV36ads 1, NV72ads 2; the
	// smaller sizes are 1/6 to 1/2 of a GPU, see the catalog entry).
	"h100-nvl": {{"Standard_NC40ads_H100_v5", 1}, {"Standard_NC80adis_H100_v5", 2}},
	"gb200":    {{"Standard_ND128isr_NDR_GB200_v6", 4}},
	"a10":      {{"Standard_NV36ads_A10_v5", 1}, {"Standard_NV72ads_A10_v5", 2}},
}

func (aksProfile) Machines(a *catalog.Accelerator) []MachineShape {
	return catalogMachines(AKSMachines, a)
}

func (aksProfile) acceleratorForMachine(name string) *catalog.Accelerator {
	return catalogAcceleratorForMachine(AKSMachines, name)
}

// ReservedLabelDomains: azure-aks-docs use-labels.md "Reserved prefixes".
func (aksProfile) ReservedLabelDomains() []ReservedDomain {
	return []ReservedDomain{{"kubernetes.azure.com", "AKS reserves for its own node labels"}}
}

// poolLabels: AKS labels NVIDIA nodes accelerator=nvidia, and the VM size
// is the well-known instance-type label.
func (aksProfile) poolLabels(pi PoolIntent, _, set map[string]string) {
	set[AKSLabelAccelerator] = "nvidia"
	if pi.Machine != "" {
		set[LabelInstanceType] = pi.Machine
	}
	if pi.Spot {
		set[aksLabelScaleSetPriority] = "spot"
	}
}

// PoolNameLabel: AKS labels every node with its agent pool's name
// (use-labels.md); the legacy "agentpool" label carries the same.
func (aksProfile) PoolNameLabel() string { return aksLabelAgentPool }

func (a aksProfile) poolIdentity(pi PoolIntent, _, _ map[string]string) map[string]string {
	return poolNameIdentity(a.PoolNameLabel(), pi.Name)
}

// aksAgentPoolName: Linux agent pool names are lowercase letters and digits,
// start with a letter, at most 12 (azure-aks-docs "Create node pools").
var aksAgentPoolName = regexp.MustCompile(`^[a-z][a-z0-9]{0,11}$`)

// PoolNameProblem: an agent pool cannot be named like every policy.
func (aksProfile) PoolNameProblem(name string) string {
	if name == "" || aksAgentPoolName.MatchString(name) {
		return ""
	}
	return strconv.Quote(name) + " cannot name an AKS agent pool (lowercase letters and digits, starting with a letter, " +
		"at most 12), so no node can carry " + aksLabelAgentPool + "=" + name
}

// PoolNotes: a gpu_queue selects the pool's nodes by the agent pool's name.
func (a aksProfile) PoolNotes(_ spec.PoolPolicy, pi PoolIntent, diags *gpudiag.Diagnostics) {
	if problem := a.PoolNameProblem(pi.Name); problem != "" {
		diags.AddWarning(gpudiag.At("name"), "Not an AKS agent pool name", problem+
			", and a gpu_queue selects the pool's nodes by that label. Allowed: the agent pool's own name, e.g. \"gpua100\".")
	}
}

// labelChoices: several VM sizes may carry the pool's GPU count.
func (aksProfile) labelChoices(pi PoolIntent) map[string][]string {
	if pi.MachineSet {
		return nil
	}
	return machineChoices(MachinesWithGPUs(catalogMachines(AKSMachines, pi.Accel), pi.GPUs))
}

// poolTaints: the documented sku=gpu convention on dedicated pools, and
// AKS's own spot taint.
func (aksProfile) poolTaints(pi PoolIntent) []PoolTaint {
	var out []PoolTaint
	if pi.Dedicated {
		out = append(out, PoolTaint{Taint: noScheduleTaint(aksGPUTaintKey, aksGPUTaintValue), Because: "dedicated = true"})
	}
	if pi.Spot {
		out = append(out, PoolTaint{Taint: noScheduleTaint(aksLabelScaleSetPriority, "spot"), byCloud: true,
			Because: "AKS adds it to spot node pools"})
	}
	return out
}

// NodePoolShape lists every taint and the spot label even though AKS adds
// the spot ones itself: azurerm's node pool otherwise plans a replacement
// on every apply (hashicorp/terraform-provider-azurerm#25615; its docs ask
// for "the applicable node_labels and node_taints" with priority Spot).
func (aksProfile) NodePoolShape(r *spec.PoolRendered, pi PoolIntent, taints []PoolTaint) {
	np := &spec.AKSNodePool{
		VMSize:     pi.Machine,
		Priority:   "Regular",
		NodeLabels: maps.Clone(r.NodeLabels),
		InfiniBand: pi.Network != nil && pi.Network.Kind == NetworkInfiniBand,
	}
	if pi.Spot {
		np.Priority = "Spot"
		if np.NodeLabels == nil {
			np.NodeLabels = map[string]string{}
		}
		np.NodeLabels[aksLabelScaleSetPriority] = "spot"
	}
	for _, t := range taints {
		np.NodeTaints = append(np.NodeTaints, KubectlTaint(t.Taint))
	}
	if pi.DRA {
		// AKS's documented route for NVIDIA's own stack (dra.md §9.6, path
		// B): no AKS driver, no AKS-managed device plugin, the GPU Operator
		// installs the driver with its device plugin off on these nodes.
		np.GPUDriver, np.GPUManagementMode = aksGPUDriverNone, aksGPUManagementUnmanaged
	}
	r.AKS = np
}

// AKS GPU profile values of a DRA pool: gpuProfile.driver (azurerm
// gpu_driver, immutable after creation) and gpuProfile.nvidia.managementMode
// (preview; Managed would install AKS's device plugin).
const (
	aksGPUDriverNone          = "None"
	aksGPUManagementUnmanaged = "Unmanaged"
)

// Classify: agent pools, or node auto-provisioning (Karpenter on Azure).
func (aksProfile) Classify(n *corev1.Node) (NodeClass, bool) {
	l := n.Labels
	if l[aksLabelAgentPool] == "" && l[aksLegacyAgentPool] == "" && l[aksNAPLabelGPUName] == "" {
		return NodeClass{}, false
	}
	pool := cmp.Or(l[aksLabelAgentPool], l[aksLegacyAgentPool])
	if pool == "" {
		pool = "nap-" + cmp.Or(l[karpenterLabelNodePool], l[aksNAPLabelGPUName])
	}
	c := NodeClass{Cloud: spec.CloudAKS, Key: "aks/" + pool, Product: l[LabelInstanceType]}
	if size := l[LabelInstanceType]; size != "" {
		for i := range catalog.Table {
			if slices.Contains(catalog.Table[i].AKSVMSizes, size) {
				c.Accel = &catalog.Table[i]
			}
		}
	}
	return c, true
}

func (aksProfile) MarksGPUNode(l map[string]string) bool {
	return l[AKSLabelAccelerator] == "nvidia" || positive(l["karpenter.azure.com/sku-gpu-count"])
}

// DriverPreinstalled: AKS GPU node pools come with the driver
// (use-nvidia-gpu.md, docs/design/clouds.md#aks).
func (aksProfile) DriverPreinstalled() bool { return true }
