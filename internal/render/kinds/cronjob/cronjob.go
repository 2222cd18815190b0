// Package cronjob is the cronjob kind: a CronJob that starts the Job of the
// job block on the cronjob block's schedule, updated in place.
package cronjob

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds/job"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds/kindkit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// Kind is the cronjob kind.
func Kind() kindkit.Kind {
	return kindkit.Kind{
		Name:        spec.KindCronJob,
		Doc:         "A `cronjob` runs the Job of the `job` block on the `cronjob` block's schedule; it is updated in place.",
		GVK:         batchv1.SchemeGroupVersion.WithKind("CronJob"),
		Resource:    "cronjobs",
		New:         func() kindkit.Object { return &batchv1.CronJob{} },
		Build:       build,
		PodTemplate: kindkit.Typed(func(c *batchv1.CronJob) *corev1.PodTemplateSpec { return &c.Spec.JobTemplate.Spec.Template }),
		// The Jobs it starts are what Kueue and KAI read their labels from.
		RunMeta:  kindkit.Typed(func(c *batchv1.CronJob) *metav1.ObjectMeta { return &c.Spec.JobTemplate.ObjectMeta }),
		Pods:     job.ParallelPods,
		Accepts:  []string{kindkit.BlockJob, kindkit.BlockCronJob},
		Validate: check,
		Wait:     kindkit.Wait{Default: kindkit.WaitNone, NoPods: "a CronJob starts none until its schedule fires"},
		Kueue: kindkit.Kueue{AdmittedTogether: kindkit.Typed(func(c *batchv1.CronJob) int64 {
			return job.ParallelismOf(c.Spec.JobTemplate.Spec)
		})},
		// No Selector: the selector of each Job it starts is the server's.
		Adopt: &kindkit.Adopt{Attributes: func(obj kindkit.Object, w *spec.Workload) {
			if c, ok := obj.(*batchv1.CronJob); ok {
				w.CronJob = controlsOf(c.Spec)
			}
		}},
	}
}

// build starts the Job on the schedule; the job block shapes every Job it
// starts. The pod template's labels identify the runs' pods, so
// scheduled_nodes and destroy follow them as for a Job.
// A cronjob without its block has nothing to build: validation reports it
// on kind first.
func build(in kindkit.BuildInput) (kindkit.Object, bool) {
	c := in.Workload.CronJob
	if c == nil {
		return nil, false
	}
	s := batchv1.CronJobSpec{
		Schedule:                   c.Schedule,
		SuccessfulJobsHistoryLimit: c.SuccessfulJobsHistoryLimit,
		FailedJobsHistoryLimit:     c.FailedJobsHistoryLimit,
		StartingDeadlineSeconds:    c.StartingDeadlineSeconds,
		ConcurrencyPolicy:          batchv1.ConcurrencyPolicy(c.ConcurrencyPolicy),
		JobTemplate:                batchv1.JobTemplateSpec{Spec: job.Spec(in.Workload, in.Pod)},
	}
	if c.TimeZone != "" {
		s.TimeZone = &c.TimeZone
	}
	if c.Suspend {
		s.Suspend = &c.Suspend
	}
	return &batchv1.CronJob{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "CronJob"},
		ObjectMeta: in.Meta,
		Spec:       s,
	}, true
}

// controlsOf is the cronjob block of a live CronJob, for import.
func controlsOf(s batchv1.CronJobSpec) *spec.CronJobControls {
	c := &spec.CronJobControls{
		Schedule: s.Schedule, ConcurrencyPolicy: string(s.ConcurrencyPolicy),
		SuccessfulJobsHistoryLimit: s.SuccessfulJobsHistoryLimit, FailedJobsHistoryLimit: s.FailedJobsHistoryLimit,
		StartingDeadlineSeconds: s.StartingDeadlineSeconds,
	}
	if s.TimeZone != nil {
		c.TimeZone = *s.TimeZone
	}
	if s.Suspend != nil {
		c.Suspend = *s.Suspend
	}
	return c
}
