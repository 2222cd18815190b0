package workload

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilversion "k8s.io/apimachinery/pkg/util/version"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds/kindkit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// Object is a typed Kubernetes object with TypeMeta set.
type Object = kindkit.Object

// Options carries facts known only at apply time.
type Options struct {
	// ServerVersion is the cluster's version; nil at plan time (unknown).
	ServerVersion *utilversion.Version
	// FieldManager is the server-side-apply field manager the provider will
	// use; Render only defaults it (DefaultFieldManager) and returns it so the
	// apply code has one source.
	FieldManager string
	// Pool is the node pool policy the workload was placed with (after
	// pool.Apply), for Render; a Resolved carries its own.
	Pool *spec.PoolPolicy
	// SkipManifest leaves Rendered.Manifest empty. Encoding YAML is most of
	// a render's cost; callers that encode the objects themselves (the
	// provider projects live objects onto them) skip it.
	SkipManifest bool
}

// Rendered is the output of Render.
type Rendered struct {
	// Objects in apply order: PersistentVolumeClaim (model cache), then
	// ResourceClaimTemplate (DRA), then ComputeDomain (NVLink domain), then
	// the kind's companions (a distributed job's headless Service), then
	// the workload object of Kind.
	Objects []Object
	// Kind is the workload's kind, from the registry.
	Kind kindkit.Kind

	PersistentVolumeClaim *corev1.PersistentVolumeClaim // nil unless a model cache claim is created
	// Exactly one of the two is set when the workload uses DRA.
	ResourceClaimTemplateV1      *resourcev1.ResourceClaimTemplate
	ResourceClaimTemplateV1beta1 *resourcev1beta1.ResourceClaimTemplate
	// ComputeDomain (resource.nvidia.com/v1beta1) is set with
	// topology.nvlink_domain; its controller creates the channel's template.
	ComputeDomain *unstructured.Unstructured
	// Companions are the objects the kind renders beside its workload
	// object (a distributed job's headless Service), also in Objects.
	Companions []Object

	// Manifest is every object as canonical YAML documents separated by
	// "---": sorted keys, no server-owned fields, stable across runs.
	Manifest string

	// Placement as rendered into the pod, for display and for other
	// generators (Helm values, Flyte config) that need the same answer.
	NodeSelector map[string]string
	Affinity     *corev1.Affinity
	Tolerations  []corev1.Toleration
	// ResourceName is the extended resource requested, e.g. nvidia.com/gpu,
	// nvidia.com/mig-2g.10gb, nvidia.com/gpu.shared; "" with DRA.
	ResourceName string
	// SelectorLabels are the Deployment selector / pod identity labels.
	SelectorLabels map[string]string
	// Network is the pool's GPU network as the pods got it; nil when they
	// got none.
	Network *clouds.NetworkPod

	// DRAAPIVersion is the ResourceClaimTemplate apiVersion used ("" without
	// DRA); DRAAPIVersionAssumed is true when the server version was unknown
	// and DRAAPIVersionV1 was assumed.
	DRAAPIVersion        string
	DRAAPIVersionAssumed bool

	FieldManager string
}

// Workload is the workload object, the last of Objects, after any patch.
func (r *Rendered) Workload() Object { return r.Objects[len(r.Objects)-1] }

// PodTemplate is the pod template of the workload object, after any patch.
func (r *Rendered) PodTemplate() *corev1.PodTemplateSpec {
	if r.Kind.PodTemplate == nil {
		return PodTemplateOf(r.Workload()) // a Rendered built by hand, in tests
	}
	return r.Kind.PodTemplate(r.Workload())
}

// PodTemplateOf is the pod template of a workload object of a registered
// kind; an empty one for any other object.
func PodTemplateOf(obj Object) *corev1.PodTemplateSpec {
	if k, ok := kinds.Of(obj); ok {
		return k.PodTemplate(obj)
	}
	return &corev1.PodTemplateSpec{}
}

// ResolveAndRender resolves w with every value final (on opts.Pool) and
// renders it, for callers that render a workload once (adoption, tests). On
// error diagnostics it returns nil; warnings come back with the result.
func ResolveAndRender(w spec.Workload, opts Options) (*Rendered, gpudiag.Diagnostics) {
	resolved := Resolve(w, opts.Pool, true)
	if resolved.Findings.HasError() {
		return nil, resolved.Findings
	}
	r, diags := Render(resolved, opts)
	return r, append(resolved.Findings, diags...)
}

// Render builds the objects of a strict resolution without validating
// again; the diagnostics are only what rendering itself finds (the server
// version's rules, the patch). The resolution's own findings are the
// caller's to report. opts.Pool is ignored: the resolution has its pool.
func Render(resolved Resolved, opts Options) (*Rendered, gpudiag.Diagnostics) {
	diags := gpudiag.Unresolved("workload", resolved.Strict, resolved.Findings)
	if diags.HasError() {
		return nil, diags
	}
	w := resolved.Workload
	if opts.ServerVersion != nil {
		if diags.Append(ServerVersionCheck(w, opts.ServerVersion)); diags.HasError() {
			return nil, diags
		}
	}
	if resolved.Intent.DRA {
		version, _ := DRAAPIVersion(opts.ServerVersion)
		if diags.Append(CheckDRAAPIVersion(DRARequestOf(w.GPU, resolved.Intent), version)); diags.HasError() {
			return nil, diags
		}
	}
	r, ok := build(resolved, opts)
	if !ok {
		diags.AddError(nil, "Could not render the workload",
			"The configuration passed validation but could not be rendered; this is a provider bug, please report it.")
		return nil, diags
	}
	if w.Patch != "" {
		if diags.Append(applyPatch(r, w.Patch)); diags.HasError() {
			return nil, diags
		}
	}
	if !opts.SkipManifest {
		manifest, err := ManifestOf(r.Objects)
		if err != nil {
			diags.AddError(nil, "Could not encode the manifest", err.Error()+"; this is a provider bug, please report it.")
			return nil, diags
		}
		r.Manifest = manifest
	}
	return r, diags
}

func build(resolved Resolved, opts Options) (*Rendered, bool) {
	w, kind := resolved.Workload, resolved.Kind
	if kind.Build == nil {
		return nil, false
	}
	r, place, ok := newRendered(resolved, opts)
	if !ok {
		return nil, false
	}
	// Each object gets its own metadata (ObjectMeta builds new maps), so a
	// caller editing one object's labels cannot change another's.
	pvc, ok := modelCachePVC(w)
	if !ok {
		return nil, false
	}
	// Kinds with a cache per pod (a StatefulSet's replicas) get it from a
	// claim template; other kinds share one created claim.
	var claimTemplates []corev1.PersistentVolumeClaim
	if pvc != nil && kind.ModelCachePerPod {
		claimTemplates = []corev1.PersistentVolumeClaim{claimTemplate(*pvc)}
	} else if pvc != nil {
		r.PersistentVolumeClaim = pvc
		r.Objects = append(r.Objects, pvc)
	}
	pod, ok := buildPod(resolved, opts, place, r)
	if !ok {
		return nil, false
	}
	if len(claimTemplates) > 0 {
		// The claim template's volume takes the shared claim's place.
		pod.Spec.Volumes = slices.DeleteFunc(pod.Spec.Volumes, func(v corev1.Volume) bool { return v.Name == volumeModelCache })
	}
	buildIn := kindkit.BuildInput{Workload: w, Meta: ObjectMeta(w), Pod: pod, Selector: r.SelectorLabels,
		ClaimTemplates: claimTemplates}
	obj, ok := kind.Build(buildIn)
	if !ok {
		return nil, false
	}
	if kind.Companions != nil {
		// Before the workload object: its pods need them when they start.
		buildIn.Meta = ObjectMeta(w)
		r.Companions = kind.Companions(buildIn)
		r.Objects = append(r.Objects, r.Companions...)
	}
	r.Objects = append(r.Objects, obj)
	markQueue(r, w)
	markTopology(r, resolved.Topology)
	return r, true
}

// newRendered places the resolution's pod and starts its Rendered with
// the placement.
func newRendered(resolved Resolved, opts Options) (*Rendered, podPlacement, bool) {
	w := resolved.Workload
	place, ok := PlacePod(ContainerOf(w), resolved.Intent, resolved.Cloud, resolved.Pool)
	if !ok {
		return nil, podPlacement{}, false
	}
	r := &Rendered{
		// At most a claim, a claim template, a ComputeDomain, a companion and the workload object.
		Objects:        make([]Object, 0, 5),
		Kind:           resolved.Kind,
		NodeSelector:   place.NodeSelector,
		Affinity:       place.Affinity,
		Tolerations:    place.Tolerations,
		SelectorLabels: selectorLabels(w),
		FieldManager:   opts.FieldManager,
		ResourceName:   string(place.ResourceName),
	}
	if r.FieldManager == "" {
		r.FieldManager = spec.DefaultFieldManager
	}
	return r, place, true
}

// buildPod is the pod template of a resolution and the objects it needs
// beside it (a DRA claim template, a ComputeDomain), appended to r: the
// one pod rendering gpu_workload's kinds and ResolvePod's callers share.
func buildPod(resolved Resolved, opts Options, place podPlacement, r *Rendered) (corev1.PodTemplateSpec, bool) {
	w, in := resolved.Workload, resolved.Intent
	if in.DRA {
		r.DRAAPIVersion, r.DRAAPIVersionAssumed = DRAAPIVersion(opts.ServerVersion)
		template := DRAClaimTemplate(DRARequestOf(w.GPU, in), ObjectMeta(w), r.DRAAPIVersion)
		r.ResourceClaimTemplateV1, _ = template.(*resourcev1.ResourceClaimTemplate)
		r.ResourceClaimTemplateV1beta1, _ = template.(*resourcev1beta1.ResourceClaimTemplate)
		r.Objects = append(r.Objects, template)
	}
	pod, ok := podTemplate(w, in, place, r)
	if !ok {
		return corev1.PodTemplateSpec{}, false
	}
	if resolved.Network != nil {
		AddNetwork(&pod, *resolved.Network)
		r.Network = resolved.Network
	}
	if t := resolved.Topology; t != nil && t.ComputeDomain {
		r.ComputeDomain = computeDomain(w)
		r.Objects = append(r.Objects, r.ComputeDomain)
		addChannelClaim(&pod, w)
	}
	return pod, true
}

func namespaceOf(w spec.Workload) string {
	if w.Namespace == "" {
		return spec.DefaultNamespace
	}
	return w.Namespace
}

// selectorLabels identify the workload's pods. They are immutable on a
// Deployment, so they depend on the name only, unless selector_labels
// carries the selector of an adopted workload.
func selectorLabels(w spec.Workload) map[string]string {
	if len(w.SelectorLabels) > 0 {
		return maps.Clone(w.SelectorLabels)
	}
	return map[string]string{spec.LabelName: w.Name, spec.LabelInstance: w.Name}
}

// identityLabels is the labels of an object or pod: own (the workload's
// labels or pod_labels), then the selector labels over them, then the
// managed-by label. It writes the selector labels directly instead of
// building selectorLabels' map to copy it.
func identityLabels(w spec.Workload, own map[string]string) map[string]string {
	labels := make(map[string]string, len(own)+max(len(w.SelectorLabels), 2)+1)
	maps.Copy(labels, own)
	if len(w.SelectorLabels) > 0 {
		maps.Copy(labels, w.SelectorLabels)
	} else {
		labels[spec.LabelName] = w.Name
		labels[spec.LabelInstance] = w.Name
	}
	labels[spec.LabelManagedBy] = spec.ManagedBy
	return labels
}

// ContainerName is the GPU container's name: container_name, else the
// workload's name.
func ContainerName(w spec.Workload) string {
	if w.ContainerName != "" {
		return w.ContainerName
	}
	return w.Name
}

// ObjectMeta is the metadata shared by every top-level object; callers set
// Name where it differs from the workload name.
func ObjectMeta(w spec.Workload) metav1.ObjectMeta {
	labels := identityLabels(w, w.Labels)
	var annotations map[string]string
	if len(w.Annotations) > 0 {
		annotations = maps.Clone(w.Annotations)
	}
	return metav1.ObjectMeta{Name: w.Name, Namespace: namespaceOf(w), Labels: labels, Annotations: annotations}
}
