// Package distributedjob is the distributed_job kind: an Indexed Job of
// distributed.nodes pods that form one training job. A headless Service
// gives every pod a stable DNS name (<job>-<index>.<job>), the completion
// index is each pod's node rank, and the launcher's settings (torchrun's
// PET_* variables) are derived from the intent, as JobSet and Kubeflow
// Trainer render them underneath (docs/design/distributed-jobs.md).
package distributedjob

import (
	"maps"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds/job"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds/kindkit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// AnnotationCompletionIndex is where the Job controller writes each pod's
// completion index (batch/v1, stable since Kubernetes 1.24).
const AnnotationCompletionIndex = "batch.kubernetes.io/job-completion-index"

// MaxPort is the highest TCP port.
const MaxPort = 65535

// MaxNodes is the most pods an Indexed Job may have (batch/v1 validation
// caps completions of Indexed Jobs at 10^5).
const MaxNodes = 100000

// PortName names the rendezvous port on the Service and the container.
const PortName = "rendezvous"

// Kind is the distributed_job kind.
func Kind() kindkit.Kind {
	k := job.Kind()
	k.Name = spec.KindDistributedJob
	k.Doc = "A `distributed_job` runs `distributed.nodes` pods as one job: an Indexed Job whose pods find each other " +
		"under a headless Service of the same name (`<name>-0.<name>` is pod 0), with each pod's node rank from its " +
		"completion index and the launcher's settings (torchrun's `PET_*` variables) set; one failed pod fails the " +
		"whole Job. A change that reaches its pods re-creates the Job and keeps the Service."
	k.Build = func(in kindkit.BuildInput) (kindkit.Object, bool) { return build(in) }
	k.Companions = func(in kindkit.BuildInput) []kindkit.Object { return []kindkit.Object{Service(in)} }
	k.Recognise = kindkit.Typed(IsDistributed)
	k.Pods = NodePods
	k.SharedMemory = true
	k.Accepts = []string{kindkit.BlockJob, kindkit.BlockDistributed}
	k.Validate = validate
	k.Immutable.Attributes = []string{"distributed"}
	k.Immutable.RecreateObject = true
	k.Immutable.DriftDetail = "The provider now renders this Job's pod template (or completions) differently, although " +
		"no attribute of it changed. Kubernetes does not allow changing them on a Job, so the update would be " +
		"refused. Allowed: re-create the Job (terraform apply -replace=<address>) if it should run again with the " +
		"new template, or leave it as it is."
	// Import takes over a hand-written Indexed Job with its headless
	// Service (adopt.go).
	k.Adopt, k.NotAdoptable = adoption(), ""
	return k
}

// IsDistributed tells a distributed job's Indexed Job (pods under a
// subdomain) from a job kind's, which the provider renders NonIndexed.
func IsDistributed(j *batchv1.Job) bool {
	return j.Spec.CompletionMode != nil && *j.Spec.CompletionMode == batchv1.IndexedCompletion &&
		j.Spec.Template.Spec.Subdomain != ""
}

// NodePods is distributed.nodes: every pod runs at once, or the job
// cannot form.
func NodePods(w spec.Workload) (int64, string) {
	if d := w.Distributed; d != nil && d.Nodes != nil && *d.Nodes > 0 {
		return *d.Nodes, "distributed.nodes"
	}
	return 1, "distributed.nodes"
}

// ServiceName is the headless Service's name: the workload's, so pod i is
// <name>-i.<name>.
func ServiceName(w spec.Workload) string { return w.Name }

// MasterAddr is pod 0's stable name, resolved through the pod's DNS search
// path in its namespace.
func MasterAddr(w spec.Workload) string { return w.Name + "-0." + ServiceName(w) }

// Port is the rendezvous port.
func Port(w spec.Workload) int32 {
	if d := w.Distributed; d != nil && d.Port != nil && *d.Port > 0 && *d.Port <= MaxPort {
		return int32(*d.Port)
	}
	return spec.DefaultDistributedPort
}

// Launcher is the launcher whose settings the pods get.
func Launcher(w spec.Workload) string {
	if d := w.Distributed; d != nil && d.Launcher != "" {
		return d.Launcher
	}
	return spec.LauncherTorchrun
}

// build is the Indexed Job: all nodes at once, one pod per index, and a
// failure of any pod fails the Job (gang semantics: a plain Job cannot
// restart the survivors, so it ends them instead of leaving them waiting
// for a peer that will not come back).
func build(in kindkit.BuildInput) (kindkit.Object, bool) {
	w := in.Workload
	nodes, _ := NodePods(w)
	if len(in.Pod.Spec.Containers) == 0 || nodes < 1 {
		return nil, false
	}
	pod := in.Pod
	pod.Spec.Subdomain = ServiceName(w)
	pod.Spec.Containers = append([]corev1.Container(nil), pod.Spec.Containers...)
	addLauncher(&pod.Spec.Containers[0], w)
	s := job.Spec(w, pod)
	n := int32(nodes)
	s.Completions, s.Parallelism = &n, &n
	s.CompletionMode = ptr(batchv1.IndexedCompletion)
	s.BackoffLimit = ptr(int32(0))
	if w.Job != nil && w.Job.BackoffLimit != nil {
		s.BackoffLimit = w.Job.BackoffLimit
	}
	s.PodFailurePolicy = failurePolicy(pod.Spec.Containers[0].Name)
	// Replace a pod only once it is fully terminated: never two pods of one
	// index (one rank) at once. podFailurePolicy requires this value.
	s.PodReplacementPolicy = ptr(batchv1.Failed)
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: in.Meta,
		Spec:       s,
	}, true
}

// failurePolicy: a pod disrupted from outside (drained, evicted,
// preempted: the DisruptionTarget condition) counts against backoff_limit
// like any failure, so the default 0 fails the Job and a backoff_limit
// above 0 lets such a pod be replaced (useful with an elastic launcher). A
// program that exits non-zero fails the Job at once whatever backoff_limit
// says: it would fail again, and its peers are already broken. The Count
// rule comes first because a disrupted container also exits non-zero.
func failurePolicy(container string) *batchv1.PodFailurePolicy {
	return &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{
		{
			Action: batchv1.PodFailurePolicyActionCount,
			OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{
				{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue},
			},
		},
		{
			Action: batchv1.PodFailurePolicyActionFailJob,
			OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{
				ContainerName: &container,
				Operator:      batchv1.PodFailurePolicyOnExitCodesOpNotIn,
				Values:        []int32{0},
			},
		},
	}}
}

// LauncherEnv is the launcher's settings, in name order; none for
// launcher none. torchrun reads every flag from PET_<FLAG> (a flag on its
// command line still wins), so the user's command is plain `torchrun
// train.py`; its default static rendezvous meets on the master address.
func LauncherEnv(w spec.Workload) []corev1.EnvVar {
	if Launcher(w) != spec.LauncherTorchrun {
		return nil
	}
	nodes, _ := NodePods(w)
	return []corev1.EnvVar{
		{Name: "PET_MASTER_ADDR", Value: MasterAddr(w)},
		{Name: "PET_MASTER_PORT", Value: strconv.Itoa(int(Port(w)))},
		{Name: "PET_NNODES", Value: strconv.FormatInt(nodes, 10)},
		{Name: "PET_NODE_RANK", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{
			APIVersion: "v1", FieldPath: "metadata.annotations['" + AnnotationCompletionIndex + "']",
		}}},
		{Name: "PET_NPROC_PER_NODE", Value: strconv.FormatInt(max(w.GPU.Count, 1), 10)},
	}
}

// LauncherEnvNames are the variables a launcher sets, which env and
// secret_env may not set too.
func LauncherEnvNames(launcher string) []string {
	var names []string
	for _, e := range LauncherEnv(spec.Workload{Distributed: &spec.DistributedControls{Launcher: launcher}}) {
		names = append(names, e.Name)
	}
	return names
}

// LauncherNames are the distributed.launcher values, the default first.
func LauncherNames() []string { return []string{spec.LauncherTorchrun, spec.LauncherNone} }

// addLauncher gives the GPU container the launcher's variables and the
// rendezvous port (so the port is named on the pod, as on the Service).
func addLauncher(c *corev1.Container, w spec.Workload) {
	c.Env = append(append([]corev1.EnvVar(nil), c.Env...), LauncherEnv(w)...)
	port := Port(w)
	for _, p := range c.Ports {
		if p.ContainerPort == port {
			return
		}
	}
	c.Ports = append(append([]corev1.ContainerPort(nil), c.Ports...),
		corev1.ContainerPort{Name: PortName, ContainerPort: port, Protocol: corev1.ProtocolTCP})
}

// Service is the headless Service the pods' names live under. It
// publishes not-ready addresses: pod 0's name must resolve while the pods
// start, before any readiness (the DNS records of a headless Service's
// pods otherwise wait for readiness). It is not owned by the Job, so a
// re-created Job keeps it.
func Service(in kindkit.BuildInput) *corev1.Service {
	meta := in.Meta
	meta.Name = ServiceName(in.Workload)
	meta.Labels = maps.Clone(in.Meta.Labels)
	meta.Annotations = maps.Clone(in.Meta.Annotations)
	port := Port(in.Workload)
	return &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: meta,
		Spec: corev1.ServiceSpec{
			ClusterIP:                corev1.ClusterIPNone,
			Selector:                 maps.Clone(in.Selector),
			PublishNotReadyAddresses: true,
			Ports: []corev1.ServicePort{{
				Name: PortName, Port: port, TargetPort: intstr.FromInt32(port), Protocol: corev1.ProtocolTCP,
			}},
		},
	}
}

func ptr[T any](v T) *T { return &v }
