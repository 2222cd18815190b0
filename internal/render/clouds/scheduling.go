package clouds

import (
	"cmp"
	"maps"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// Extended resources advertised by the NVIDIA device plugin.
const (
	ResourceNvidiaGPU corev1.ResourceName = "nvidia.com/gpu"
	// ResourceNvidiaGPUShared is what the device plugin advertises for
	// time-sliced or MPS GPUs when its sharing config sets renameByDefault:
	// true. We require the renamed resource outside GKE because it makes a
	// shared slot impossible to confuse with a whole GPU: a pod asking for it
	// can only land on a node configured for sharing.
	ResourceNvidiaGPUShared corev1.ResourceName = "nvidia.com/gpu.shared"
)

// Node labels used by more than one cloud profile.
const (
	// LabelGFDProduct is set by GPU Feature Discovery (GPU Operator).
	LabelGFDProduct = "nvidia.com/gpu.product"
	// LabelGPUPresent is set by the GPU Operator on nodes with NVIDIA GPUs.
	LabelGPUPresent = "nvidia.com/gpu.present"
	// LabelInstanceType is the well-known Kubernetes label.
	LabelInstanceType = "node.kubernetes.io/instance-type"
)

// TolerateGPUTaint tolerates the nvidia.com/gpu:NoSchedule taint whatever
// its value. GKE uses value "present", EKS node groups commonly "true",
// Karpenter NodePools anything: Exists matches them all.
func TolerateGPUTaint() corev1.Toleration {
	return TolerateExists(string(ResourceNvidiaGPU))
}

func TolerateExists(key string) corev1.Toleration {
	return corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
}

func TolerateEqual(key, value string) corev1.Toleration {
	return corev1.Toleration{Key: key, Operator: corev1.TolerationOpEqual, Value: value, Effect: corev1.TaintEffectNoSchedule}
}

// devicePluginMIGRequirement is the node requirement for the NVIDIA device
// plugin's "single" MIG strategy, used by every cloud except GKE: all GPUs on
// the node are cut into the same profile and GFD rewrites gpu.product to the
// MIG form. (Under "mixed" the resource name alone selects the profile.)
func devicePluginMIGRequirement(a *catalog.Accelerator, profile catalog.MIGProfile) LabelRequirement {
	return LabelRequirement{Key: LabelGFDProduct, Values: a.GFDMIGProducts(profile)}
}

// devicePluginPlacement is the placement on a cluster running the NVIDIA
// device plugin: its resource names and one term per accelerator from the
// cloud's own label requirements (cloudTerm). A "single" strategy MIG
// request also selects GFD's MIG product name on its first choice, the
// model the partition was resolved against. Where the cluster may partition
// or share GPUs (partitionable), a whole-GPU request excludes such nodes
// (wholeGPUModelExclusions, wholeGPUNodeExclusions).
func devicePluginPlacement(in GPUIntent, partitionable bool, cloudTerm func(a *catalog.Accelerator) []LabelRequirement) Placement {
	p := NewPlacement(DevicePluginResource(in))
	for i, a := range in.Accelerators {
		term := cloudTerm(a)
		if i == 0 && in.Partition != nil && in.MIGStrategy == spec.MIGStrategySingle {
			term = append(term, devicePluginMIGRequirement(a, *in.Partition))
		}
		if partitionable {
			term = append(term, wholeGPUModelExclusions(in, a, false)...)
		}
		p.AcceleratorTerms = append(p.AcceleratorTerms, term)
	}
	if partitionable {
		p.excludedValues = append(wholeGPUNodeExclusions(in), anyModelExclusions(in)...)
		selectSharingStrategy(in, &p)
	}
	return p
}

// selectSharingStrategy keeps a shared pod on nodes sharing GPUs its way:
// time-slicing and MPS both advertise nvidia.com/gpu.shared, so only GFD's
// nvidia.com/gpu.sharing-strategy label (the device plugin's own names)
// tells a time-sliced node from an MPS one.
func selectSharingStrategy(in GPUIntent, p *Placement) {
	if in.Sharing != "" {
		p.NodeSelector[LabelSharingStrategy] = in.Sharing
	}
}

// DevicePluginResource is the resource to request from the NVIDIA device
// plugin for an intent (every cloud except GKE, which has its own plugin).
func DevicePluginResource(in GPUIntent) corev1.ResourceName {
	switch {
	case in.Partition != nil && in.MIGStrategy == spec.MIGStrategyMixed:
		return corev1.ResourceName(in.Partition.MixedResourceName())
	case in.Sharing != "":
		return ResourceNvidiaGPUShared
	default:
		return ResourceNvidiaGPU
	}
}

// NodeScheduling turns a placement into pod nodeSelector and node affinity.
//
// The rule, applied the same way on every cloud: a constraint with exactly one
// acceptable value goes into nodeSelector; a constraint with several values
// (PCIe and SXM product names, several VM sizes, a preference list) goes into
// requiredDuringScheduling node affinity. nodeSelector is the form every
// autoscaler and admission webhook understands (GKE Autopilot documents GPU
// selection with it) and it reads best in a plan diff; affinity is used only
// where nodeSelector cannot express the constraint. A label key never appears
// in both.
func NodeScheduling(p Placement) (map[string]string, *corev1.Affinity) {
	p.NodeSelector = maps.Clone(p.NodeSelector)
	return NodeSchedulingOwned(p)
}

// NodeSchedulingOwned is NodeScheduling for a caller that owns p (fresh
// from Place, see Profile) and drops it afterwards: the nodeSelector it
// returns is p.NodeSelector itself, completed, instead of a copy.
func NodeSchedulingOwned(p Placement) (map[string]string, *corev1.Affinity) {
	selector := p.NodeSelector
	if selector == nil {
		selector = map[string]string{}
	}
	var affinity *corev1.Affinity
	switch len(p.AcceleratorTerms) {
	case 0:
	case 1:
		var expressions []corev1.NodeSelectorRequirement
		for _, r := range p.AcceleratorTerms[0] {
			if len(r.Values) == 1 && !r.notIn {
				selector[r.Key] = r.Values[0]
				continue
			}
			expressions = append(expressions, r.expression())
		}
		if len(expressions) > 0 {
			affinity = RequiredAffinity([]corev1.NodeSelectorTerm{{MatchExpressions: expressions}})
		}
	default:
		affinity = RequiredAffinity(requiredTerms(p.AcceleratorTerms))
		affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution = preferredTerms(p.AcceleratorTerms)
	}
	affinity = requireAll(affinity, exclusions(p))
	if len(selector) == 0 {
		selector = nil
	}
	return selector, affinity
}

// exclusions are the placement's "must not carry" requirements:
// DoesNotExist for absentLabels, NotIn for excludedValues.
func exclusions(p Placement) []corev1.NodeSelectorRequirement {
	var out []corev1.NodeSelectorRequirement
	for _, l := range p.AbsentLabels {
		out = append(out, corev1.NodeSelectorRequirement{Key: l, Operator: corev1.NodeSelectorOpDoesNotExist})
	}
	for _, r := range p.excludedValues {
		out = append(out, r.expression())
	}
	return out
}

// requireAll ANDs requirements into every required node selector term
// (terms are ORed, so each needs them), creating the affinity if needed.
func requireAll(affinity *corev1.Affinity, reqs []corev1.NodeSelectorRequirement) *corev1.Affinity {
	if len(reqs) == 0 {
		return affinity
	}
	if affinity == nil {
		return RequiredAffinity([]corev1.NodeSelectorTerm{{MatchExpressions: reqs}})
	}
	required := affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	for i := range required.NodeSelectorTerms {
		required.NodeSelectorTerms[i].MatchExpressions = append(required.NodeSelectorTerms[i].MatchExpressions, slices.Clone(reqs)...)
	}
	return affinity
}

// Whole-GPU exclusions keep a whole-GPU pod off nodes of the same model
// whose GPUs are cut into MIG instances or shared, where the NVIDIA device
// plugin runs (GKE's own plugin has its own labels: gkeProfile.place). Such
// nodes carry the same cloud labels and taint, and under the "single" MIG
// strategy, or time-slicing/MPS without renameByDefault, they advertise
// their slices as nvidia.com/gpu, so the pod would get a slice. What marks
// them (docs/design/nvidia.md):
//   - nvidia.com/gpu.product: GFD appends -MIG-<profile> under "single".
//     (GFD also appends -SHARED to a shared GPU whose resource keeps its
//     name; the sharing-strategy label, set by the same GFD, marks it too.)
//   - nvidia.com/mig.config: the mig-manager layout pools put on MIG nodes
//     (all-<profile>, all-balanced); whole-GPU pools carry all-disabled.
//   - nvidia.com/gpu.sharing-strategy: the device plugin's "time-slicing" or
//     "mps" ("none" when unshared).
//
// Every requirement is NotIn, so unpartitioned nodes without these labels
// (GFD not running yet, or not at all) still fit.

// wholeGPUModelExclusions are the per-model exclusions, ANDed into the
// model's own placement term. productSelected skips gpu.product when the
// term already selects the plain product names (generic).
func wholeGPUModelExclusions(in GPUIntent, a *catalog.Accelerator, productSelected bool) []LabelRequirement {
	if !exclusiveGPUs(in) || !a.OffersMIG() {
		return nil
	}
	v := modelExclusionValuesFor(a)
	layouts := LabelRequirement{Key: spec.LabelMIGConfig, Values: v.layouts, notIn: true}
	if productSelected {
		return []LabelRequirement{layouts}
	}
	return []LabelRequirement{{Key: LabelGFDProduct, Values: v.products, notIn: true}, layouts}
}

// modelExclusionValues are the values wholeGPUModelExclusions excludes for
// one MIG-capable model: GFD's "single" MIG product names and the
// mig-manager layouts.
type modelExclusionValues struct{ products, layouts []string }

// catalogExclusionValues holds modelExclusionValues of every MIG-capable
// catalog entry. They follow from the catalog alone, so they are computed
// once instead of on every placement; requirements share them read-only
// (see LabelRequirement).
var catalogExclusionValues = sync.OnceValue(func() map[*catalog.Accelerator]modelExclusionValues {
	out := make(map[*catalog.Accelerator]modelExclusionValues, len(catalog.Table))
	for i := range catalog.Table {
		if a := &catalog.Table[i]; a.OffersMIG() {
			out[a] = exclusionValuesOf(a)
		}
	}
	return out
})

// modelExclusionValuesFor is the precomputed answer for a catalog entry,
// computed afresh for any other Accelerator (a copy someone may have
// edited).
func modelExclusionValuesFor(a *catalog.Accelerator) modelExclusionValues {
	if v, ok := catalogExclusionValues()[a]; ok {
		return v
	}
	return exclusionValuesOf(a)
}

func exclusionValuesOf(a *catalog.Accelerator) modelExclusionValues {
	var v modelExclusionValues
	for _, profile := range a.MIGProfiles {
		v.products = append(v.products, a.GFDMIGProducts(profile)...)
		v.layouts = append(v.layouts, MIGLayoutPrefix+profile.Name)
	}
	if _, ok := MIGBalanced[a.Name]; ok {
		v.layouts = append(v.layouts, spec.PartitionAllBalanced)
	}
	// Clipped, so an append to a shared slice copies instead of writing
	// into another placement's values.
	return modelExclusionValues{products: slices.Clip(v.products), layouts: slices.Clip(v.layouts)}
}

// anyModelExclusions keep a whole-GPU pod that names no accelerator off
// the MIG nodes of every model in the catalog: with no model term to AND
// the per-model exclusions into, they hold for the whole pod.
func anyModelExclusions(in GPUIntent) []LabelRequirement {
	if len(in.Accelerators) > 0 || !exclusiveGPUs(in) {
		return nil
	}
	products := LabelRequirement{Key: LabelGFDProduct, notIn: true}
	layouts := LabelRequirement{Key: spec.LabelMIGConfig, notIn: true}
	for i := range catalog.Table {
		for _, r := range wholeGPUModelExclusions(in, &catalog.Table[i], false) {
			if r.Key == LabelGFDProduct {
				products.Values = append(products.Values, r.Values...)
			} else {
				layouts.Values = append(layouts.Values, r.Values...)
			}
		}
	}
	if len(products.Values) == 0 {
		return nil
	}
	slices.Sort(layouts.Values)
	layouts.Values = slices.Compact(layouts.Values)
	return []LabelRequirement{products, layouts}
}

// sharedNodeStrategies are the sharing strategies wholeGPUNodeExclusions
// excludes; shared read-only (see LabelRequirement).
var sharedNodeStrategies = []string{spec.SharingMPS, spec.SharingTimeSlicing}

// wholeGPUNodeExclusions hold for every model: no shared node.
func wholeGPUNodeExclusions(in GPUIntent) []LabelRequirement {
	if !exclusiveGPUs(in) {
		return nil
	}
	return []LabelRequirement{{Key: LabelSharingStrategy, Values: sharedNodeStrategies, notIn: true}}
}

// exclusiveGPUs: the pod asks the device plugin for whole GPUs (a DRA claim
// is allocated by the DRA driver instead).
func exclusiveGPUs(in GPUIntent) bool { return in.WholeGPUs() && !in.DRA }

func (r LabelRequirement) expression() corev1.NodeSelectorRequirement {
	op := corev1.NodeSelectorOpIn
	if r.notIn {
		op = corev1.NodeSelectorOpNotIn
	}
	return corev1.NodeSelectorRequirement{Key: r.Key, Operator: op, Values: slices.Clone(r.Values)}
}

func RequiredAffinity(terms []corev1.NodeSelectorTerm) *corev1.Affinity {
	return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms},
	}}
}

// requiredTerms accepts any of the listed accelerators. Node selector terms
// are ORed, so each accelerator gets its own term; when every accelerator is
// identified by one label key (GKE, EKS, generic without MIG) the terms
// collapse into the easier-to-read single "key In (a, b, c)".
func requiredTerms(accelerators [][]LabelRequirement) []corev1.NodeSelectorTerm {
	if key, ok := singleSharedKey(accelerators); ok {
		var values []string
		for _, term := range accelerators {
			for _, v := range term[0].Values {
				if !slices.Contains(values, v) {
					values = append(values, v)
				}
			}
		}
		return []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
			{Key: key, Operator: corev1.NodeSelectorOpIn, Values: values},
		}}}
	}
	terms := make([]corev1.NodeSelectorTerm, len(accelerators))
	for i, term := range accelerators {
		terms[i] = corev1.NodeSelectorTerm{MatchExpressions: expressions(term)}
	}
	return terms
}

func singleSharedKey(accelerators [][]LabelRequirement) (string, bool) {
	if len(accelerators) == 0 || len(accelerators[0]) != 1 || accelerators[0][0].notIn {
		return "", false
	}
	key := accelerators[0][0].Key
	for _, term := range accelerators[1:] {
		if len(term) != 1 || term[0].Key != key || term[0].notIn {
			return "", false
		}
	}
	return key, true
}

// preferredTerms makes the scheduler (and node autoscalers that honour
// preferences) pick earlier entries of a preference list first.
func preferredTerms(accelerators [][]LabelRequirement) []corev1.PreferredSchedulingTerm {
	terms := make([]corev1.PreferredSchedulingTerm, len(accelerators))
	for i, term := range accelerators {
		terms[i] = corev1.PreferredSchedulingTerm{
			Weight:     PreferenceWeight(i, len(accelerators)),
			Preference: corev1.NodeSelectorTerm{MatchExpressions: expressions(selecting(term))},
		}
	}
	return terms
}

// PreferenceWeight gives 100, 80, 60, ... and, for lists longer than five,
// a smaller step so weights stay strictly descending within 1..100.
func PreferenceWeight(index, total int) int32 {
	step := 20
	if total > 5 {
		step = 100 / total
	}
	return int32(max(100-index*step, 1))
}

// selecting drops a term's NotIn requirements: a preference only needs to
// name the model, the required terms already exclude what must not match.
func selecting(term []LabelRequirement) []LabelRequirement {
	return slices.DeleteFunc(slices.Clone(term), func(r LabelRequirement) bool { return r.notIn })
}

func expressions(term []LabelRequirement) []corev1.NodeSelectorRequirement {
	out := make([]corev1.NodeSelectorRequirement, len(term))
	for i, r := range term {
		out[i] = r.expression()
	}
	return out
}

// NormalizeTolerations removes duplicates and sorts, so the manifest is
// stable whatever order profiles appended in.
func NormalizeTolerations(in []corev1.Toleration) []corev1.Toleration {
	out := slices.Clone(in)
	slices.SortFunc(out, func(a, b corev1.Toleration) int {
		return cmp.Or(cmp.Compare(a.Key, b.Key), cmp.Compare(a.Operator, b.Operator),
			cmp.Compare(a.Value, b.Value), cmp.Compare(a.Effect, b.Effect))
	})
	return slices.CompactFunc(out, func(a, b corev1.Toleration) bool {
		return a.Key == b.Key && a.Operator == b.Operator && a.Value == b.Value && a.Effect == b.Effect
	})
}

// SetGPUQuantity writes the GPU count into limits and, identically, into
// requests. Kubernetes requires extended resources in limits and rejects a
// request that differs from the limit; writing the request explicitly matches
// what the API server would default it to, so the live object equals the
// plan.
func SetGPUQuantity(res *corev1.ResourceRequirements, name corev1.ResourceName, count int64) {
	if res.Limits == nil {
		res.Limits = corev1.ResourceList{}
	}
	if res.Requests == nil {
		res.Requests = corev1.ResourceList{}
	}
	res.Limits[name] = *resource.NewQuantity(count, resource.DecimalSI)
	res.Requests[name] = *resource.NewQuantity(count, resource.DecimalSI)
}

// OnPool adds what holds a workload to the validated pool p on top of its
// cloud's placement: the pool's own selector (PoolSelector), a toleration
// for each extra taint, and the nodes it must stay off
// (devicePluginPoolExclusions). The dedicated GPU taint and spot are
// already covered by the cloud placement (after pool.Apply).
func (p *Placement) OnPool(pool spec.PoolPolicy) {
	pi := placementIntent(pool)
	pi.Taints = pool.Taints
	p.onPool(pi)
}

func (p *Placement) onPool(pi PoolIntent) {
	if labels := PoolSelector(pi); len(labels) > 0 {
		if p.NodeSelector == nil {
			p.NodeSelector = map[string]string{}
		}
		maps.Copy(p.NodeSelector, labels)
	}
	_, tolerations := PoolExtras(nil, pi.Taints)
	p.Tolerations = append(p.Tolerations, tolerations...)
	p.excludedValues = slices.Concat(p.excludedValues, devicePluginPoolExclusions(pi))
}

// OnPoolIntent is OnPool for a pool's own rendering, which has its intent.
func (p *Placement) OnPoolIntent(pi PoolIntent) { p.onPool(pi) }

// PoolSelector is what holds a workload to the pool itself, beyond the
// model and profile its cloud placement selects: the pool's own labels, a
// DRA pool's device-plugin switch (DRAPoolSelector) and a MIG pool's
// layout (layoutSelector), so it cannot land on a node of another pool cut
// into the same profile. pool.Render and every workload on the pool take
// it from here. nil when there is nothing to add.
func PoolSelector(pi PoolIntent) map[string]string {
	selector, _ := PoolExtras(pi.Labels, nil)
	for _, extra := range []map[string]string{draSelector(pi), layoutSelector(pi), machineSelector(pi)} {
		if len(extra) > 0 && selector == nil {
			selector = map[string]string{}
		}
		maps.Copy(selector, extra)
	}
	return selector
}

// machineSelector holds workloads to the pool's machine type when
// machine_type names it: another pool of the same model may run another
// machine with another GPU network (A3 High beside A3 Mega). Without
// machine_type nothing is added, so existing pools place as before.
func machineSelector(pi PoolIntent) map[string]string {
	if !pi.MachineSet || pi.Machine == "" {
		return nil
	}
	return map[string]string{LabelInstanceType: pi.Machine}
}

func PoolExtras(labels map[string]string, taints []spec.Taint) (map[string]string, []corev1.Toleration) {
	var selector map[string]string
	if len(labels) > 0 {
		selector = maps.Clone(labels)
	}
	var tolerations []corev1.Toleration
	for _, t := range taints {
		if t.Key == "" {
			continue // an empty-key Exists toleration would tolerate every taint
		}
		tol := corev1.Toleration{Key: t.Key, Operator: corev1.TolerationOpEqual, Value: t.Value, Effect: corev1.TaintEffect(t.Effect)}
		if t.Value == "" {
			tol.Operator, tol.Value = corev1.TolerationOpExists, ""
		}
		tolerations = append(tolerations, tol)
	}
	return selector, NormalizeTolerations(tolerations)
}
