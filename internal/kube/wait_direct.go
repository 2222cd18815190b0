package kube

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
)

// The direct waits are the fallback where the watch cache cannot serve:
// an identity allowed to get and watch objects but not to list them. Each
// follows its object with a watch of its own.

// waitReadyDirect re-reads the object after every event of a watch on it,
// re-establishing the watch when the server closes it.
func (c *Client) waitReadyDirect(ctx context.Context, ref ObjectRef, mode WaitMode, podSelector string, refusals *refusalClock) error {
	if mode == WaitNone {
		return nil
	}
	start := time.Now()
	var verdict refusalVerdict
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
		if c.refusedTooLong(ctx, ref.Namespace, podSelector, refusals, &verdict) {
			return verdict.mark(c.notReady(ctx, ref, mode, start, podSelector, "", nil), refusals)
		}
		if err := c.waitForChangeOrRecheck(ctx, ref, mode, rv, podSelector, refusals != nil); err != nil {
			return c.notReady(ctx, ref, mode, start, podSelector, "", err)
		}
	}
}

// refusedTooLong lists the workload's pods and reports whether the
// scheduler has refused one for the limit. Without permission to list pods
// it cannot tell, and the wait goes on to its timeout.
func (c *Client) refusedTooLong(ctx context.Context, namespace, podSelector string, refusals *refusalClock, verdict *refusalVerdict) bool {
	if refusals == nil {
		return false
	}
	pods, err := c.Typed.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: podSelector})
	if err != nil {
		return false
	}
	verdict.judge(refusals, pods.Items)
	return verdict.gaveUp
}

// waitForChangeOrRecheck waits for a change, or at most directRecheck when
// the pods must be looked at again.
func (c *Client) waitForChangeOrRecheck(ctx context.Context, ref ObjectRef, mode WaitMode, rv, podSelector string, recheck bool) error {
	if !recheck {
		return c.waitForChange(ctx, ref, mode, rv, podSelector)
	}
	waitCtx, cancel := context.WithTimeout(ctx, directRecheck)
	defer cancel()
	err := c.waitForChange(waitCtx, ref, mode, rv, podSelector)
	if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		return nil
	}
	return err
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
	live, err := c.GetFresh(ctx, ref)
	if err != nil {
		return false, "", "", err
	}
	if live == nil {
		return false, "", "", fmt.Errorf("%s disappeared while waiting for it", ref)
	}
	rv := live.GetResourceVersion()
	switch mode {
	case WaitScheduled:
		ok, err := c.podsRunningDirect(ctx, ref.Namespace, podSelector)
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

// waitGoneDirect follows the object, then its pods, with watches.
func (c *Client) waitGoneDirect(ctx context.Context, ref ObjectRef, podSelector string) error {
	for {
		live, err := c.GetFresh(ctx, ref)
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

// waitPodsGone follows the selected pods with client-go's UntilWithSync
// (list, then watch, re-listing when the watch expires) until none is left.
func (c *Client) waitPodsGone(ctx context.Context, namespace, selector string) error {
	if selector == "" {
		return nil
	}
	pods := c.Typed.CoreV1().Pods(namespace)
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
			options.LabelSelector = selector
			return pods.List(ctx, options)
		},
		WatchFuncWithContext: func(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
			options.LabelSelector = selector
			return pods.Watch(ctx, options)
		},
	}
	var left cache.Store
	none := func() bool { return len(left.List()) == 0 }
	// The wrapper tells the reflector whether the client can stream the
	// initial list (a real server can; client-go's fakes cannot).
	_, err := watchtools.UntilWithSync(ctx, cache.ToListWatcherWithWatchListSemantics(lw, c.Typed), &corev1.Pod{},
		func(store cache.Store) (bool, error) { left = store; return none(), nil },
		func(watch.Event) (bool, error) { return none(), nil })
	if err != nil {
		n := 0
		if left != nil {
			n = len(left.List())
		}
		return fmt.Errorf("waiting for %d pod(s) to terminate: %w", n, err)
	}
	return nil
}

func (c *Client) podsRunningDirect(ctx context.Context, namespace, selector string) (bool, error) {
	pods, err := c.Typed.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return false, err
	}
	return allRunning(pods.Items), nil
}
