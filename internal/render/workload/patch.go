package workload

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds/kindkit"
)

// The patch attribute is the escape hatch for every pod-spec field the
// typed attributes do not cover: a strategic merge patch of the rendered
// workload object (a Deployment, a Job, ...), applied with apimachinery's
// strategicpatch exactly as kubectl and kustomize apply one. What the GPU rules decided must survive
// it; a patch that undoes any of it is refused on the patch attribute,
// naming the field, so the escape hatch cannot reintroduce the placements
// the provider exists to prevent.

// patchPath is the attribute every patch finding belongs to.
var patchPath = gpudiag.At("patch")

// applyPatch patches r's workload object in place and checks the GPU rules
// still hold.
func applyPatch(r *Rendered, patch string) gpudiag.Diagnostics {
	var diags gpudiag.Diagnostics
	patchJSON, ok := readWorkloadPatch(patch, &diags)
	if !ok {
		return diags
	}
	patchMain(r, patchJSON, &diags)
	if !diags.HasError() {
		patchCompanionsMeta(r, patchJSON, &diags)
	}
	return diags
}

// patchCompanionsMeta applies the patch's metadata.labels and
// metadata.annotations to the companions too (a distributed job's
// Service): they carry the workload object's labels, and an adopted Job's
// patch, which removes the provider's labels the hand-written Job lacks,
// keeps its Service as it was written too.
func patchCompanionsMeta(r *Rendered, patchJSON []byte, diags *gpudiag.Diagnostics) {
	var patch struct {
		Metadata map[string]json.RawMessage `json:"metadata"`
	}
	if json.Unmarshal(patchJSON, &patch) != nil {
		return
	}
	meta := map[string]json.RawMessage{}
	for _, key := range []string{"labels", "annotations"} {
		if v, ok := patch.Metadata[key]; ok {
			meta[key] = v
		}
	}
	if len(meta) == 0 {
		return
	}
	metaJSON, err := json.Marshal(map[string]any{"metadata": meta})
	if err != nil {
		return
	}
	for i, c := range r.Companions {
		patched, ok := reflect.New(reflect.TypeOf(c).Elem()).Interface().(Object)
		if !ok || !PatchTyped(c, metaJSON, patched, patchPath, diags) {
			return
		}
		replaceObject(r, c, patched)
		r.Companions[i] = patched
	}
}

// patchMain patches the workload object of r: on success the patched
// object (decoded into a new object of its kind) replaces it in r.Objects;
// otherwise r is unchanged and the findings are in diags.
func patchMain(r *Rendered, patchJSON []byte, diags *gpudiag.Diagnostics) {
	current := r.Workload()
	patched := r.Kind.New()
	if !PatchTyped(current, patchJSON, patched, patchPath, diags) {
		return
	}
	checkIdentity(current.GetName(), current.GetNamespace(), patched, diags)
	checkSelectorLabelsKept(r.SelectorLabels, r.Kind.PodTemplate(patched).Labels, patchPath, diags)
	if !equality.Semantic.DeepEqual(immutableSelector(r.Kind, current), immutableSelector(r.Kind, patched)) {
		diags.AddError(patchPath, "Patch changes the selector", "spec.selector identifies the workload's pods and "+
			"cannot change on a "+r.Kind.GVK.Kind+". Allowed: leave spec.selector out of the patch.")
	}
	before, after := &r.Kind.PodTemplate(current).Spec, &r.Kind.PodTemplate(patched).Spec
	checkPodRules(placedPod{r.NodeSelector, r.Tolerations, r.Affinity}, *before, *after, patchPath, diags)
	if diags.HasError() {
		return
	}
	gpuContainerFirst(before.Containers[0].Name, after)
	replaceObject(r, current, patched)
}

// immutableSelector is the spec.selector of the kinds whose selector the
// provider sets and the server keeps immutable; nil for the kinds whose
// selector the provider leaves out (Jobs, CronJobs).
func immutableSelector(k kindkit.Kind, obj Object) *metav1.LabelSelector {
	if k.Selector == nil {
		return nil
	}
	return k.Selector(obj)
}

// readWorkloadPatch reads gpu_workload's patch attribute.
func readWorkloadPatch(patch string, diags *gpudiag.Diagnostics) ([]byte, bool) {
	return ReadPatch(patch, patchPath, "a strategic merge patch of the Deployment or Job, e.g. "+
		"\"spec:\\n  template:\\n    spec:\\n      priorityClassName: high\"", diags)
}

// ReadPatch reads the patch attribute at (YAML or JSON) into JSON; it must
// be an object. allowed says what the attribute takes, with an example.
func ReadPatch(patch string, at []any, allowed string, diags *gpudiag.Diagnostics) ([]byte, bool) {
	patchJSON, err := yaml.YAMLToJSON([]byte(patch))
	if err == nil && !strings.HasPrefix(strings.TrimSpace(string(patchJSON)), "{") {
		err = fmt.Errorf("it is %s, not an object", strings.TrimSpace(string(patchJSON)))
	}
	if err != nil {
		diags.AddError(at, "Invalid patch", "The patch does not read as a YAML or JSON object: "+err.Error()+
			". Allowed: "+allowed+".")
		return nil, false
	}
	return patchJSON, true
}

// PatchTyped merges the patch into original with the strategic merge rules
// of its Go type and decodes the result strictly into patched, so a
// misspelt field is an error (on at) instead of silently dropped.
func PatchTyped(original any, patchJSON []byte, patched any, at []any, diags *gpudiag.Diagnostics) bool {
	originalJSON, err := json.Marshal(original)
	if err == nil {
		var merged []byte
		merged, err = strategicpatch.StrategicMergePatch(originalJSON, patchJSON, patched)
		if err == nil {
			var strict []error
			strict, err = sigsjson.UnmarshalStrict(merged, patched)
			if err == nil && len(strict) > 0 {
				err = errorsText(strict)
			}
		}
	}
	if err != nil {
		diags.AddError(at, "Patch does not apply", "Applying the patch failed: "+err.Error()+
			". Allowed: fields of the Kubernetes API object, spelt as in its JSON (e.g. spec.template.spec.imagePullSecrets).")
		return false
	}
	return true
}

func errorsText(errs []error) error {
	texts := make([]string, len(errs))
	for i, e := range errs {
		texts[i] = e.Error()
	}
	return fmt.Errorf("%s", strings.Join(texts, "; "))
}

// checkIdentity: the name and namespace belong to their attributes.
func checkIdentity(name, namespace string, after metav1.Object, diags *gpudiag.Diagnostics) {
	if name != after.GetName() || namespace != after.GetNamespace() {
		diags.AddError(patchPath, "Patch renames the workload", fmt.Sprintf("The patch moves %s/%s to %s/%s. Allowed: "+
			"set the name and namespace attributes.", namespace, name, after.GetNamespace(), after.GetName()))
	}
}

// checkSelectorLabelsKept: the pod template keeps the labels the workload's
// selector matches and the provider finds its pods by. Other labels,
// managed-by included, are the patch's to change: an adopted workload may
// keep the labels it had.
func checkSelectorLabelsKept(selector, labels map[string]string, at []any, diags *gpudiag.Diagnostics) {
	for _, key := range slices.Sorted(maps.Keys(selector)) {
		if labels[key] != selector[key] {
			diags.AddError(at, "Patch changes a selector label", fmt.Sprintf("The patch sets the pod template's "+
				"label %q to %q; the workload selects its pods by %q = %q. Allowed: other labels, or the selector_labels "+
				"and pod_labels attributes.", key, labels[key], key, selector[key]))
		}
	}
}

// placedPod is the placement a patch must keep.
type placedPod struct {
	NodeSelector map[string]string
	Tolerations  []corev1.Toleration
	Affinity     *corev1.Affinity
}

// checkPodRules: the GPU container keeps its GPU resources, no other
// container asks for GPUs, and the pod keeps every node selector entry,
// toleration and required node affinity the placement gave it.
func checkPodRules(r placedPod, before, after corev1.PodSpec, at []any, diags *gpudiag.Diagnostics) {
	gpuContainer := before.Containers[0]
	checkGPUContainer(gpuContainer, after, at, diags)
	checkNoOtherGPUs(gpuContainer.Name, after, at, diags)
	for key, value := range r.NodeSelector {
		if after.NodeSelector[key] != value {
			diags.AddError(at, "Patch changes the GPU node selector", fmt.Sprintf("The placement selects "+
				"nodeSelector[%q] = %q and the patch makes it %q: the pod could land on other hardware. Allowed: "+
				"choose hardware with the gpu block, or add selector entries of your own.", key, value, after.NodeSelector[key]))
		}
	}
	for _, t := range r.Tolerations {
		if !slices.ContainsFunc(after.Tolerations, func(u corev1.Toleration) bool { return equality.Semantic.DeepEqual(t, u) }) {
			diags.AddError(at, "Patch drops a required toleration", fmt.Sprintf("The pool's nodes carry a taint "+
				"the toleration %s answers; without it the pod stays Pending. Allowed: add tolerations, keep these.",
				DescribeToleration(t)))
		}
	}
	if !RequiredAffinityKept(r.Affinity, after.Affinity) {
		diags.AddError(at, "Patch widens the GPU node affinity", "The placement requires node affinity terms that "+
			"pick the accelerator and keep the pod off MIG and shared pools; after the patch some node outside them "+
			"qualifies. Allowed: add requirements to every term, or choose hardware with the gpu block.")
	}
	if before.HostIPC && !after.HostIPC {
		diags.AddError(at, "Patch turns off hostIPC", clouds.GKEMPSHostIPC("")+
			"Allowed: leave spec.template.spec.hostIPC out of the patch.")
	}
}

// checkGPUContainer: the GPU container still exists and asks for exactly
// the GPU resources the gpu block gave it.
func checkGPUContainer(want corev1.Container, after corev1.PodSpec, at []any, diags *gpudiag.Diagnostics) {
	i := slices.IndexFunc(after.Containers, func(c corev1.Container) bool { return c.Name == want.Name })
	if i < 0 {
		diags.AddError(at, "Patch removes the GPU container", fmt.Sprintf("Container %q holds the GPU request "+
			"and is gone after the patch. Allowed: patch it by name, add other containers.", want.Name))
		return
	}
	got := after.Containers[i].Resources
	for _, part := range []struct {
		name      string
		want, got corev1.ResourceList
	}{{"limits", want.Resources.Limits, got.Limits}, {"requests", want.Resources.Requests, got.Requests}} {
		for _, resource := range slices.Sorted(maps.Keys(gpuResources(part.want))) {
			w, g := part.want[resource], part.got[resource]
			if _, set := part.got[resource]; !set && part.name == "requests" {
				continue // a pod's missing request is defaulted to its limit
			}
			if w.Cmp(g) != 0 {
				diags.AddError(at, "Patch changes the GPU request", fmt.Sprintf("Container %q asks for %s %s %s "+
					"from the gpu block; after the patch it is %q. Allowed: set gpu.count instead.",
					want.Name, part.name, resource, w.String(), g.String()))
			}
		}
		for resource := range gpuResources(part.got) {
			if _, ok := part.want[resource]; !ok {
				diags.AddError(at, "Patch adds a GPU resource", fmt.Sprintf("The patch adds %s %s to container %q; "+
					"the gpu block decides which GPU resource the pod asks for. Allowed: set the gpu block.",
					part.name, resource, want.Name))
			}
		}
	}
	if !equality.Semantic.DeepEqual(want.Resources.Claims, got.Claims) {
		diags.AddError(at, "Patch changes the DRA claims", fmt.Sprintf("Container %q uses the GPU claim of the "+
			"gpu.dra block. Allowed: leave resources.claims out of the patch.", want.Name))
	}
}

// checkNoOtherGPUs: a second container (or init container) asking for GPUs
// would either get GPUs of its own or, with the same claim, share them
// behind the GPU container's back.
func checkNoOtherGPUs(gpuContainer string, after corev1.PodSpec, at []any, diags *gpudiag.Diagnostics) {
	for _, group := range []struct {
		field      string
		containers []corev1.Container
	}{{"containers", after.Containers}, {"initContainers", after.InitContainers}} {
		for _, c := range group.containers {
			if group.field == "containers" && c.Name == gpuContainer {
				continue
			}
			if len(gpuResources(c.Resources.Limits))+len(gpuResources(c.Resources.Requests))+len(c.Resources.Claims) > 0 {
				diags.AddError(at, "Patch gives a second container GPUs", fmt.Sprintf("%s %q asks for GPU "+
					"resources; only container %q may, with what the gpu block sets. Allowed: sidecars and init "+
					"containers without GPU resources.", group.field, c.Name, gpuContainer))
			}
		}
	}
}

// gpuResources are the extended resources of a list (nvidia.com/gpu,
// nvidia.com/mig-*, nvidia.com/gpu.shared, ...): anything domain-prefixed.
func gpuResources(list corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	for name, q := range list {
		if strings.Contains(string(name), "/") {
			out[name] = q
		}
	}
	return out
}

// RequiredAffinityKept: every required node selector term after the patch
// still contains all requirements of some term of the placement, so no
// node the placement excludes qualifies.
func RequiredAffinityKept(want, got *corev1.Affinity) bool {
	wantTerms := RequiredTerms(want)
	if len(wantTerms) == 0 {
		return true
	}
	gotTerms := RequiredTerms(got)
	if len(gotTerms) == 0 {
		return false
	}
	for _, g := range gotTerms {
		if !slices.ContainsFunc(wantTerms, func(w corev1.NodeSelectorTerm) bool { return termIncludes(g, w) }) {
			return false
		}
	}
	return true
}

// RequiredTerms are the required node selector terms of an affinity.
func RequiredTerms(a *corev1.Affinity) []corev1.NodeSelectorTerm {
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return nil
	}
	return a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
}

// termIncludes: term has every requirement of base (and maybe more).
func termIncludes(term, base corev1.NodeSelectorTerm) bool {
	has := func(list []corev1.NodeSelectorRequirement, r corev1.NodeSelectorRequirement) bool {
		return slices.ContainsFunc(list, func(x corev1.NodeSelectorRequirement) bool { return equality.Semantic.DeepEqual(x, r) })
	}
	for _, r := range base.MatchExpressions {
		if !has(term.MatchExpressions, r) {
			return false
		}
	}
	for _, r := range base.MatchFields {
		if !has(term.MatchFields, r) {
			return false
		}
	}
	return true
}

// DescribeToleration names a toleration for messages.
func DescribeToleration(t corev1.Toleration) string {
	text := t.Key
	if t.Operator == corev1.TolerationOpEqual || t.Value != "" {
		text += "=" + t.Value
	}
	return fmt.Sprintf("%q (%s, effect %s)", text, cmp.Or(string(t.Operator), "Equal"), cmp.Or(string(t.Effect), "any"))
}

// gpuContainerFirst keeps the GPU container first, where it was rendered:
// a strategic merge puts containers only the patch names before it.
func gpuContainerFirst(name string, pod *corev1.PodSpec) {
	i := slices.IndexFunc(pod.Containers, func(c corev1.Container) bool { return c.Name == name })
	if i > 0 {
		gpu := pod.Containers[i]
		pod.Containers = append([]corev1.Container{gpu}, slices.Delete(pod.Containers, i, i+1)...)
	}
}

// CheckPatchedPod holds a pod template patched outside gpu_workload (a Ray
// group's patch, on at) to the rules a workload's patch is held to, with
// the placement the template had before the patch; selectorLabels are the
// pod labels its owner finds the pods by. On success the GPU container
// stays first in after.
func CheckPatchedPod(before, after *corev1.PodTemplateSpec, selectorLabels map[string]string, at []any) gpudiag.Diagnostics {
	var diags gpudiag.Diagnostics
	checkSelectorLabelsKept(selectorLabels, after.Labels, at, &diags)
	placed := placedPod{before.Spec.NodeSelector, before.Spec.Tolerations, before.Spec.Affinity}
	checkPodRules(placed, before.Spec, after.Spec, at, &diags)
	if !diags.HasError() {
		gpuContainerFirst(before.Spec.Containers[0].Name, &after.Spec)
	}
	return diags
}

// replaceObject swaps the patched object into r.Objects.
func replaceObject(r *Rendered, before, after Object) {
	for i, o := range r.Objects {
		if o == before {
			r.Objects[i] = after
		}
	}
}
