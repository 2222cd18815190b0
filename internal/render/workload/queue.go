package workload

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/names"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// Where each queue system reads a workload's queue (docs/design/queues.md).
const (
	// LabelKueueQueueName goes on the Job, Deployment or StatefulSet itself,
	// and on a CronJob's job template; Kueue's webhooks take it from there.
	LabelKueueQueueName = "kueue.x-k8s.io/queue-name"
	// LabelKAIQueue is read from the top owner or the pod; it goes on both.
	LabelKAIQueue = "kai.scheduler/queue"
	// AnnotationVolcanoQueue is read from the pod only.
	AnnotationVolcanoQueue = "scheduling.volcano.sh/queue-name"
	// Scheduler names of KAI Scheduler and Volcano. Kueue works with the
	// default scheduler and needs none.
	SchedulerKAI     = "kai-scheduler"
	SchedulerVolcano = "volcano"
)

// markQueue puts the workload into its queue the way its queue system
// reads it. Kueue owns what it does next (suspending a Job, gating pods,
// adding a flavor's selectors at admission); the provider never renders
// those fields, so it never fights Kueue over them.
func markQueue(r *Rendered, w spec.Workload) {
	if w.Queue == "" {
		return
	}
	main := r.Workload()
	pod := r.Kind.PodTemplate(main)
	// A kind that runs through other objects (a CronJob's Jobs) has its
	// queue read from their template.
	var run *metav1.ObjectMeta
	if r.Kind.RunMeta != nil {
		run = r.Kind.RunMeta(main)
	}
	switch w.QueueScheduler {
	case spec.QueueSchedulerKAI:
		main.SetLabels(withEntry(main.GetLabels(), LabelKAIQueue, w.Queue))
		if run != nil {
			addLabel(run, LabelKAIQueue, w.Queue)
		}
		addLabel(&pod.ObjectMeta, LabelKAIQueue, w.Queue)
		pod.Spec.SchedulerName = SchedulerKAI
	case spec.QueueSchedulerVolcano:
		pod.Annotations = withEntry(pod.Annotations, AnnotationVolcanoQueue, w.Queue)
		pod.Spec.SchedulerName = SchedulerVolcano
	default:
		if run != nil {
			addLabel(run, LabelKueueQueueName, w.Queue)
			return
		}
		main.SetLabels(withEntry(main.GetLabels(), LabelKueueQueueName, w.Queue))
	}
}

func addLabel(meta *metav1.ObjectMeta, key, value string) {
	meta.Labels = withEntry(meta.Labels, key, value)
}

// withEntry returns a copy of m with key set: rendered objects never share
// label maps.
func withEntry(m map[string]string, key, value string) map[string]string {
	out := make(map[string]string, len(m)+1)
	maps.Copy(out, m)
	out[key] = value
	return out
}

// validateQueue: the queue name ends up in a label value (Kueue, KAI) or
// names an object, so it is a DNS-1123 label; the scheduler is one the
// provider knows how to address.
func validateQueue(w spec.Workload, diags *gpudiag.Diagnostics) {
	if w.QueueScheduler != "" && !slices.Contains(spec.QueueSchedulerNames(), w.QueueScheduler) {
		diags.AddError(gpudiag.At("queue_scheduler"), "Unknown queue scheduler", strconv.Quote(w.QueueScheduler)+
			" is not a queue system the provider knows. Allowed: "+gpudiag.QuoteList(spec.QueueSchedulerNames())+".")
	}
	if w.Queue == "" {
		return
	}
	if msgs := names.DNS1123Label(w.Queue); len(msgs) > 0 {
		diags.AddError(gpudiag.At("queue"), "Invalid queue", strconv.Quote(w.Queue)+" is not a queue name: "+
			strings.Join(msgs, "; ")+". Allowed: the ref of a gpu_queue, or the name of a queue (a DNS-1123 label).")
	}
}
