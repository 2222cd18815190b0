package workload

import (
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

func queuedWorkload(kind, scheduler string) spec.Workload {
	w := spec.Workload{Name: "train", Namespace: "team-a", Kind: kind, Cloud: "gke", Image: "img",
		GPU: spec.GPU{Count: 1, Accelerator: "a100-40gb"}, Queue: "team-a", QueueScheduler: scheduler}
	if kind == spec.KindCronJob {
		w.CronJob = &spec.CronJobControls{Schedule: "0 * * * *"}
	}
	if kind == spec.KindDistributedJob {
		nodes := int64(2)
		w.Distributed = &spec.DistributedControls{Nodes: &nodes}
	}
	return w
}

func TestQueueMarking(t *testing.T) {
	for _, kind := range kinds.Names() {
		t.Run("kueue "+kind, func(t *testing.T) {
			r := mustRenderQueued(t, queuedWorkload(kind, ""))
			main := r.Objects[len(r.Objects)-1]
			onObject := main.GetLabels()[LabelKueueQueueName]
			if kind == spec.KindCronJob {
				// Kueue manages the Jobs a CronJob starts, not the CronJob.
				onObject = cronJobOf(t, r).Spec.JobTemplate.Labels[LabelKueueQueueName]
				if main.GetLabels()[LabelKueueQueueName] != "" {
					t.Error("queue label on the CronJob itself")
				}
			}
			if onObject != "team-a" {
				t.Errorf("queue label %q, want team-a", onObject)
			}
			if s := r.PodTemplate().Spec.SchedulerName; s != "" {
				t.Errorf("Kueue needs no scheduler, got %q", s)
			}
		})
	}
	kai := mustRenderQueued(t, queuedWorkload(spec.KindJob, spec.QueueSchedulerKAI))
	if jobOf(t, kai).Labels[LabelKAIQueue] != "team-a" || kai.PodTemplate().Labels[LabelKAIQueue] != "team-a" ||
		kai.PodTemplate().Spec.SchedulerName != SchedulerKAI {
		t.Errorf("KAI: labels %v / %v, scheduler %q", jobOf(t, kai).Labels, kai.PodTemplate().Labels, kai.PodTemplate().Spec.SchedulerName)
	}
	volcano := mustRenderQueued(t, queuedWorkload(spec.KindDeployment, spec.QueueSchedulerVolcano))
	if volcano.PodTemplate().Annotations[AnnotationVolcanoQueue] != "team-a" || volcano.PodTemplate().Spec.SchedulerName != SchedulerVolcano {
		t.Errorf("Volcano: annotations %v, scheduler %q", volcano.PodTemplate().Annotations, volcano.PodTemplate().Spec.SchedulerName)
	}
}

func mustRenderQueued(t *testing.T, w spec.Workload) *Rendered {
	t.Helper()
	r, diags := ResolveAndRender(w, Options{SkipManifest: true})
	if diags.HasError() {
		t.Fatalf("Render: %v", diags)
	}
	return r
}

func TestQueueValidation(t *testing.T) {
	w := queuedWorkload(spec.KindJob, "slurm")
	w.Queue = "Team_A"
	diags := Validate(w)
	var paths []string
	for _, d := range diags.Errors() {
		paths = append(paths, d.PathString())
	}
	if len(paths) != 2 || paths[0] != "queue_scheduler" || paths[1] != "queue" {
		t.Errorf("errors at %v, want queue_scheduler and queue: %v", paths, diags)
	}
}
