package kube

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
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
// scheduler for that long. It is served from the shared watch cache; where
// the cache cannot serve (list or watch not permitted) it follows the
// object with a watch of its own.
func (c *Client) WaitReady(ctx context.Context, target WaitTarget, mode WaitMode, podSelector string, unschedulableLimit time.Duration) error {
	if mode == WaitNone {
		return nil
	}
	start := time.Now()
	ref := target.Ref
	refusals := newRefusalClock(unschedulableLimit)
	objects, ok := c.cached(ctx, ref)
	ok = ok && c.cache.holds(target.Labels)
	var pods *cacheEntry
	if ok && (mode == WaitScheduled || refusals != nil) {
		pods, ok = c.cachedPods(ctx, ref.Namespace)
		ok = ok && c.cache.holdsAll(podSelector)
	}
	if !ok {
		return c.waitReadyDirect(ctx, ref, mode, podSelector, refusals)
	}
	selector, err := labels.Parse(podSelector)
	if err != nil {
		return fmt.Errorf("waiting for %s: %w", ref, err)
	}
	seen := false
	var failure string
	var verdict refusalVerdict
	check := func() (bool, error) {
		live := objects.get(ref.Namespace, ref.Name)
		switch {
		case live == nil && seen:
			return false, fmt.Errorf("%s disappeared while waiting for it", ref)
		case live == nil || !target.describes(live):
			return false, nil
		}
		seen = true
		var done bool
		done, failure = readyIn(live, ref, mode, pods, selector)
		if done || failure != "" {
			return true, nil
		}
		if refusals == nil {
			return false, nil
		}
		return verdict.judge(refusals, podsIn(pods, ref.Namespace, selector)), nil
	}
	for {
		waitCtx, cancel := verdict.until(ctx)
		err = c.waitOnCache(waitCtx, check, objects, pods)
		cancel()
		if !verdict.again(ctx, err) {
			break
		}
	}
	if err == nil && failure == "" && !verdict.gaveUp {
		return nil
	}
	return verdict.mark(c.notReady(ctx, ref, mode, start, podSelector, failure, err), refusals)
}

// readyIn judges one cached object (and, when waiting for scheduling, its
// cached pods).
func readyIn(live *unstructured.Unstructured, ref ObjectRef, mode WaitMode, pods *cacheEntry, selector labels.Selector) (bool, string) {
	switch {
	case mode == WaitScheduled:
		return allRunning(podsIn(pods, live.GetNamespace(), selector)), ""
	case mode == WaitComplete || ref.GVK.Kind == "Job":
		return jobDone(live)
	case ref.GVK.Kind == "StatefulSet":
		return statefulSetRolledOut(live)
	default:
		return deploymentRolledOut(live)
	}
}

// waitOnCache re-evaluates check after every change to the given entries
// (nil entries are ignored; any number may be given) until it reports done
// or fails, the context ends, or the API server stops answering.
func (c *Client) waitOnCache(ctx context.Context, check func() (bool, error), entries ...*cacheEntry) error {
	outage, release := c.health.watch()
	defer release()
	var live []*cacheEntry
	for _, e := range entries {
		if e != nil {
			live = append(live, e)
			defer e.hold()()
		}
	}
	for {
		wake := wakeCases(ctx, outage, live)
		done, err := check()
		if done || err != nil {
			return err
		}
		chosen, _, _ := reflect.Select(wake)
		switch {
		case chosen == 0:
			return ctx.Err()
		case chosen == 1:
			return outage.err
		case chosen%2 == 0: // an entry's failed channel
			return live[(chosen-2)/2].stoppedErr()
		}
	}
}

// wakeCases lists what ends or repeats a wait, for reflect.Select: the
// context, the outage, then each entry's failure and change channels. The
// change channels are taken before check runs, so no event is missed.
func wakeCases(ctx context.Context, o *outage, live []*cacheEntry) []reflect.SelectCase {
	recv := func(ch <-chan struct{}) reflect.SelectCase {
		return reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ch)}
	}
	cases := []reflect.SelectCase{recv(ctx.Done()), recv(o.down)}
	for _, e := range live {
		cases = append(cases, recv(e.failed), recv(e.changes()))
	}
	return cases
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

// WaitGone blocks until the object no longer exists and no pod matches the
// selector, so that a destroy frees the GPUs before Terraform moves on. With
// background propagation (Delete) the object goes first; its pods follow.
func (c *Client) WaitGone(ctx context.Context, ref ObjectRef, podSelector string) error {
	objects, ok := c.cached(ctx, ref)
	var pods *cacheEntry
	if ok && podSelector != "" {
		pods, ok = c.cachedPods(ctx, ref.Namespace)
		ok = ok && c.cache.holdsAll(podSelector)
	}
	selector, err := labels.Parse(podSelector)
	if !ok || err != nil {
		return c.waitGoneDirect(ctx, ref, podSelector)
	}
	// The cache holds only labelled objects, so once it says gone the server
	// confirms; an unlabelled leftover is polled for until it goes too.
	err = wait.PollUntilContextCancel(ctx, 250*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		if err := c.waitOnCache(ctx, func() (bool, error) {
			return objects.get(ref.Namespace, ref.Name) == nil &&
				(pods == nil || len(pods.list(selector)) == 0), nil
		}, objects, pods); err != nil {
			return false, err
		}
		live, err := c.GetFresh(ctx, ref)
		return live == nil, err
	})
	if err != nil {
		if pods != nil && objects.get(ref.Namespace, ref.Name) == nil {
			err = fmt.Errorf("waiting for %d pod(s) to terminate: %w", len(pods.list(selector)), err)
		}
		return fmt.Errorf("waiting for %s to be deleted: %w", ref, err)
	}
	return nil
}

func deploymentRolledOut(d *unstructured.Unstructured) (bool, string) {
	generation := d.GetGeneration()
	observed, _, _ := unstructured.NestedInt64(d.Object, "status", "observedGeneration")
	want, found, _ := unstructured.NestedInt64(d.Object, "spec", "replicas")
	if !found {
		want = 1
	}
	updated, _, _ := unstructured.NestedInt64(d.Object, "status", "updatedReplicas")
	total, _, _ := unstructured.NestedInt64(d.Object, "status", "replicas")
	available, _, _ := unstructured.NestedInt64(d.Object, "status", "availableReplicas")
	if cond := condition(d, "Progressing"); cond != nil && cond["reason"] == "ProgressDeadlineExceeded" {
		return false, fmt.Sprintf("rollout exceeded its progress deadline: %v", cond["message"])
	}
	return observed >= generation && updated == want && total == want && available == want, ""
}

// statefulSetRolledOut: the controller saw the current spec, every replica
// runs the current revision and is ready.
func statefulSetRolledOut(s *unstructured.Unstructured) (bool, string) {
	generation := s.GetGeneration()
	observed, _, _ := unstructured.NestedInt64(s.Object, "status", "observedGeneration")
	want, found, _ := unstructured.NestedInt64(s.Object, "spec", "replicas")
	if !found {
		want = 1
	}
	ready, _, _ := unstructured.NestedInt64(s.Object, "status", "readyReplicas")
	updated, _, _ := unstructured.NestedInt64(s.Object, "status", "updatedReplicas")
	current, _, _ := unstructured.NestedString(s.Object, "status", "currentRevision")
	update, _, _ := unstructured.NestedString(s.Object, "status", "updateRevision")
	return observed >= generation && ready == want && updated == want && current == update, ""
}

func jobDone(j *unstructured.Unstructured) (bool, string) {
	if cond := condition(j, "Failed"); cond != nil && cond["status"] == "True" {
		return false, fmt.Sprintf("%v: %v", cond["reason"], cond["message"])
	}
	cond := condition(j, "Complete")
	return cond != nil && cond["status"] == "True", ""
}

func condition(obj *unstructured.Unstructured, condType string) map[string]any {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, raw := range conds {
		cond, ok := raw.(map[string]any)
		if ok && cond["type"] == condType {
			return cond
		}
	}
	return nil
}
