package render

import (
	corev1 "k8s.io/api/core/v1"
)

// poolTaint is a taint the pool's nodes carry and who puts it there.
type poolTaint struct {
	taint corev1.Taint
	// byCloud: the cloud adds it; a node-pool shape must not repeat it
	// (except AKS spot, see aksProfile.nodePoolShape).
	byCloud bool
	// because explains, for Details, why the pool has it.
	because string
}

// derivedPoolTaints are the taints the pool adds (or the cloud adds) from
// dedicated, spot and the cloud, before the user's own taints.
func derivedPoolTaints(pi poolIntent) []poolTaint {
	return rulesFor(pi.cloud).poolTaints(pi)
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
	rulesFor(pi.cloud).poolLabels(pi, toAdd, cloudSet)
	operatorLabels(pi, toAdd, cloudSet)
	return toAdd, cloudSet
}

// operatorLabels are the GPU Operator's per-node selectors (every cloud but
// GKE, which partitions and shares natively, and EKS Auto Mode, whose
// device plugin AWS manages), plus the GFD labels placement selects on:
// the sharing strategy and the "single" MIG product name.
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
	// GFD labels every node with the device plugin's sharing strategy;
	// shared placement selects it (selectSharingStrategy).
	set[labelSharingStrategy] = sharingStrategyValue(pi.sharing)
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

// sharingStrategyValue is GFD's sharing-strategy value: the strategy, or "none".
func sharingStrategyValue(sharing string) string {
	if sharing == "" {
		return "none"
	}
	return sharing
}
