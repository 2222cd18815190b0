package render

import (
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	corev1 "k8s.io/api/core/v1"
)

// RenderPool validates p with every value final and derives the node
// labels, taints, cloud node-pool shape, device plugin config and workload
// placement. On error diagnostics it returns nil; warnings come back with
// the result.
func RenderPool(p PoolPolicy) (*PoolRendered, gpudiag.Diagnostics) {
	pi, diags := validatePool(p, true)
	if diags.HasError() {
		return nil, diags
	}
	return buildPool(p, pi), diags
}

func buildPool(p PoolPolicy, pi poolIntent) *PoolRendered {
	toAdd, cloudSet := derivedPoolLabels(pi)
	// User labels cannot collide with derived ones (checkPoolLabels).
	maps.Copy(toAdd, pi.labels)
	taints := poolTaints(pi)
	r := &PoolRendered{
		ID:               EncodePoolID(p),
		NodeLabels:       labelsOrNil(toAdd),
		CloudSetLabels:   labelsOrNil(cloudSet),
		NodeTaints:       taintList(taints),
		ResourcesPerNode: poolResources(pi),
		MIGConfig:        pi.migConfig(),
	}
	r.ResourceNames = slices.Sorted(maps.Keys(r.ResourcesPerNode))
	if len(r.ResourceNames) == 1 {
		r.ResourceName = r.ResourceNames[0]
	}
	r.NodeSelector, r.Affinity, r.Tolerations = poolScheduling(pi)
	setCloudShape(r, pi, taints)
	if pi.needsDevicePluginConfig() {
		r.DevicePluginConfigName = pi.name
		r.DevicePluginConfig = devicePluginConfig(pi)
	}
	return r
}

// poolScheduling is what a pod needs to land on the pool. It runs the
// workload code path itself (parseGPUIntent, then the cloud profile's
// place) on the gpu block ApplyPool would give a one-GPU workload, so a
// pool and the workloads placed on it cannot disagree; then it adds the
// pool's extra labels and taints (PoolPlacementExtras).
func poolScheduling(pi poolIntent) (map[string]string, *corev1.Affinity, []corev1.Toleration) {
	profile := profileFor(pi.cloud)
	if profile == nil {
		return nil, nil, nil
	}
	w := Workload{Cloud: string(pi.cloud), Spot: pi.spot, GPU: pi.workloadGPU()}
	// gpudiag.Diagnostics are dropped on purpose: validatePool has judged the pool,
	// and a shared partition (allowed for pools, warned about) is one
	// combination a workload may not ask for.
	in, _ := parseGPUIntent(w, pi.cloud, false)
	place := profile.place(in)
	selector, affinity := nodeScheduling(place)
	labels, tolerations := poolExtras(pi.labels, pi.taints)
	if len(labels) > 0 {
		if selector == nil {
			selector = map[string]string{}
		}
		maps.Copy(selector, labels)
	}
	return selector, affinity, normalizeTolerations(append(place.tolerations, tolerations...))
}

// poolResources is what one configured node advertises, per resource.
// GKE's own device plugin advertises MIG instances and shared slots as
// nvidia.com/gpu; the NVIDIA device plugin uses nvidia.com/mig-<profile>
// (mixed) and renames shared resources with ".shared" (renameByDefault).
func poolResources(pi poolIntent) map[string]int64 {
	out := map[string]int64{}
	replicas := int64(1)
	if pi.sharing != "" && pi.replicas > 0 {
		replicas = pi.replicas
	}
	cloudPlugin := rulesFor(pi.cloud).mechanism() == mechanismCloudNative
	if !pi.hasMIG() {
		name := string(ResourceNvidiaGPU)
		if pi.sharing != "" && !cloudPlugin {
			name = string(ResourceNvidiaGPUShared)
		}
		out[name] = mulSat(pi.gpus, replicas)
		return out
	}
	for _, s := range pi.cut {
		name := string(ResourceNvidiaGPU)
		if !cloudPlugin && pi.migStrategy == MIGStrategyMixed {
			name = s.profile.MixedResourceName()
		}
		if pi.sharing != "" && !cloudPlugin {
			name += sharedResourceSuffix
		}
		out[name] = addSat(out[name], mulSat(mulSat(pi.gpus, s.perGPU), replicas))
	}
	return out
}

// sharedResourceSuffix is what renameByDefault appends (k8s-device-plugin
// DefaultSharedResourceNameSuffix).
const sharedResourceSuffix = ".shared"

func poolResourceNames(pi poolIntent) []string {
	return slices.Sorted(maps.Keys(poolResources(pi)))
}

// mulSat and addSat saturate instead of overflowing: replicas is a user
// int64 and a silently negative capacity would be worse than a huge one.
func mulSat(a, b int64) int64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	if a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}

func addSat(a, b int64) int64 {
	switch {
	case b > 0 && a > math.MaxInt64-b:
		return math.MaxInt64
	case b < 0 && a < math.MinInt64-b:
		return math.MinInt64
	}
	return a + b
}

func setCloudShape(r *PoolRendered, pi poolIntent, taints []poolTaint) {
	rulesFor(pi.cloud).nodePoolShape(r, pi, taints)
}

// kubectlTaint is the "key=value:Effect" form (kubectl taint, AKS
// --node-taints, azurerm node_taints); "key:Effect" without a value.
func kubectlTaint(t corev1.Taint) string {
	if t.Value == "" {
		return t.Key + ":" + string(t.Effect)
	}
	return t.Key + "=" + t.Value + ":" + string(t.Effect)
}

// cloudTaints converts the taints a node-pool API must be given (not those
// the cloud adds itself) to the GKE/EKS enum form.
func cloudTaints(taints []poolTaint) []CloudTaint {
	var out []CloudTaint
	for _, t := range taints {
		if t.byCloud {
			continue
		}
		out = append(out, CloudTaint{Key: t.taint.Key, Value: t.taint.Value, Effect: cloudTaintEffect(t.taint.Effect)})
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

func taintList(taints []poolTaint) []corev1.Taint {
	var out []corev1.Taint
	for _, t := range taints {
		out = append(out, t.taint)
	}
	return out
}

func labelsOrNil(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return m
}

// poolRef names a pool in Details: node_pool "l4-serving" (l4 on gke).
func poolRef(pi poolIntent) string {
	s := "node_pool " + strconv.Quote(pi.name)
	if pi.accel != nil {
		s += " (" + pi.accel.Name + " on " + string(pi.cloud) + ")"
	}
	return s
}
