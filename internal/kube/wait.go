package kube

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
)

// WaitMode says what "ready" means for a workload.
type WaitMode string

// Wait modes. Rollout is a Deployment's default, Complete a Job's.
const (
	WaitRollout   WaitMode = "rollout"
	WaitComplete  WaitMode = "complete"
	WaitScheduled WaitMode = "scheduled"
	WaitNone      WaitMode = "none"
)

// WaitModes lists the modes for validators and documentation.
func WaitModes() []string {
	return []string{string(WaitRollout), string(WaitComplete), string(WaitScheduled), string(WaitNone)}
}

// NotReadyError is returned when a workload does not become ready in time.
// It carries what the scheduler and kubelet said about its pods.
type NotReadyError struct {
	Ref     ObjectRef
	Mode    WaitMode
	Waited  time.Duration
	Pods    []PodProblem
	Failure string
}

// PodProblem is one pod that keeps the workload from being ready.
type PodProblem struct {
	Pod     string
	Reason  string
	Message string
}

func (e *NotReadyError) Error() string {
	var b strings.Builder
	if e.Failure != "" {
		fmt.Fprintf(&b, "%s failed: %s", e.Ref, e.Failure)
	} else {
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

// WaitReady blocks until the workload is ready in the given mode, the
// context ends, or the workload fails. It follows the object with a watch
// instead of polling, re-establishing the watch when the server closes it.
func (c *Client) WaitReady(ctx context.Context, ref ObjectRef, mode WaitMode, podSelector string) error {
	if mode == WaitNone {
		return nil
	}
	start := time.Now()
	for {
		done, failure, rv, err := c.checkReady(ctx, ref, mode, podSelector)
		if err != nil {
			return c.notReady(ctx, ref, mode, start, podSelector, "", err)
		}
		if failure != "" {
			return c.notReady(ctx, ref, mode, start, podSelector, failure, nil)
		}
		if done {
			return nil
		}
		if err := c.waitForChange(ctx, ref, mode, rv, podSelector); err != nil {
			return c.notReady(ctx, ref, mode, start, podSelector, "", err)
		}
	}
}

// waitForChange returns after the first event on the object (or, in the
// scheduled mode, on its pods), or when the watch ends.
func (c *Client) waitForChange(ctx context.Context, ref ObjectRef, mode WaitMode, rv, podSelector string) error {
	var w watch.Interface
	var err error
	if mode == WaitScheduled {
		w, err = c.Typed.CoreV1().Pods(ref.Namespace).Watch(ctx, metav1.ListOptions{LabelSelector: podSelector})
	} else {
		ri, rerr := c.resourceFor(ref)
		if rerr != nil {
			return rerr
		}
		w, err = ri.Watch(ctx, metav1.ListOptions{
			FieldSelector:   fields.OneTermEqualSelector("metadata.name", ref.Name).String(),
			ResourceVersion: rv,
		})
	}
	if err != nil {
		return err
	}
	defer w.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case _, ok := <-w.ResultChan():
		_ = ok // a closed watch is re-established by the caller's next check
		return nil
	}
}

func (c *Client) checkReady(ctx context.Context, ref ObjectRef, mode WaitMode, podSelector string) (bool, string, string, error) {
	live, err := c.Get(ctx, ref)
	if err != nil {
		return false, "", "", err
	}
	if live == nil {
		return false, "", "", fmt.Errorf("%s disappeared while waiting for it", ref)
	}
	rv := live.GetResourceVersion()
	switch mode {
	case WaitScheduled:
		ok, err := c.podsRunning(ctx, ref.Namespace, podSelector)
		return ok, "", rv, err
	case WaitComplete:
		done, failure := jobDone(live)
		return done, failure, rv, nil
	default:
		if ref.GVK.Kind == "Job" {
			done, failure := jobDone(live)
			return done, failure, rv, nil
		}
		done, failure := deploymentRolledOut(live)
		return done, failure, rv, nil
	}
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

func (c *Client) podsRunning(ctx context.Context, namespace, selector string) (bool, error) {
	pods, err := c.Typed.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return false, err
	}
	if len(pods.Items) == 0 {
		return false, nil
	}
	for _, p := range pods.Items {
		if p.Status.Phase != corev1.PodRunning && p.Status.Phase != corev1.PodSucceeded {
			return false, nil
		}
	}
	return true, nil
}

// notReady builds the error for a wait that ended without success, asking
// the pods why. The context may already be over, so it uses a short one of
// its own.
func (c *Client) notReady(ctx context.Context, ref ObjectRef, mode WaitMode, start time.Time, selector, failure string, cause error) error {
	if cause != nil && !errors.Is(cause, context.DeadlineExceeded) && !errors.Is(cause, context.Canceled) {
		return fmt.Errorf("waiting for %s: %w", ref, cause)
	}
	explainCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	problems, _ := c.PodProblems(explainCtx, ref.Namespace, selector)
	return &NotReadyError{Ref: ref, Mode: mode, Waited: time.Since(start), Pods: problems, Failure: failure}
}

// PodProblems lists the pods that are not running, with the scheduler's or
// kubelet's own reason.
func (c *Client) PodProblems(ctx context.Context, namespace, selector string) ([]PodProblem, error) {
	pods, err := c.Typed.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, err
	}
	var out []PodProblem
	for i := range pods.Items {
		if p, ok := podProblem(&pods.Items[i]); ok {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Pod < out[j].Pod })
	return out, nil
}

func podProblem(pod *corev1.Pod) (PodProblem, bool) {
	for _, cond := range pod.Status.Conditions {
		if cond.Type == corev1.PodScheduled && cond.Status == corev1.ConditionFalse {
			return PodProblem{Pod: pod.Name, Reason: cond.Reason, Message: cond.Message}, true
		}
	}
	for _, cs := range pod.Status.ContainerStatuses {
		if w := cs.State.Waiting; w != nil && w.Reason != "" && w.Reason != "ContainerCreating" {
			return PodProblem{Pod: pod.Name, Reason: w.Reason, Message: w.Message}, true
		}
	}
	if pod.Status.Phase == corev1.PodFailed {
		return PodProblem{Pod: pod.Name, Reason: "Failed", Message: pod.Status.Message}, true
	}
	return PodProblem{}, false
}

// ScheduledNodes lists the distinct nodes the selected pods run on.
func (c *Client) ScheduledNodes(ctx context.Context, namespace, selector string) ([]string, error) {
	pods, err := c.Typed.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var nodes []string
	for _, p := range pods.Items {
		if n := p.Spec.NodeName; n != "" && !seen[n] {
			seen[n] = true
			nodes = append(nodes, n)
		}
	}
	sort.Strings(nodes)
	return nodes, nil
}

// WaitGone blocks until the object no longer exists and no pod matches the
// selector, so that a destroy frees the GPUs before Terraform moves on.
func (c *Client) WaitGone(ctx context.Context, ref ObjectRef, podSelector string) error {
	for {
		live, err := c.Get(ctx, ref)
		if err != nil {
			return err
		}
		if live == nil {
			return c.waitPodsGone(ctx, ref.Namespace, podSelector)
		}
		if err := c.waitForChange(ctx, ref, WaitRollout, live.GetResourceVersion(), ""); err != nil {
			return fmt.Errorf("waiting for %s to be deleted: %w", ref, err)
		}
	}
}

func (c *Client) waitPodsGone(ctx context.Context, namespace, selector string) error {
	if selector == "" {
		return nil
	}
	for {
		pods, err := c.Typed.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			return err
		}
		if len(pods.Items) == 0 {
			return nil
		}
		w, err := c.Typed.CoreV1().Pods(namespace).Watch(ctx, metav1.ListOptions{
			LabelSelector: selector, ResourceVersion: pods.ResourceVersion,
		})
		if err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			w.Stop()
			return fmt.Errorf("waiting for %d pod(s) to terminate: %w", len(pods.Items), ctx.Err())
		case <-w.ResultChan():
			w.Stop()
		}
	}
}
