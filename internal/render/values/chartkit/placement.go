package chartkit

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// PlaceholderImage stands in for the container image in the pods the
// preview builds for a chart (pods.go): a pod needs an image, and the
// chart chooses its own.
const PlaceholderImage = "registry.k8s.io/pause:3.10"

// valuesWorkloadName names the GPU request when the target has no name of
// its own; it only shows in DRA claim template names.
const valuesWorkloadName = "values"

// GPURequest is one GPU container inside a values target: a FiftyOne
// deployment or job template, a Numaflow UDF. It is the container a
// gpu_workload has (workload.Container), so the workload's rules and their
// diagnostic paths (gpu.count, cpu, env["X"]) apply unchanged and only need
// the block's path in front. Name may be "" (valuesWorkloadName); the kit
// sets KeepUnsized itself.
type GPURequest = workload.Container

// ValuesPlacement is workload.PlacePod's answer for one GPU container, in the pieces
// a chart's values are made of.
type ValuesPlacement struct {
	NodeSelector map[string]string
	Affinity     *corev1.Affinity
	Tolerations  []corev1.Toleration
	resourceName string // "" with DRA
	// Resources holds the GPU limit and equal request (or the DRA claim),
	// and CPU/memory only when the request set cpu, memory or size.
	Resources corev1.ResourceRequirements
	// Env is the cloud's driver environment (GKE LD_LIBRARY_PATH) under the
	// request's own env.
	Env     map[string]string
	HostIPC bool
	// Claims and claimTemplate are set with DRA: the pod's resourceClaims
	// and the ResourceClaimTemplate they reference.
	Claims        []corev1.PodResourceClaim
	ClaimTemplate workload.Object
	// draCount is the devices the claim asks, for RequestExtendedResource.
	draCount int64
	// Network is the pool's GPU network for the pod, set only by the
	// provider's placement functions for a request of several pods
	// (docs/design/gpu-networks.md#workloads); chart values never get it.
	Network *clouds.NetworkPod
}

// AddPodPlacement writes the pod-level part of p into values in the
// Kubernetes shape charts take (nodeSelector, tolerations, affinity), each
// only when it has something: a chart's own default stays otherwise.
func (p ValuesPlacement) AddPodPlacement(values map[string]any) {
	if len(p.NodeSelector) > 0 {
		values["nodeSelector"] = StringMapValue(p.NodeSelector)
	}
	if len(p.Tolerations) > 0 {
		values["tolerations"] = PlainOrNil(p.Tolerations)
	}
	if p.Affinity != nil {
		values["affinity"] = PlainOrNil(p.Affinity)
	}
}

// asContainer is the request as placed: named (the DRA claim template is
// named after it), and with CPU and memory the request does not size left
// to the chart's defaults.
func asContainer(req GPURequest) workload.Container {
	req.Name = cmp.Or(req.Name, valuesWorkloadName)
	req.KeepUnsized = true
	return req
}

// resolveGPURequest is a chart container's resolve step: its name, then
// the rules of one GPU container (workload.ResolveContainer, the same a
// gpu_workload's container passes) on the cloud the caller resolved
// (ResolveCloud). Kind, image and the rest belong to the chart, not to the
// request.
func resolveGPURequest(cloud clouds.GPURules, name string, c workload.Container, strict bool) (clouds.GPUIntent, gpudiag.Diagnostics) {
	var diags gpudiag.Diagnostics
	workload.CheckName(name, &diags)
	in, containerDiags := workload.ResolveContainer(c, cloud, strict)
	return in, append(diags, containerDiags...)
}

// ValidateValuesGPU is the plan-time check of a request.
func ValidateValuesGPU(cloud clouds.GPURules, req GPURequest) gpudiag.Diagnostics {
	_, diags := resolveGPURequest(cloud, req.Name, asContainer(req), false)
	return diags
}

// placeValuesGPU places the request with workload.PlacePod, so the values get exactly
// the placement a gpu_workload with the same GPU block (and node pool) gets.
// ok is false when validation reported errors (returned, with paths
// relative to the request).
func placeValuesGPU(cloud clouds.GPURules, name string, c workload.Container, pool *spec.PoolPolicy) (ValuesPlacement, gpudiag.Diagnostics, bool) {
	in, diags := resolveGPURequest(cloud, name, c, true)
	if diags.HasError() {
		return ValuesPlacement{}, diags, false
	}
	place, ok := workload.PlacePod(c, in, cloud, pool)
	if !ok {
		return ValuesPlacement{}, diags, false
	}
	p := ValuesPlacement{
		NodeSelector: place.NodeSelector,
		Affinity:     place.Affinity,
		Tolerations:  place.Tolerations,
		resourceName: string(place.ResourceName),
		Resources:    place.Resources,
		Env:          place.Env,
		HostIPC:      place.HostIPC,
	}
	maps.Copy(p.Env, c.Env)
	if in.DRA {
		p.Claims = workload.DRAPodClaims(c.Name)
		version, _ := workload.DRAAPIVersion(nil)
		p.ClaimTemplate = workload.DRAClaimTemplate(workload.DRARequestOf(c.GPU, in), workload.ContainerObjectMeta(c.Name), version)
		p.draCount = max(in.Count, 1)
	}
	return p, diags, true
}

// CPULimitLikeRequest copies the CPU request into the limits. Chart values
// are merged over chart defaults (FiftyOne's teamsDoCpuDefault ships
// limits.cpu: 4), so a request without a limit could land below a default
// limit and be rejected; an explicit equal limit cannot.
func CPULimitLikeRequest(res *corev1.ResourceRequirements) {
	cpu, ok := res.Requests[corev1.ResourceCPU]
	if !ok {
		return
	}
	if res.Limits == nil {
		res.Limits = corev1.ResourceList{}
	}
	res.Limits[corev1.ResourceCPU] = cpu
}

// CloudGPUPlacement is a cloud profile's raw placement for a GPU intent,
// for targets that configure a whole cluster (Flyte, the device plugin
// DaemonSets) rather than one container. It is the same Place call
// Render makes; ok is false on an unknown cloud, which places nothing.
func CloudGPUPlacement(cloud clouds.Placer, in clouds.GPUIntent) (clouds.Placement, bool) {
	if !cloud.Known() {
		return clouds.Placement{}, false
	}
	return cloud.Place(in), true
}

// AcceleratorLabel is the node label a cloud selects an accelerator by
// (the first requirement of its placement term) and the values it accepts,
// e.g. cloud.google.com/gke-accelerator = [nvidia-tesla-t4].
func AcceleratorLabel(cloud clouds.Placer, a *catalog.Accelerator) (key string, values []string, ok bool) {
	p, found := CloudGPUPlacement(cloud, clouds.GPUIntent{Accelerators: []*catalog.Accelerator{a}, Count: 1})
	if !found || len(p.AcceleratorTerms) != 1 || len(p.AcceleratorTerms[0]) == 0 {
		return "", nil, false
	}
	first := p.AcceleratorTerms[0][0]
	return first.Key, slices.Clone(first.Values), true
}

// GPUNodeTolerations are the tolerations a pod needs to run on any GPU node
// of the cloud, on-demand or spot: what node DaemonSets (device plugin, GPU
// Operator operands) must carry.
func GPUNodeTolerations(cloud clouds.Placer) []corev1.Toleration {
	var out []corev1.Toleration
	for _, spot := range []bool{false, true} {
		if p, ok := CloudGPUPlacement(cloud, clouds.GPUIntent{Count: 1, Spot: spot}); ok {
			out = append(out, p.Tolerations...)
		}
	}
	return clouds.NormalizeTolerations(out)
}

// CheckValuesTolerations validates tolerations typed by the user the way the
// API server would (core/v1 validation of pod tolerations), so a chart
// install does not fail on them later.
func CheckValuesTolerations(path []any, tolerations []corev1.Toleration, diags *gpudiag.Diagnostics) {
	for i, t := range tolerations {
		p := With(path, i)
		switch t.Operator {
		case "", corev1.TolerationOpEqual:
			if t.Key == "" {
				diags.AddError(With(p, "key"), "Toleration key required",
					"An empty key matches every taint only with operator \"Exists\". Allowed: set key, or operator = \"Exists\".")
			}
			if msgs := validation.IsValidLabelValue(t.Value); len(msgs) > 0 {
				diags.AddError(With(p, "value"), "Invalid toleration value", strconv.Quote(t.Value)+": "+strings.Join(msgs, "; ")+".")
			}
		case corev1.TolerationOpExists:
			if t.Value != "" {
				diags.AddError(With(p, "value"), "Value with operator Exists",
					"operator \"Exists\" matches any value, so value must be empty. Allowed: remove value, or operator = \"Equal\".")
			}
		default:
			diags.AddError(With(p, "operator"), "Unknown toleration operator",
				strconv.Quote(string(t.Operator))+" is not an operator. Allowed values: \"Equal\", \"Exists\".")
		}
		if t.Key != "" {
			if msgs := validation.IsQualifiedName(t.Key); len(msgs) > 0 {
				diags.AddError(With(p, "key"), "Invalid toleration key", strconv.Quote(t.Key)+": "+strings.Join(msgs, "; ")+".")
			}
		}
		switch t.Effect {
		case "", corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		default:
			diags.AddError(With(p, "effect"), "Unknown toleration effect",
				strconv.Quote(string(t.Effect))+" is not a taint effect. Allowed values: "+gpudiag.QuoteList(tolerationEffectNames())+".")
		}
		if t.TolerationSeconds != nil && t.Effect != corev1.TaintEffectNoExecute {
			diags.AddError(With(p, "toleration_seconds"), "toleration_seconds needs NoExecute",
				"toleration_seconds only applies to effect \"NoExecute\". Allowed: remove it, or effect = \"NoExecute\".")
		}
	}
}

// tolerationEffectNames lists the toleration effects; "" (all effects) is
// allowed too.
func tolerationEffectNames() []string {
	return []string{string(corev1.TaintEffectNoSchedule), string(corev1.TaintEffectPreferNoSchedule), string(corev1.TaintEffectNoExecute)}
}

// CheckValuesNodeSelector validates label keys and values of a node selector.
func CheckValuesNodeSelector(path []any, selector map[string]string, diags *gpudiag.Diagnostics) {
	for _, key := range slices.Sorted(maps.Keys(selector)) {
		p := With(path, gpudiag.MapKey(key))
		if msgs := validation.IsQualifiedName(key); len(msgs) > 0 {
			diags.AddError(p, "Invalid node label key", strconv.Quote(key)+": "+strings.Join(msgs, "; ")+".")
		}
		if msgs := validation.IsValidLabelValue(selector[key]); len(msgs) > 0 {
			diags.AddError(p, "Invalid node label value", strconv.Quote(selector[key])+": "+strings.Join(msgs, "; ")+".")
		}
	}
}

// PlaceOnPool places the request as gpu_workload does with node_pool:
// pool.Apply fills its GPU block from the pool, then Render adds the pool's
// extra labels and taints (Options.Pool). cloud is the target's, resolved
// once by the front door (ResolveCloud).
func PlaceOnPool(cloud clouds.GPURules, req GPURequest, onPool *spec.PoolPolicy) (ValuesPlacement, gpudiag.Diagnostics, bool) {
	c, diags, ok := applyPool(cloud.Name(), req, onPool)
	if !ok {
		return ValuesPlacement{}, diags, false
	}
	p, more, ok := placeValuesGPU(cloud, req.Name, c, onPool)
	diags.Append(more)
	return p, diags, ok
}

// PlaceRequest places a request given on its own rather than in a chart's
// values (the provider's pod_placement functions and gpu_pod_placement data
// source), whose cloud is still a name: this is its resolve step. The pool
// comes first, as in PlaceOnPool, so with a pool on another cloud, or one
// that does not validate (as no pool does on an unknown cloud), that is the
// finding rather than the name.
func PlaceRequest(cloudName string, req GPURequest, onPool *spec.PoolPolicy) (ValuesPlacement, gpudiag.Diagnostics, bool) {
	c, diags, ok := applyPool(spec.Cloud(cloudName), req, onPool)
	if !ok {
		return ValuesPlacement{}, diags, false
	}
	cloud := ResolveCloud(cloudName, false, &diags)
	if diags.HasError() {
		// A bad name places nothing, but the request's own findings come
		// with it, as a gpu_workload's do.
		_, more := resolveGPURequest(cloud, req.Name, c, true)
		return ValuesPlacement{}, append(diags, more...), false
	}
	p, more, ok := placeValuesGPU(cloud, req.Name, c, onPool)
	diags.Append(more)
	return p, diags, ok
}

// applyPool is the request's container with onPool's GPU block applied
// (pool.ApplyToContainer), or the request's own without a pool. ok is
// false, with the errors, when the pool is on another cloud than the named
// one or cannot serve the request.
func applyPool(cloud spec.Cloud, req GPURequest, onPool *spec.PoolPolicy) (workload.Container, gpudiag.Diagnostics, bool) {
	if onPool == nil {
		return asContainer(req), nil, true
	}
	if onPool.Cloud != "" && onPool.Cloud != string(cloud) {
		var diags gpudiag.Diagnostics
		diags.AddError(gpudiag.At("node_pool", "cloud"), "Node pool on another cloud",
			"The pool is on "+strconv.Quote(onPool.Cloud)+" but cloud is "+strconv.Quote(string(cloud))+
				". Allowed: a pool of this cluster's cloud.")
		return workload.Container{}, diags, false
	}
	c, diags := pool.ApplyToContainer(cloud, asContainer(req), *onPool)
	return c, diags, !diags.HasError()
}
