// Package job is the job kind: a batch/v1 Job that runs its pods to
// completion once. Its pod template is immutable, so a change that reaches
// it replaces the Job.
package job

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds/kindkit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// Kind is the job kind.
func Kind() kindkit.Kind {
	return kindkit.Kind{
		Name: spec.KindJob,
		Doc: "A Job's pod template is immutable in Kubernetes, so on a `job` a change to anything that reaches its pods " +
			"(image, command, args, env, gpu, sizing, probes, pod labels, node_pool, cloud, ...) or to `job.completions` " +
			"replaces the Job, and the plan marks that attribute as forcing the replacement, also when its new value " +
			"is known only at apply; a deployment is updated in place.",
		GVK:         batchv1.SchemeGroupVersion.WithKind("Job"),
		Resource:    "jobs",
		New:         func() kindkit.Object { return &batchv1.Job{} },
		Build:       func(in kindkit.BuildInput) (kindkit.Object, bool) { return build(in), true },
		PodTemplate: kindkit.Typed(func(j *batchv1.Job) *corev1.PodTemplateSpec { return &j.Spec.Template }),
		Pods:        ParallelPods,
		Accepts:     []string{kindkit.BlockJob},
		Wait:        kindkit.Wait{Default: kindkit.WaitComplete, Completes: true},
		Kueue: kindkit.Kueue{
			AdmittedTogether: kindkit.Typed(func(j *batchv1.Job) int64 { return ParallelismOf(j.Spec) }),
			// Kueue's webhook suspends the Job and its controller resumes it
			// at admission.
			SetSuspend: func(obj kindkit.Object, suspend bool) {
				if j, ok := obj.(*batchv1.Job); ok {
					j.Spec.Suspend = &suspend
				}
			},
		},
		Immutable: kindkit.Immutable{
			// batch/v1 validation rejects any change to spec.template, and
			// lets spec.completions change only on Indexed Jobs (gpu_workload
			// creates NonIndexed ones; a real API server answers
			// "spec.completions: field is immutable").
			SpecFields:   []string{"template", "completions"},
			Attributes:   []string{"job.completions"},
			PodTemplate:  true,
			DriftSummary: "This Job's pod template would change",
			DriftDetail: "The provider now renders this Job's pod template (or completions) differently, although no attribute " +
				"of it changed. Kubernetes does not allow changing them on a Job, so the update will be refused. " +
				"Allowed: replace the Job (terraform apply -replace=<address>) if it should run again with the new " +
				"template, or leave it as it is.",
		},
		NotAdoptable: "its selector and pod labels are generated per object by the server, and a Job that ran is " +
			"replaced rather than taken over",
	}
}

// ParallelPods is the pod count of kinds that run a Job: job.parallelism,
// which the Job controller defaults to 1.
func ParallelPods(w spec.Workload) (int64, string) {
	if w.Job != nil && w.Job.Parallelism != nil {
		return int64(*w.Job.Parallelism), "job.parallelism"
	}
	return 1, "job.parallelism"
}

// ParallelismOf is how many pods of a Job spec run at once.
func ParallelismOf(s batchv1.JobSpec) int64 {
	if s.Parallelism == nil {
		return 1
	}
	return int64(*s.Parallelism)
}

// build runs the pod to completion.
func build(in kindkit.BuildInput) *batchv1.Job {
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: in.Meta,
		Spec:       Spec(in.Workload, in.Pod),
	}
}

// Spec is the Job spec of the job block. restartPolicy Never leaves a
// failed pod (and its logs) in place and lets backoffLimit count failures;
// OnFailure would restart the container on the same GPU node and hide them.
func Spec(w spec.Workload, pod corev1.PodTemplateSpec) batchv1.JobSpec {
	pod.Spec.RestartPolicy = corev1.RestartPolicyNever
	s := batchv1.JobSpec{Template: pod}
	if c := w.Job; c != nil {
		s.BackoffLimit = c.BackoffLimit
		s.ActiveDeadlineSeconds = c.ActiveDeadlineSeconds
		s.TTLSecondsAfterFinished = c.TTLSecondsAfterFinished
		s.Completions = c.Completions
		s.Parallelism = c.Parallelism
	}
	return s
}
