package render

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
)

// Conventional dedicated-GPU taints (domain.md §5, §8.6). Workload placement
// already tolerates each of them, so a dedicated pool needs nothing extra.
const (
	// gkeGPUTaintValue: GKE itself taints GPU pools nvidia.com/gpu=present
	// when the cluster also has non-GPU pools.
	gkeGPUTaintValue = "present"
	// awsGPUTaintValue: EKS node groups, Karpenter and EKS Auto Mode
	// NodePools, and GPU Operator clusters have no GPU taint of their own;
	// nvidia.com/gpu=true:NoSchedule is the common convention (it matches
	// the tolerations the GPU Operator's daemonsets carry: key nvidia.com/gpu,
	// operator Exists).
	awsGPUTaintValue = "true"
)

// poolTaint is a taint the pool's nodes carry and who puts it there.
type poolTaint struct {
	taint corev1.Taint
	// byCloud: the cloud adds it; a node-pool shape must not repeat it
	// (except AKS spot, see aksNodePool).
	byCloud bool
	// because explains, for Details, why the pool has it.
	because string
}

// derivedPoolTaints are the taints the pool adds (or the cloud adds) from
// dedicated, spot and the cloud, before the user's own taints.
func derivedPoolTaints(pi poolIntent) []poolTaint {
	var out []poolTaint
	gpuTaint := func(value, because string, byCloud bool) poolTaint {
		return poolTaint{taint: noScheduleTaint(string(ResourceNvidiaGPU), value), byCloud: byCloud, because: because}
	}
	switch pi.cloud {
	case CloudGKE:
		// Present whatever dedicated says: GKE adds it on its own (only
		// tolerating pods land), and rejects a second nvidia.com/gpu taint.
		out = append(out, gpuTaint(gkeGPUTaintValue, "GKE adds it to GPU node pools", true))
	case CloudAKS:
		if pi.dedicated {
			out = append(out, poolTaint{taint: noScheduleTaint(aksGPUTaintKey, aksGPUTaintValue), because: "dedicated = true"})
		}
		if pi.spot {
			out = append(out, poolTaint{taint: noScheduleTaint(aksLabelScaleSetPriority, "spot"), byCloud: true,
				because: "AKS adds it to spot node pools"})
		}
	case CloudEKS, CloudEKSAuto, CloudKarpenter, CloudGeneric:
		if pi.dedicated {
			out = append(out, gpuTaint(awsGPUTaintValue, "dedicated = true", false))
		}
	}
	return out
}

func noScheduleTaint(key, value string) corev1.Taint {
	return corev1.Taint{Key: key, Value: value, Effect: corev1.TaintEffectNoSchedule}
}

// poolTaints is every taint of the pool: derived first, then the user's, in
// the order given (node-pool taint lists are ordered in Terraform).
func poolTaints(pi poolIntent) []poolTaint {
	out := derivedPoolTaints(pi)
	for _, t := range pi.taints {
		out = append(out, poolTaint{taint: corev1.Taint{Key: t.Key, Value: t.Value, Effect: corev1.TaintEffect(t.Effect)}})
	}
	return out
}

// derivedPoolLabels computes, from everything but the user's labels, the
// labels someone must add to the nodes (toAdd) and those the cloud or the
// GPU Operator set themselves (cloudSet). RenderPool publishes both;
// validation uses the keys to reject user labels that would fight them.
func derivedPoolLabels(pi poolIntent) (toAdd, cloudSet map[string]string) {
	toAdd, cloudSet = map[string]string{}, map[string]string{}
	switch pi.cloud {
	case CloudGKE:
		gkeCloudLabels(pi, cloudSet)
	case CloudAKS:
		aksCloudLabels(pi, cloudSet)
	case CloudEKS:
		eksPoolLabels(pi, toAdd, cloudSet)
	case CloudEKSAuto, CloudKarpenter:
		karpenterCloudLabels(pi, cloudSet)
	case CloudGeneric:
		genericCloudLabels(pi, cloudSet)
	}
	operatorLabels(pi, toAdd, cloudSet)
	return toAdd, cloudSet
}

// gkeCloudLabels: GKE labels GPU nodes from the node pool's
// guest_accelerator, spot and driver settings; nothing needs adding.
func gkeCloudLabels(pi poolIntent, set map[string]string) {
	if v := gkePoolAccelerator(pi.accel); v != "" {
		set[gkeLabelAccelerator] = v
	}
	// gke-accelerator-count is left out: only Autopilot nodes are documented
	// to carry it (domain.md §5.1), and Standard placement never needs it.
	set["cloud.google.com/gke-gpu-driver-version"] = "latest"
	if pi.hasMIG() {
		set[gkeLabelPartitionSize] = pi.cut[0].profile.Name
	}
	if pi.sharing != "" {
		set[gkeLabelSharingStrategy] = gkeSharingStrategy(pi.sharing)
		if pi.replicas > 0 {
			set[gkeLabelMaxSharedClients] = strconv.FormatInt(pi.replicas, 10)
		}
	}
	if pi.spot {
		set[gkeLabelSpot] = "true"
	}
}

// aksCloudLabels: AKS labels NVIDIA nodes accelerator=nvidia, and the VM
// size is the well-known instance-type label.
func aksCloudLabels(pi poolIntent, set map[string]string) {
	set[aksLabelAccelerator] = "nvidia"
	if size := firstValue(machinesWithGPUs(machinesFor(CloudAKS, pi.accel), pi.gpus)); size != "" {
		set[labelInstanceType] = size
	}
	if pi.spot {
		set[aksLabelScaleSetPriority] = "spot"
	}
}

// eksPoolLabels: EKS sets the capacity type on managed node group nodes,
// but nobody sets the cluster-autoscaler accelerator label workloads select
// on: the node group must carry it.
func eksPoolLabels(pi poolIntent, toAdd, set map[string]string) {
	if pi.accel != nil {
		toAdd[eksLabelAccelerator] = pi.accel.EKSAccelerator
	}
	set[eksLabelCapacityType] = "ON_DEMAND"
	if pi.spot {
		set[eksLabelCapacityType] = "SPOT"
	}
	if t := firstValue(machinesWithGPUs(machinesFor(CloudEKS, pi.accel), pi.gpus)); t != "" {
		set[labelInstanceType] = t
	}
}

// karpenterCloudLabels: Karpenter and EKS Auto Mode label nodes from EC2
// instance data, which is why the NodePool selects on these keys.
func karpenterCloudLabels(pi poolIntent, set map[string]string) {
	prefix := karpenterLabelPrefix(pi.cloud)
	if pi.accel != nil {
		set[prefix+"instance-gpu-name"] = pi.accel.AWSGPUName
		if pi.accel.AWSGPUMemoryMiB > 0 {
			set[prefix+"instance-gpu-memory"] = strconv.FormatInt(pi.accel.AWSGPUMemoryMiB, 10)
		}
	}
	if pi.gpus > 0 {
		set[prefix+"instance-gpu-count"] = strconv.FormatInt(pi.gpus, 10)
	}
	set[karpenterLabelCapacityType] = "on-demand"
	if pi.spot {
		set[karpenterLabelCapacityType] = "spot"
	}
	if pi.name != "" {
		set[karpenterLabelNodePool] = pi.name
	}
}

// karpenterLabelNodePool is set by Karpenter (and EKS Auto Mode) to the
// NodePool name.
const karpenterLabelNodePool = "karpenter.sh/nodepool"

func karpenterLabelPrefix(c Cloud) string {
	if c == CloudEKSAuto {
		return "eks.amazonaws.com/"
	}
	return "karpenter.k8s.aws/"
}

// genericCloudLabels: on a GPU Operator cluster, the operator and GPU
// Feature Discovery label the nodes (domain.md §4.3).
func genericCloudLabels(pi poolIntent, set map[string]string) {
	set[labelGPUPresent] = "true"
	if pi.accel != nil && len(pi.accel.GFDProducts) > 0 {
		set[labelGFDProduct] = pi.accel.GFDProducts[0]
	}
	if pi.gpus > 0 {
		set["nvidia.com/gpu.count"] = strconv.FormatInt(pi.gpus, 10)
	}
	set[labelSharingStrategy] = "none"
	if pi.sharing != "" {
		set[labelSharingStrategy] = pi.sharing
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

// operatorLabels are the GPU Operator's per-node selectors (every cloud but
// GKE, which partitions and shares natively, and EKS Auto Mode, whose
// device plugin AWS manages), plus the GFD product label that "single"
// MIG placement selects on.
func operatorLabels(pi poolIntent, toAdd, set map[string]string) {
	if !pi.usesGPUOperator() {
		return
	}
	if layout := pi.migConfig(); layout != "" {
		toAdd[LabelMIGConfig] = layout
	}
	if pi.needsDevicePluginConfig() {
		toAdd[LabelDevicePluginConfig] = pi.name
	}
	if pi.hasMIG() && pi.migStrategy == MIGStrategySingle && pi.accel != nil {
		if products := pi.accel.GFDMIGProducts(pi.cut[0].profile); len(products) > 0 {
			set[labelGFDProduct] = products[0]
		}
	}
}

// migConfig is the nvidia.com/mig.config value: the layout for MIG pools,
// and "all-disabled" for whole-GPU pools of MIG-capable models, so a
// cluster-wide default layout (migManager.config.default) cannot cut the
// GPUs of a pool whose workloads expect whole ones.
func (pi poolIntent) migConfig() string {
	switch {
	case !pi.usesGPUOperator() || pi.accel == nil || !pi.accel.OffersMIG():
		return ""
	case pi.hasMIG():
		return pi.layout
	default:
		return MIGConfigDisabled
	}
}

func firstValue(values []string) string {
	if len(values) == 0 {
		return ""
	}
	return values[0]
}
