package kube

import (
	"context"
	"errors"
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

// refusalVerdict carries the refusal clock's answers from a wait's checks
// to the loop around the wait, which restarts it with a deadline at the
// moment the earliest refused pod reaches the limit: no event may come then.
type refusalVerdict struct {
	gaveUp bool      // a pod has been refused for the limit
	rearm  bool      // the moment to wake at changed: wait again with it
	next   time.Time // when the earliest refused pod reaches the limit
	armed  time.Time // the deadline the current wait runs with
}

// judge (with a clock) observes the workload's pods and reports whether the current wait
// must end: the limit is reached, or the moment to wake at changed.
func (v *refusalVerdict) judge(clock *refusalClock, pods []corev1.Pod) bool {
	v.gaveUp, v.next = clock.observe(pods, time.Now())
	v.rearm = !v.gaveUp && !v.next.Equal(v.armed)
	return v.gaveUp || v.rearm
}

// until returns the context of the next wait: the caller's, ended early at
// the moment the earliest refused pod reaches the limit.
func (v *refusalVerdict) until(ctx context.Context) (context.Context, context.CancelFunc) {
	v.armed, v.rearm = v.next, false
	if v.armed.IsZero() {
		return ctx, func() {}
	}
	return context.WithDeadline(ctx, v.armed)
}

// again reports whether a wait that ended with err must be started again:
// it ended only to move its deadline, or at that deadline.
func (v *refusalVerdict) again(ctx context.Context, err error) bool {
	if v.gaveUp || ctx.Err() != nil {
		return false
	}
	if err == nil {
		return v.rearm
	}
	return !v.armed.IsZero() && errors.Is(err, context.DeadlineExceeded)
}

// mark records on a NotReadyError that the wait gave up on the scheduler's
// refusal rather than at its timeout.
func (v *refusalVerdict) mark(err error, clock *refusalClock) error {
	var notReady *NotReadyError
	if v.gaveUp && clock != nil && errors.As(err, &notReady) {
		notReady.RefusedFor = clock.limit
		notReady.GaveUpOnRefusal = true
	}
	return err
}

// directRecheck is how often a wait without the watch cache looks at the
// pods again while a limit is set: its watch follows the workload object,
// which does not change when the scheduler refuses a pod.
const directRecheck = time.Second
