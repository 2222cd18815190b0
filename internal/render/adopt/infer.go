package adopt

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds/kindkit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// Adoption is what import makes of a workload the provider did not create.
type Adoption struct {
	// Workload is the GPU intent and the typed attributes; its Patch is
	// empty until WithPatch.
	Workload spec.Workload
	// Corrections say what the next apply changes in the object, and why:
	// GPU placement the rules require and the object lacks.
	Corrections []string
	// Rendered is the workload object as Workload renders it without a
	// patch. The server's defaults are added to it (a dry-run create) so
	// that the patch holds only what the object really sets.
	Rendered workload.Object
	// Corrected is the live object with the corrections made: what the
	// imported configuration renders.
	Corrected workload.Object
	// Companions are the live companion objects taken over with the object
	// (kindkit.Adopt.Companions), nil where one does not exist.
	Companions []*unstructured.Unstructured
}

// Reader reads a live object named by an empty typed one (name,
// namespace, TypeMeta); nil and no error when it does not exist.
type Reader func(obj kindkit.Object) (*unstructured.Unstructured, error)

// liveWorkload is a decoded object of a kind import can adopt.
type liveWorkload struct {
	kind     kindkit.Kind
	obj      workload.Object
	template *corev1.PodTemplateSpec
	selector *metav1.LabelSelector
	replicas *int32
}

// AdoptableKinds are the kinds import can adopt, as the registry says
// (a Job is not among them: its selector and pod labels are generated per
// object by the server, and a Job that ran is replaced rather than taken
// over).
func AdoptableKinds() []string {
	var out []string
	for _, name := range kinds.Names() {
		if k, _ := kinds.Lookup(name); k.Adopt != nil {
			out = append(out, name)
		}
	}
	return out
}

// Infer reads a live workload object of a kind without companions.
// defaultCloud settles a placement that fits several clouds equally.
func Infer(live *unstructured.Unstructured, defaultCloud string) (*Adoption, gpudiag.Diagnostics) {
	return InferWith(live, defaultCloud, nil)
}

// InferWith reads a live workload object and, with read, the companions
// its kind takes over with it (a distributed job's headless Service).
func InferWith(live *unstructured.Unstructured, defaultCloud string, read Reader) (*Adoption, gpudiag.Diagnostics) {
	var diags gpudiag.Diagnostics
	lw, err := decode(live)
	if err != nil {
		diags.AddError(nil, "Cannot adopt this workload", err.Error())
		return nil, diags
	}
	pod := &lw.template.Spec
	index, err := gpuContainerIndex(*pod)
	if err != nil {
		diags.AddError(nil, "Cannot adopt this workload", err.Error())
		return nil, diags
	}
	c := pod.Containers[index]
	resource, count := gpuRequest(c)
	intent, warning, err := inferGPU(*pod, resource, count, defaultCloud)
	if warning != "" {
		diags.AddWarning(nil, "Adopted GPU request is a guess between clouds", warning)
	}
	if err != nil {
		diags.AddError(nil, "Cannot tell the GPU request", fmt.Sprintf("%s %s/%s: %s.", live.GetKind(), live.GetNamespace(),
			live.GetName(), err))
		return nil, diags
	}
	w := typedAttributes(lw, c)
	w.Cloud, w.GPU, w.Spot = string(intent.cloud), intent.gpu, intent.spot
	companions, takeOverFixes, err := takeOverCompanions(lw, read, &w)
	if err != nil {
		diags.AddError(nil, "Cannot adopt this workload", err.Error())
		return nil, diags
	}
	rendered, rdiags := workload.ResolveAndRender(w, workload.Options{SkipManifest: true})
	if diags.Append(rdiags); diags.HasError() {
		return nil, diags
	}
	a := &Adoption{Workload: w, Rendered: rendered.Objects[len(rendered.Objects)-1], Companions: companions}
	a.Corrected, a.Corrections = correct(lw, index, w.Cloud, rendered)
	a.Corrections = append(a.Corrections, takeOverFixes...)
	return a, diags
}

// takeOverCompanions reads the companions the kind takes over with the
// object and lets the kind check them and read the intent they carry
// (kindkit.Adopt.TakeOver). The selector they set then keeps its labels
// out of labels and pod_labels, as for a selector read from the object.
func takeOverCompanions(lw liveWorkload, read Reader, w *spec.Workload) ([]*unstructured.Unstructured, []string, error) {
	adopt := lw.kind.Adopt
	if adopt.Companions == nil {
		return nil, nil, nil
	}
	if read == nil {
		return nil, nil, fmt.Errorf("a %s is adopted with its companions, which this import cannot read", lw.kind.Name)
	}
	var live []*unstructured.Unstructured
	var typed []kindkit.Object
	for _, want := range adopt.Companions(lw.obj) {
		obj, err := read(want)
		if err != nil {
			return nil, nil, err
		}
		live = append(live, obj)
		if obj == nil {
			typed = append(typed, nil)
			continue
		}
		t, _ := reflect.New(reflect.TypeOf(want).Elem()).Interface().(kindkit.Object)
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, t); err != nil {
			return nil, nil, err
		}
		typed = append(typed, t)
	}
	fixes, err := adopt.TakeOver(lw.obj, typed, w)
	if err != nil {
		return nil, nil, err
	}
	identity := append(selectorKeys(*w), adopt.ServerLabels...)
	w.Labels = withoutKeys(w.Labels, identity)
	w.PodLabels = withoutKeys(w.PodLabels, identity)
	return live, fixes, nil
}

func decode(live *unstructured.Unstructured) (liveWorkload, error) {
	k, ok := kinds.ForGroupKind(live.GroupVersionKind().GroupKind())
	var obj workload.Object
	var err error
	if ok {
		// Kinds sharing the object type decode alike; the decoded object
		// tells which of them it is (an Indexed Job under a subdomain is a
		// distributed job's).
		obj = k.New()
		err = runtime.DefaultUnstructuredConverter.FromUnstructured(live.Object, obj)
		if found, known := kinds.Of(obj); err == nil && known {
			k = found
		}
	}
	if !ok || k.Adopt == nil {
		why := ""
		if ok && k.NotAdoptable != "" {
			why = " (a " + k.Name + ": " + k.NotAdoptable + ")"
		}
		return liveWorkload{}, fmt.Errorf("%s %s/%s is not a kind import can adopt%s. Allowed: %s", live.GetKind(),
			live.GetNamespace(), live.GetName(), why, strings.Join(AdoptableKinds(), ", "))
	}
	lw := liveWorkload{kind: k, obj: obj, template: k.PodTemplate(obj)}
	if k.Selector != nil {
		lw.selector = k.Selector(obj)
	}
	if k.Replicas != nil {
		lw.replicas = k.Replicas(obj)
	}
	return lw, err
}

// gpuContainerIndex finds the one container that asks for GPUs; the
// provider's rules are about exactly one.
func gpuContainerIndex(pod corev1.PodSpec) (int, error) {
	var found []int
	for i, c := range pod.Containers {
		if len(gpuResources(c)) > 0 {
			found = append(found, i)
		}
		if len(c.Resources.Claims) > 0 {
			return 0, fmt.Errorf("container %q uses a DRA resource claim; adopt it by writing a gpu_workload with a gpu.dra block", c.Name)
		}
	}
	for _, c := range pod.InitContainers {
		if len(gpuResources(c)) > 0 {
			return 0, fmt.Errorf("init container %q asks for GPUs; gpu_workload gives GPUs to one container only", c.Name)
		}
	}
	switch len(found) {
	case 0:
		return 0, fmt.Errorf("no container asks for a GPU (an nvidia.com/ resource in its limits or requests)")
	case 1:
		if r := gpuResources(pod.Containers[found[0]]); len(r) > 1 {
			return 0, fmt.Errorf("container %q asks for several GPU resources (%s); gpu_workload asks for one",
				pod.Containers[found[0]].Name, strings.Join(r, ", "))
		}
		return found[0], nil
	default:
		return 0, fmt.Errorf("%d containers ask for GPUs; gpu_workload gives GPUs to one container only", len(found))
	}
}

// gpuResources names the GPU resources a container asks for, in limits or
// requests.
func gpuResources(c corev1.Container) []string {
	var out []string
	for _, list := range []corev1.ResourceList{c.Resources.Limits, c.Resources.Requests} {
		for name := range list {
			if strings.HasPrefix(string(name), "nvidia.com/") && !slices.Contains(out, string(name)) {
				out = append(out, string(name))
			}
		}
	}
	slices.Sort(out)
	return out
}

// gpuRequest is the container's GPU resource and count: the limit, or the
// request where the limit is missing (which the provider corrects).
func gpuRequest(c corev1.Container) (corev1.ResourceName, int64) {
	name := corev1.ResourceName(gpuResources(c)[0])
	if q, ok := c.Resources.Limits[name]; ok {
		return name, q.Value()
	}
	q := c.Resources.Requests[name]
	return name, q.Value()
}

// ignoredAnnotations are written by tools and controllers, not by the
// workload's author: neither an attribute nor the patch carries them.
var ignoredAnnotations = []string{"kubectl.kubernetes.io/last-applied-configuration", "deployment.kubernetes.io/revision"}

// typedAttributes maps the fields the typed attributes cover; the patch
// carries the rest.
func typedAttributes(lw liveWorkload, c corev1.Container) spec.Workload {
	meta := lw.obj
	w := spec.Workload{
		Name: meta.GetName(), Namespace: meta.GetNamespace(), Kind: lw.kind.Name, Replicas: lw.replicas,
		Image: c.Image, Command: c.Command, Args: c.Args,
		ServiceAccountName: lw.template.Spec.ServiceAccountName,
		PriorityClassName:  lw.template.Spec.PriorityClassName,
		PodAnnotations:     nonEmpty(maps.Clone(lw.template.Annotations)),
	}
	if c.Name != w.Name {
		w.ContainerName = c.Name
	}
	if lw.selector != nil && !maps.Equal(lw.selector.MatchLabels, defaultSelector(w.Name)) {
		w.SelectorLabels = maps.Clone(lw.selector.MatchLabels)
	}
	identity := selectorKeys(w)
	w.Labels = withoutKeys(meta.GetLabels(), identity)
	w.Annotations = nonEmpty(withoutKeys(meta.GetAnnotations(), ignoredAnnotations))
	w.PodLabels = withoutKeys(lw.template.Labels, append(identity, lw.kind.Adopt.ServerLabels...))
	w.Env, w.SecretEnv = envOf(c.Env)
	w.Ports = tcpPorts(c.Ports)
	for _, s := range lw.template.Spec.ImagePullSecrets {
		w.ImagePullSecrets = append(w.ImagePullSecrets, s.Name)
	}
	if q, ok := c.Resources.Requests[corev1.ResourceCPU]; ok {
		w.CPU = q.String()
	}
	if q, ok := c.Resources.Requests[corev1.ResourceMemory]; ok {
		w.Memory = q.String()
	}
	if set := lw.kind.Adopt.Attributes; set != nil {
		set(lw.obj, &w) // the kind's own attributes, and what it says of the selector
	}
	return w
}

func defaultSelector(name string) map[string]string {
	return map[string]string{spec.LabelName: name, spec.LabelInstance: name}
}

// selectorKeys are labels the render sets itself: the selector's and the
// provider's reserved ones, which the labels attributes may not hold.
func selectorKeys(w spec.Workload) []string {
	keys := []string{spec.LabelName, spec.LabelInstance, spec.LabelManagedBy}
	return append(keys, slices.Collect(maps.Keys(w.SelectorLabels))...)
}

func withoutKeys(m map[string]string, keys []string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		if !slices.Contains(keys, k) {
			out[k] = v
		}
	}
	return nonEmpty(out)
}

func nonEmpty(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return m
}

// envOf splits the container's environment into plain values and Secret
// references; other sources (ConfigMaps, fieldRef) stay in the patch.
func envOf(env []corev1.EnvVar) (map[string]string, map[string]spec.SecretKeyRef) {
	plain, secrets := map[string]string{}, map[string]spec.SecretKeyRef{}
	for _, e := range env {
		switch ref := e.ValueFrom; {
		case ref == nil:
			plain[e.Name] = e.Value
		case ref.SecretKeyRef != nil && ref.SecretKeyRef.Optional == nil && ref.ConfigMapKeyRef == nil:
			secrets[e.Name] = spec.SecretKeyRef{Name: ref.SecretKeyRef.Name, Key: ref.SecretKeyRef.Key}
		}
	}
	if len(secrets) == 0 {
		secrets = nil
	}
	return nonEmpty(plain), secrets
}

func tcpPorts(ports []corev1.ContainerPort) []int32 {
	var out []int32
	for _, p := range ports {
		if p.Protocol == "" || p.Protocol == corev1.ProtocolTCP {
			out = append(out, p.ContainerPort)
		}
	}
	return out
}
