package clouds

import (
	"cmp"
	"math"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// PoolTaint is a taint the pool's nodes carry and who puts it there.
type PoolTaint struct {
	Taint corev1.Taint
	// byCloud: the cloud adds it; a node-pool shape must not repeat it
	// (except AKS spot, see aksProfile.nodePoolShape).
	byCloud bool
	// Because explains, for Details, why the pool has it.
	Because string
}

// DerivedPoolTaints are the taints the pool adds (or the cloud adds) from
// dedicated, spot and the cloud, before the user's own taints.
func DerivedPoolTaints(pi PoolIntent) []PoolTaint {
	return pi.Cloud.poolTaints(pi)
}

func noScheduleTaint(key, value string) corev1.Taint {
	return corev1.Taint{Key: key, Value: value, Effect: corev1.TaintEffectNoSchedule}
}

// PoolTaints is every taint of the pool: derived first, then the user's, in
// the order given (node-pool taint lists are ordered in Terraform).
func PoolTaints(pi PoolIntent) []PoolTaint {
	out := DerivedPoolTaints(pi)
	for _, t := range pi.Taints {
		out = append(out, PoolTaint{Taint: corev1.Taint{Key: t.Key, Value: t.Value, Effect: corev1.TaintEffect(t.Effect)}})
	}
	return out
}

// DerivedPoolLabels computes, from everything but the user's labels, the
// labels someone must add to the nodes (toAdd) and those the cloud or the
// GPU Operator set themselves (cloudSet). pool.Render publishes both;
// validation uses the keys to reject user labels that would fight them.
func DerivedPoolLabels(pi PoolIntent) (toAdd, cloudSet map[string]string) {
	toAdd, cloudSet = map[string]string{}, map[string]string{}
	pi.Cloud.poolLabels(pi, toAdd, cloudSet)
	operatorLabels(pi, toAdd, cloudSet)
	draLabels(pi, toAdd, cloudSet)
	return toAdd, cloudSet
}

// operatorLabels are the GPU Operator's per-node selectors (every cloud but
// GKE, which partitions and shares natively, and EKS Auto Mode, whose
// device plugin AWS manages), plus the GFD labels placement selects on:
// the sharing strategy and the "single" MIG product name.
func operatorLabels(pi PoolIntent, toAdd, set map[string]string) {
	if !pi.usesGPUOperator() {
		return
	}
	if layout := pi.MIGConfig(); layout != "" {
		toAdd[spec.LabelMIGConfig] = layout
	}
	if pi.NeedsDevicePluginConfig() {
		toAdd[spec.LabelDevicePluginConfig] = pi.Name
	}
	// GFD labels every node with the device plugin's sharing strategy;
	// shared placement selects it (selectSharingStrategy).
	gfd := gfdPoolLabels(pi)
	set[LabelSharingStrategy] = cmp.Or(gfd[LabelSharingStrategy], sharingStrategyValue(pi.Sharing))
	// A device-plugin pool's "single" MIG product, which its workloads
	// select (devicePluginMIGRequirement).
	if pi.HasMIG() && pi.MIGStrategy == spec.MIGStrategySingle && gfd[LabelGFDProduct] != "" {
		set[LabelGFDProduct] = gfd[LabelGFDProduct]
	}
}

// MIGConfig is the nvidia.com/mig.config value: the layout for MIG pools,
// and "all-disabled" for whole-GPU pools of MIG-capable models, so a
// cluster-wide default layout (migManager.config.default) cannot cut the
// GPUs of a pool whose workloads expect whole ones.
func (pi PoolIntent) MIGConfig() string {
	switch {
	case !pi.usesGPUOperator() || pi.Accel == nil || !pi.Accel.OffersMIG():
		return ""
	case pi.HasMIG():
		return pi.Layout
	default:
		return spec.MIGConfigDisabled
	}
}

// layoutSelector is the node label a MIG pool's workloads select its
// layout by, where the GPU Operator's mig-manager cuts the GPUs: the
// pool's nvidia.com/mig.config (device plugin and DRA alike). GFD's
// product and resource names say only the profile, which another pool's
// layout (a custom one, or all-balanced) may also hold. GKE names its
// partition in its own label, which its placement already selects
// (gkeProfile.Place); clouds that cannot cut GPUs have no layout. nil for
// whole GPUs.
func layoutSelector(pi PoolIntent) map[string]string {
	if !pi.HasMIG() {
		return nil
	}
	if layout := pi.MIGConfig(); layout != "" {
		return map[string]string{spec.LabelMIGConfig: layout}
	}
	return nil
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

// MulSat and AddSat saturate instead of overflowing: replicas is a user
// int64 and a silently negative capacity would be worse than a huge one.
func MulSat(a, b int64) int64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	if a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}

func AddSat(a, b int64) int64 {
	switch {
	case b > 0 && a > math.MaxInt64-b:
		return math.MaxInt64
	case b < 0 && a < math.MinInt64-b:
		return math.MinInt64
	}
	return a + b
}

// KubectlTaint is the "key=value:Effect" form (kubectl taint, AKS
// --node-taints, azurerm node_taints); "key:Effect" without a value.
func KubectlTaint(t corev1.Taint) string {
	if t.Value == "" {
		return t.Key + ":" + string(t.Effect)
	}
	return t.Key + "=" + t.Value + ":" + string(t.Effect)
}

// cloudTaints converts the taints a node-pool API must be given (not those
// the cloud adds itself) to the GKE/EKS enum form.
func cloudTaints(taints []PoolTaint) []spec.CloudTaint {
	var out []spec.CloudTaint
	for _, t := range taints {
		if t.byCloud {
			continue
		}
		out = append(out, spec.CloudTaint{Key: t.Taint.Key, Value: t.Taint.Value, Effect: cloudTaintEffect(t.Taint.Effect)})
	}
	return out
}

func TaintList(taints []PoolTaint) []corev1.Taint {
	var out []corev1.Taint
	for _, t := range taints {
		out = append(out, t.Taint)
	}
	return out
}

func cloudTaintEffect(e corev1.TaintEffect) string {
	switch e {
	case corev1.TaintEffectNoSchedule:
		return "NO_SCHEDULE"
	case corev1.TaintEffectPreferNoSchedule:
		return "PREFER_NO_SCHEDULE"
	case corev1.TaintEffectNoExecute:
		return "NO_EXECUTE"
	}
	return string(e)
}
