package kube

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// NoUnschedulableLimit makes a wait last for its whole context, however
// long the scheduler keeps refusing the pods: a cluster autoscaler may be
// adding the node they need.
const NoUnschedulableLimit = time.Duration(-1)

// refusalClock remembers since when each pod of a workload has been refused
// by the scheduler (PodScheduled False, reason Unschedulable), by this
// process's clock: the condition's own time has a resolution of one second
// and comes from another machine's clock.
type refusalClock struct {
	limit time.Duration
	since map[types.UID]time.Time
}

// newRefusalClock returns nil for NoUnschedulableLimit (or any negative
// limit), so a wait without a limit does no pod bookkeeping.
func newRefusalClock(limit time.Duration) *refusalClock {
	if limit < 0 {
		return nil
	}
	return &refusalClock{limit: limit, since: map[types.UID]time.Time{}}
}

// observe records the pods refused now and forgets those no longer refused
// (scheduled, or gone). It reports whether one has been refused for the
// limit, and otherwise when the earliest refused one will reach it (zero
// when none is refused).
func (r *refusalClock) observe(pods []corev1.Pod, now time.Time) (bool, time.Time) {
	refused := make(map[types.UID]time.Time, len(r.since))
	var next time.Time
	for i := range pods {
		if !refusedByScheduler(&pods[i]) {
			continue
		}
		uid := pods[i].UID
		since, seen := r.since[uid]
		if !seen {
			since = now
		}
		refused[uid] = since
		if !now.Before(since.Add(r.limit)) {
			r.since = refused
			return true, time.Time{}
		}
		if deadline := since.Add(r.limit); next.IsZero() || deadline.Before(next) {
			next = deadline
		}
	}
	r.since = refused
	return false, next
}

// refusedByScheduler reports whether the scheduler's last verdict on the
// pod is that no node can take it.
func refusedByScheduler(pod *corev1.Pod) bool {
	if pod.DeletionTimestamp != nil {
		return false
	}
	for _, cond := range pod.Status.Conditions {
		if cond.Type == corev1.PodScheduled {
			return cond.Status == corev1.ConditionFalse && cond.Reason == corev1.PodReasonUnschedulable
		}
	}
	return false
}
