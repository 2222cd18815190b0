package kube

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func podWithVerdict(uid string, status corev1.ConditionStatus, reason string) corev1.Pod {
	return corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{UID: types.UID(uid)},
		Status: corev1.PodStatus{Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: status, Reason: reason},
		}},
	}
}

func TestRefusalClock_limitCountsFromFirstRefusalSeen(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	clock := newRefusalClock(30 * time.Second)
	refused := podWithVerdict("a", corev1.ConditionFalse, corev1.PodReasonUnschedulable)

	if over, next := clock.observe([]corev1.Pod{refused}, t0); over || !next.Equal(t0.Add(30*time.Second)) {
		t.Fatalf("first refusal: over=%v next=%v, want false and %v", over, next, t0.Add(30*time.Second))
	}
	if over, _ := clock.observe([]corev1.Pod{refused}, t0.Add(29*time.Second)); over {
		t.Fatal("over the limit after 29s of a 30s limit")
	}
	if over, _ := clock.observe([]corev1.Pod{refused}, t0.Add(30*time.Second)); !over {
		t.Fatal("not over the limit after 30s of a 30s limit")
	}
}

func TestRefusalClock_scheduledPodStartsAgain(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	clock := newRefusalClock(30 * time.Second)
	refused := podWithVerdict("a", corev1.ConditionFalse, corev1.PodReasonUnschedulable)
	scheduled := podWithVerdict("a", corev1.ConditionTrue, "")

	clock.observe([]corev1.Pod{refused}, t0)
	if over, next := clock.observe([]corev1.Pod{scheduled}, t0.Add(20*time.Second)); over || !next.IsZero() {
		t.Fatalf("scheduled pod: over=%v next=%v, want false and no deadline", over, next)
	}
	// Refused again (e.g. preempted): the limit counts from now, not from t0.
	if over, _ := clock.observe([]corev1.Pod{refused}, t0.Add(40*time.Second)); over {
		t.Fatal("a pod refused again counted the time it was scheduled")
	}
}

func TestRefusalClock_onlyTheSchedulersRefusalCounts(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	clock := newRefusalClock(0)
	gated := podWithVerdict("gated", corev1.ConditionFalse, corev1.PodReasonSchedulingGated)
	deleting := podWithVerdict("deleting", corev1.ConditionFalse, corev1.PodReasonUnschedulable)
	deleting.DeletionTimestamp = &metav1.Time{Time: t0}
	if over, next := clock.observe([]corev1.Pod{gated, deleting, {}}, t0); over || !next.IsZero() {
		t.Fatalf("gated, deleting and unjudged pods: over=%v next=%v, want false and no deadline", over, next)
	}
	refused := podWithVerdict("a", corev1.ConditionFalse, corev1.PodReasonUnschedulable)
	if over, _ := clock.observe([]corev1.Pod{gated, refused}, t0); !over {
		t.Fatal("a limit of 0 did not give up at the first refusal")
	}
}

func TestNewRefusalClock_noLimitKeepsNoClock(t *testing.T) {
	if newRefusalClock(NoUnschedulableLimit) != nil {
		t.Fatal("NoUnschedulableLimit keeps a refusal clock")
	}
}
