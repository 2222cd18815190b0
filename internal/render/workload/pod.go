package workload

import (
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds/kindkit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// podTemplate assembles the pod: placement from the cloud profile, one
// container, volumes and DRA claims. The container takes place.Resources
// as they are: callers pass a placement from PlacePod that they do not use
// again (build, and the benchmark, place once per pod).
func podTemplate(w spec.Workload, in clouds.GPUIntent, place podPlacement, r *Rendered) (corev1.PodTemplateSpec, bool) {
	c := container(w, place)
	spec := corev1.PodSpec{
		ServiceAccountName: w.ServiceAccountName,
		ImagePullSecrets:   pullSecrets(w.ImagePullSecrets),
		PriorityClassName:  w.PriorityClassName,
		NodeSelector:       maps.Clone(r.NodeSelector),
		Affinity:           r.Affinity.DeepCopy(),
		Tolerations:        append([]corev1.Toleration(nil), r.Tolerations...),
		HostIPC:            place.HostIPC,
	}
	if n := podVolumeCount(w, r.Kind); n > 0 {
		spec.Volumes, c.VolumeMounts = make([]corev1.Volume, 0, n), make([]corev1.VolumeMount, 0, n)
	}
	if size, ok := shmSize(w, r.Kind, c.Resources); !ok {
		return corev1.PodTemplateSpec{}, false
	} else if size != nil {
		volume, mount := shmVolume(*size)
		spec.Volumes = append(spec.Volumes, volume)
		c.VolumeMounts = append(c.VolumeMounts, mount)
	}
	if w.ModelCache != nil {
		volume, mount := modelCacheVolume(w)
		spec.Volumes = append(spec.Volumes, volume)
		c.VolumeMounts = append(c.VolumeMounts, mount)
	}
	if in.DRA {
		spec.ResourceClaims = DRAPodClaims(w.Name)
	}
	spec.Containers = []corev1.Container{c}
	return corev1.PodTemplateSpec{ObjectMeta: podMeta(w), Spec: spec}, true
}

// podVolumeCount is how many volumes podTemplate mounts (shm, model
// cache), so it allocates their lists once.
func podVolumeCount(w spec.Workload, kind kindkit.Kind) int {
	n := 0
	if w.ShmSize != "" || kind.SharedMemory {
		n++
	}
	if w.ModelCache != nil {
		n++
	}
	return n
}

func podMeta(w spec.Workload) metav1.ObjectMeta {
	labels := identityLabels(w, w.PodLabels)
	var annotations map[string]string
	if len(w.PodAnnotations) > 0 {
		annotations = maps.Clone(w.PodAnnotations)
	}
	return metav1.ObjectMeta{Labels: labels, Annotations: annotations}
}

// container is the workload's only container, named after the workload.
func container(w spec.Workload, place podPlacement) corev1.Container {
	c := corev1.Container{
		Name:           ContainerName(w),
		Image:          w.Image,
		Command:        append([]string(nil), w.Command...),
		Args:           append([]string(nil), w.Args...),
		Env:            append(ContainerEnv(w.Env, place.Env), secretEnv(w.SecretEnv)...),
		Ports:          containerPorts(w.Ports),
		Resources:      place.Resources, // PlacePod built it for this pod alone
		StartupProbe:   buildProbe(w.StartupProbe, startupDefaults, w.Ports),
		LivenessProbe:  buildProbe(w.LivenessProbe, livenessDefaults, w.Ports),
		ReadinessProbe: buildProbe(w.ReadinessProbe, readinessDefaults, w.Ports),
	}
	if w.IPCLock {
		c.SecurityContext = &corev1.SecurityContext{
			Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"IPC_LOCK"}},
		}
	}
	return c
}

// containerResources sets GPU, CPU and memory.
//
// Memory: request = limit, so the pod cannot be OOM-killed for using memory
// the node promised to someone else, and GPU pods (Guaranteed-like memory)
// are evicted last.
//
// CPU: request only, no limit. A CFS quota throttles bursty data-loader and
// tokenizer threads in 100 ms periods even when the node's CPUs are idle,
// which starves the GPU; the request still reserves the cores on the node.
func containerResources(c Container, in clouds.GPUIntent, place clouds.Placement) (corev1.ResourceRequirements, bool) {
	cpu, memory, ok := containerSizing(c, in)
	if !ok {
		return corev1.ResourceRequirements{}, false
	}
	res := corev1.ResourceRequirements{Limits: corev1.ResourceList{}, Requests: corev1.ResourceList{}}
	if !c.KeepUnsized || c.Size != "" || c.CPU != "" {
		res.Requests[corev1.ResourceCPU] = cpu
	}
	if !c.KeepUnsized || c.Size != "" || c.Memory != "" {
		res.Requests[corev1.ResourceMemory] = memory
		res.Limits[corev1.ResourceMemory] = memory
	}
	if in.DRA {
		// The claim replaces the extended resource: asking for both would
		// allocate two sets of GPUs.
		res.Claims = []corev1.ResourceClaim{{Name: draClaimName}}
		return res, true
	}
	clouds.SetGPUQuantity(&res, place.ResourceName, max(in.Count, 1))
	return res, true
}

// ContainerEnv merges cloud defaults under the user's env, sorted by name so
// the manifest does not change with map order.
func ContainerEnv(user, cloudDefaults map[string]string) []corev1.EnvVar {
	env := make([]corev1.EnvVar, 0, len(user)+len(cloudDefaults))
	for name, value := range cloudDefaults {
		if _, overridden := user[name]; !overridden {
			env = append(env, corev1.EnvVar{Name: name, Value: value})
		}
	}
	for name, value := range user {
		env = append(env, corev1.EnvVar{Name: name, Value: value})
	}
	if len(env) == 0 {
		return nil
	}
	sortEnvByName(env)
	return env
}

// secretEnv references Secret keys, sorted by variable name, after the
// plain variables.
func secretEnv(refs map[string]spec.SecretKeyRef) []corev1.EnvVar {
	env := make([]corev1.EnvVar, 0, len(refs))
	for name, ref := range refs {
		env = append(env, corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{
			SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: ref.Name}, Key: ref.Key},
		}})
	}
	sortEnvByName(env)
	return env
}

// sortEnvByName sorts variables whose names are unique (map keys), so the
// order is total.
func sortEnvByName(env []corev1.EnvVar) {
	slices.SortFunc(env, func(a, b corev1.EnvVar) int { return strings.Compare(a.Name, b.Name) })
}

func containerPorts(ports []int32) []corev1.ContainerPort {
	if len(ports) == 0 {
		return nil
	}
	out := make([]corev1.ContainerPort, len(ports))
	for i, p := range ports {
		// TCP is what the API server would default to; stating it keeps the
		// live object equal to the manifest.
		out[i] = corev1.ContainerPort{ContainerPort: p, Protocol: corev1.ProtocolTCP}
	}
	return out
}

func pullSecrets(names []string) []corev1.LocalObjectReference {
	if len(names) == 0 {
		return nil
	}
	out := make([]corev1.LocalObjectReference, len(names))
	for i, name := range names {
		out[i] = corev1.LocalObjectReference{Name: name}
	}
	return out
}
