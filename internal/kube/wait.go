package kube

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// WaitMode says what "ready" means for a workload.
type WaitMode string

// Wait modes. Rollout is a Deployment's default, Complete a Job's.
const (
	WaitRollout   WaitMode = "rollout"
	WaitComplete  WaitMode = "complete"
	WaitScheduled WaitMode = "scheduled"
	WaitNone      WaitMode = "none"
	// WaitAdmitted ends when Kueue admits the workload (its quota is
	// reserved and its pods may start): for queued work.
	WaitAdmitted WaitMode = "admitted"
)

// WaitModes lists the modes for validators and documentation.
func WaitModes() []string {
	return []string{string(WaitRollout), string(WaitComplete), string(WaitScheduled), string(WaitAdmitted), string(WaitNone)}
}

// NotReadyError is returned when a workload does not become ready in time.
// It carries what the scheduler and kubelet said about its pods.
type NotReadyError struct {
	Ref     ObjectRef
	Mode    WaitMode
	Waited  time.Duration
	Pods    []PodProblem
	Failure string
	// GaveUpOnRefusal says the wait ended because the scheduler had refused
	// a pod for RefusedFor, before the wait's own timeout.
	GaveUpOnRefusal bool
	RefusedFor      time.Duration
}

// PodProblem is one pod that keeps the workload from being ready.
type PodProblem struct {
	Pod     string
	Reason  string
	Message string
	// Labels are the pod's: which group of an object of several pod
	// templates (a Ray cluster's groups) it belongs to.
	Labels map[string]string
}

func (e *NotReadyError) Error() string {
	var b strings.Builder
	switch {
	case e.Failure != "":
		fmt.Fprintf(&b, "%s failed: %s", e.Ref, e.Failure)
	case e.GaveUpOnRefusal:
		fmt.Fprintf(&b, "%s was not ready (wait_for = %q): the scheduler has refused a pod for %s "+
			"(unschedulable_timeout)", e.Ref, e.Mode, e.RefusedFor)
	default:
		fmt.Fprintf(&b, "%s was not ready (wait_for = %q) after %s", e.Ref, e.Mode, e.Waited.Round(time.Second))
	}
	for _, p := range e.Pods {
		fmt.Fprintf(&b, "\n  pod %s: %s: %s", p.Pod, p.Reason, p.Message)
	}
	if len(e.Pods) == 0 && e.Failure == "" {
		b.WriteString("\n  (no pod reported a problem; the controller may still be creating pods)")
	}
	return b.String()
}

// Unschedulable reports whether the scheduler refused any pod.
func (e *NotReadyError) Unschedulable() bool {
	for _, p := range e.Pods {
		if p.Reason == corev1.PodReasonUnschedulable {
			return true
		}
	}
	return false
}

// WaitTarget is the object a wait follows: the version an apply just
// wrote. A cached copy older than it (another UID, an earlier generation)
// says nothing about this rollout, so the wait ignores it.
type WaitTarget struct {
	Ref        ObjectRef
	UID        types.UID
	Generation int64
	// Labels decide whether the watch cache holds the object.
	Labels map[string]string
}

// TargetOf returns the wait target for an object as the server returned it.
func TargetOf(obj runtime.Object) (WaitTarget, error) {
	ref, err := RefOf(obj)
	if err != nil {
		return WaitTarget{}, err
	}
	accessor, err := metaAccessor(obj)
	if err != nil {
		return WaitTarget{}, err
	}
	return WaitTarget{Ref: ref, UID: accessor.GetUID(), Generation: accessor.GetGeneration(), Labels: accessor.GetLabels()}, nil
}

func (t WaitTarget) describes(live *unstructured.Unstructured) bool {
	return (t.UID == "" || live.GetUID() == t.UID) && live.GetGeneration() >= t.Generation
}

// WaitReady blocks until the workload is ready in the given mode, the
// context ends, the workload fails, the API server stops answering or (with
// an unschedulable limit of zero or more) a pod has been refused by the
// scheduler for that long. It follows the object and its pods with
// informers: the shared watch cache where it holds them, else watches of
// the wait's own (see follow.go).
func (c *Client) WaitReady(ctx context.Context, target WaitTarget, mode WaitMode, podSelector string, unschedulableLimit time.Duration) error {
	if mode == WaitNone {
		return nil
	}
	// An outage may come before the wait loop starts, while an informer
	// makes its initial list (a reflector retries that quietly): the whole
	// wait ends with the lost contact, not only its loop.
	ctx, lost, stop := c.untilOutage(ctx)
	defer stop()
	err := c.waitReady(ctx, target, mode, podSelector, unschedulableLimit)
	if outage := lost(); outage != nil {
		return outage
	}
	return err
}

// untilOutage is ctx cancelled when the API server stops answering
// (serverHealth); lost then returns the outage's error, nil before.
func (c *Client) untilOutage(ctx context.Context) (_ context.Context, lost func() error, stop func()) {
	if c.health == nil {
		return ctx, func() error { return nil }, func() {}
	}
	o, release := c.health.watch()
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-o.down:
			cancel()
		case <-ctx.Done():
		}
	}()
	lost = func() error {
		select {
		case <-o.down:
			return o.err
		default:
			return nil
		}
	}
	return ctx, lost, func() { cancel(); release() }
}

func (c *Client) waitReady(ctx context.Context, target WaitTarget, mode WaitMode, podSelector string, unschedulableLimit time.Duration) error {
	start := time.Now()
	ref := target.Ref
	selector, err := labels.Parse(podSelector)
	if err != nil {
		return fmt.Errorf("waiting for %s: %w", ref, err)
	}
	objects, release, err := c.followObject(ctx, ref, c.cache.holds(target.Labels))
	if err != nil {
		return c.notReady(ctx, ref, mode, start, podSelector, "", err)
	}
	defer release()
	r := readiness{target: target, mode: mode, selector: selector, objects: objects, refusals: newRefusalClock(unschedulableLimit)}
	if mode == WaitScheduled || r.refusals != nil {
		pods, releasePods, err := c.followPods(ctx, ref.Namespace, podSelector)
		switch {
		case err != nil && mode == WaitScheduled:
			return c.notReady(ctx, ref, mode, start, podSelector, "", err)
		case err != nil:
			r.refusals = nil // without list and watch on pods no refusal is seen: the wait runs to its timeout
		default:
			r.pods = pods
			defer releasePods()
		}
	}
	err = c.waitUntil(ctx, r.check, objects, r.pods)
	if err == nil && r.failure == "" && !r.gaveUp {
		return nil
	}
	err = c.notReady(ctx, ref, mode, start, podSelector, r.failure, err)
	var notReady *NotReadyError
	if r.gaveUp && errors.As(err, &notReady) {
		notReady.RefusedFor, notReady.GaveUpOnRefusal = r.refusals.limit, true
	}
	return err
}

// readiness is what one WaitReady follows and what it found.
type readiness struct {
	target   WaitTarget
	mode     WaitMode
	selector labels.Selector
	objects  *cacheEntry
	pods     *cacheEntry // nil unless the mode or the refusal clock needs them
	refusals *refusalClock

	seen    bool
	failure string
	gaveUp  bool // the scheduler refused a pod for the unschedulable limit
}

// check judges the object as last seen (and its pods when they count) for
// waitUntil. An older version than the wait's target says nothing about
// this rollout.
func (r *readiness) check() (bool, time.Time, error) {
	ref := r.target.Ref
	live := r.objects.get(ref.Namespace, ref.Name)
	switch {
	case live == nil && r.seen:
		return false, time.Time{}, fmt.Errorf("%s disappeared while waiting for it", ref)
	case live == nil || !r.target.describes(live):
		return false, time.Time{}, nil
	}
	r.seen = true
	done := false
	if r.mode == WaitScheduled {
		done = allRunning(podsIn(r.pods, ref.Namespace, r.selector))
	} else {
		done, r.failure = judge(live, ref.GVK, r.mode)
	}
	if done || r.failure != "" || r.refusals == nil {
		return done || r.failure != "", time.Time{}, nil
	}
	var next time.Time
	r.gaveUp, next = r.refusals.observe(podsIn(r.pods, ref.Namespace, r.selector), time.Now())
	return r.gaveUp, next, nil
}

// waitUntil is the one wait loop: it runs check, then again after every
// change of the entries (nil entries are ignored) and at the moment check
// asked for (a zero time asks for none), until check reports done or fails,
// an entry's watch stops, the context ends or the API server stops
// answering.
func (c *Client) waitUntil(ctx context.Context, check func() (done bool, again time.Time, err error), entries ...*cacheEntry) error {
	var down <-chan struct{}
	var outage *outage
	if c.health != nil {
		var release func()
		outage, release = c.health.watch()
		defer release()
		down = outage.down
	}
	wake := make(chan struct{}, 1)
	var live []*cacheEntry
	for _, e := range entries {
		if e != nil {
			live = append(live, e)
			defer e.follow(wake)() // before the first check, so no change is missed
		}
	}
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		for _, e := range live {
			if e.stopped() {
				return e.stoppedErr()
			}
		}
		done, again, err := check()
		if done || err != nil {
			return err
		}
		var tick <-chan time.Time
		if !again.IsZero() {
			timer.Reset(time.Until(again))
			tick = timer.C
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-down:
			return outage.err
		case <-wake:
		case <-tick:
		}
	}
}

// notReady builds the error for a wait that ended without success, asking
// the pods why. The context may already be over, so it uses a short one of
// its own.
func (c *Client) notReady(ctx context.Context, ref ObjectRef, mode WaitMode, start time.Time, selector, failure string, cause error) error {
	if apierrors.IsForbidden(cause) {
		return c.explain(ref, "wait for", cause)
	}
	if cause != nil && !errors.Is(cause, context.DeadlineExceeded) && !errors.Is(cause, context.Canceled) {
		return fmt.Errorf("waiting for %s: %w", ref, cause)
	}
	explainCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	problems, _ := c.PodProblems(explainCtx, ref.Namespace, selector)
	return &NotReadyError{Ref: ref, Mode: mode, Waited: time.Since(start), Pods: problems, Failure: failure}
}

// goneRecheck is how often WaitGone asks the server again about an object
// the watch no longer shows but the server still has: one without the
// managed-by label, which the shared cache never held.
const goneRecheck = 250 * time.Millisecond

// WaitGone blocks until the object no longer exists and no pod matches the
// selector, so that a destroy frees the GPUs before Terraform moves on. With
// background propagation (Delete) the object goes first; its pods follow.
func (c *Client) WaitGone(ctx context.Context, ref ObjectRef, podSelector string) error {
	selector, err := labels.Parse(podSelector)
	if err != nil {
		return fmt.Errorf("waiting for %s to be deleted: %w", ref, err)
	}
	// The shared cache holds only labelled objects: the server confirms
	// what it says.
	objects, release, err := c.followObject(ctx, ref, true)
	if err != nil {
		return fmt.Errorf("waiting for %s to be deleted: %w", ref, err)
	}
	defer release()
	var pods *cacheEntry
	if podSelector != "" {
		var releasePods func()
		if pods, releasePods, err = c.followPods(ctx, ref.Namespace, podSelector); err != nil {
			return fmt.Errorf("waiting for %s to be deleted: %w", ref, err)
		}
		defer releasePods()
	}
	objectGone := false
	err = c.waitUntil(ctx, func() (bool, time.Time, error) {
		if objects.get(ref.Namespace, ref.Name) != nil || (pods != nil && len(pods.list(selector)) > 0) {
			return false, time.Time{}, nil
		}
		live, err := c.GetFresh(ctx, ref)
		objectGone = live == nil && err == nil
		return objectGone, time.Now().Add(goneRecheck), err
	}, objects, pods)
	if err != nil {
		if pods != nil && (objectGone || objects.get(ref.Namespace, ref.Name) == nil) {
			err = fmt.Errorf("waiting for %d pod(s) to terminate: %w", len(pods.list(selector)), err)
		}
		return fmt.Errorf("waiting for %s to be deleted: %w", ref, err)
	}
	return nil
}
