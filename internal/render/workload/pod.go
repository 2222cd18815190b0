package workload

import (
	"maps"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// deployment wraps the pod template. Unless update_strategy says otherwise,
// the update strategy never needs a spare GPU: a surge pod would wait for a
// free GPU that a fully used node pool does not have (or force a scale-up of
// an expensive node), so
//   - one replica: Recreate (the old pod releases its GPU first);
//   - several: RollingUpdate with maxSurge 0 and maxUnavailable 1, replacing
//     pods one at a time inside the GPUs already held.
func deployment(w spec.Workload, meta metav1.ObjectMeta, pod corev1.PodTemplateSpec, selector map[string]string) *appsv1.Deployment {
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: meta,
		Spec: appsv1.DeploymentSpec{
			// Unset replicas stay unset: the server defaults them to 1 and a
			// HorizontalPodAutoscaler can own them without a tug of war.
			Replicas: w.Replicas,
			Selector: &metav1.LabelSelector{MatchLabels: maps.Clone(selector)},
			Strategy: deploymentStrategy(w),
			Template: pod,
		},
	}
}

// deploymentStrategy is update_strategy's strategy, or the one derived from
// replicas when it is unset.
func deploymentStrategy(w spec.Workload) appsv1.DeploymentStrategy {
	mode := w.UpdateStrategy
	if mode == "" {
		mode = spec.UpdateRecreate
		if w.Replicas != nil && *w.Replicas > 1 {
			mode = spec.UpdateRolling
		}
	}
	rolling := func(surge, unavailable int32) appsv1.DeploymentStrategy {
		maxSurge, maxUnavailable := intstr.FromInt32(surge), intstr.FromInt32(unavailable)
		return appsv1.DeploymentStrategy{
			Type:          appsv1.RollingUpdateDeploymentStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &maxSurge, MaxUnavailable: &maxUnavailable},
		}
	}
	switch mode {
	case spec.UpdateRolling:
		return rolling(0, 1)
	case spec.UpdateSurge:
		return rolling(1, 0)
	default:
		return appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	}
}

// statefulSet gives each replica a stable identity (<name>-0, <name>-1, ...),
// the serving pattern of sharded inference servers. A created model cache
// becomes a volume claim template, so every replica keeps its own
// downloaded weights across restarts instead of all sharing one volume; the
// claims are deleted with the StatefulSet (not on scale-down), so destroy
// leaves no storage behind. serviceName names the governing headless
// Service that stable DNS names need; the workload does not create it.
func statefulSet(w spec.Workload, meta metav1.ObjectMeta, pod corev1.PodTemplateSpec, selector map[string]string,
	claims []corev1.PersistentVolumeClaim) *appsv1.StatefulSet {
	var retention *appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy
	if len(claims) > 0 {
		retention = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
			WhenDeleted: appsv1.DeletePersistentVolumeClaimRetentionPolicyType,
			WhenScaled:  appsv1.RetainPersistentVolumeClaimRetentionPolicyType,
		}
	}
	return &appsv1.StatefulSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"},
		ObjectMeta: meta,
		Spec: appsv1.StatefulSetSpec{
			Replicas:    w.Replicas,
			Selector:    &metav1.LabelSelector{MatchLabels: maps.Clone(selector)},
			ServiceName: w.Name,
			// Replicas of a GPU server start together: ordered startup would
			// hold each one behind the previous one's model download.
			PodManagementPolicy:                  appsv1.ParallelPodManagement,
			Template:                             pod,
			VolumeClaimTemplates:                 claims,
			PersistentVolumeClaimRetentionPolicy: retention,
			// One replica at a time, highest ordinal first: a sharded
			// server keeps serving while each shard restarts.
			UpdateStrategy: appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType},
		},
	}
}

// job runs the pod to completion. restartPolicy Never leaves a failed pod
// (and its logs) in place and lets backoffLimit count failures; OnFailure
// would restart the container on the same GPU node and hide them.
func job(w spec.Workload, meta metav1.ObjectMeta, pod corev1.PodTemplateSpec) *batchv1.Job {
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: meta,
		Spec:       jobSpec(w, pod),
	}
}

func jobSpec(w spec.Workload, pod corev1.PodTemplateSpec) batchv1.JobSpec {
	pod.Spec.RestartPolicy = corev1.RestartPolicyNever
	spec := batchv1.JobSpec{Template: pod}
	if c := w.Job; c != nil {
		spec.BackoffLimit = c.BackoffLimit
		spec.ActiveDeadlineSeconds = c.ActiveDeadlineSeconds
		spec.TTLSecondsAfterFinished = c.TTLSecondsAfterFinished
		spec.Completions = c.Completions
		spec.Parallelism = c.Parallelism
	}
	return spec
}

// cronJob starts the Job on the schedule; the job block shapes every Job it
// starts. The pod template's labels identify the runs' pods, so
// scheduled_nodes and destroy follow them as for a Job.
func cronJob(w spec.Workload, meta metav1.ObjectMeta, pod corev1.PodTemplateSpec) *batchv1.CronJob {
	c := w.CronJob
	spec := batchv1.CronJobSpec{
		Schedule:                   c.Schedule,
		SuccessfulJobsHistoryLimit: c.SuccessfulJobsHistoryLimit,
		FailedJobsHistoryLimit:     c.FailedJobsHistoryLimit,
		StartingDeadlineSeconds:    c.StartingDeadlineSeconds,
		ConcurrencyPolicy:          batchv1.ConcurrencyPolicy(c.ConcurrencyPolicy),
		JobTemplate:                batchv1.JobTemplateSpec{Spec: jobSpec(w, pod)},
	}
	if c.TimeZone != "" {
		spec.TimeZone = &c.TimeZone
	}
	if c.Suspend {
		spec.Suspend = &c.Suspend
	}
	return &batchv1.CronJob{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "CronJob"},
		ObjectMeta: meta,
		Spec:       spec,
	}
}

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
	if n := podVolumeCount(w); n > 0 {
		spec.Volumes, c.VolumeMounts = make([]corev1.Volume, 0, n), make([]corev1.VolumeMount, 0, n)
	}
	if w.ShmSize != "" {
		size, err := resource.ParseQuantity(w.ShmSize)
		if err != nil {
			return corev1.PodTemplateSpec{}, false
		}
		volume, mount := shmVolume(size)
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
func podVolumeCount(w spec.Workload) int {
	n := 0
	if w.ShmSize != "" {
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
