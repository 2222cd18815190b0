package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gpuform/terraform-provider-gpu/internal/render/queue"
)

// The waits on Kueue's objects run on the rollout waits' machinery:
// waitUntil over informers, whose stores the checks read, so each check runs
// when Kueue changes what the wait looks at and asks the server nothing. An
// informer resumes a watch the server closed (from its last
// resourceVersion, or with a new list), so a long wait survives it. An
// identity that may get and list Kueue's kinds but not watch them (the RBAC
// guide's minimum) cannot run one: its waits read the server every
// kueuePoll instead, as they do when the informer is refused under the wait.
const kueuePoll = 250 * time.Millisecond

// kueueWatch is what one Kueue wait follows: the Kueue objects ref names
// (one object, or a kind in a namespace) and, for a Deployment's admission,
// its pods (each pod is admitted with a Workload of its own, found through
// the pod's UID).
type kueueWatch struct {
	c           *Client
	ref         ObjectRef
	podSelector string

	objects *cacheEntry // nil while the wait reads the server
	pods    *cacheEntry
}

// follow starts the informers, or leaves the watch reading the server when
// either cannot start. release stops what it started.
func (w *kueueWatch) follow(ctx context.Context) (release func()) {
	ri, err := w.c.resourceFor(ObjectRef{GVK: w.ref.GVK, Namespace: w.ref.Namespace})
	if err != nil {
		return func() {}
	}
	lw := bySelector(ri, "")
	if w.ref.Name != "" {
		lw = byName(ri, w.ref.Name)
	}
	objects, releaseObjects, err := w.c.followPrivately(ctx, lw)
	if err != nil {
		return func() {}
	}
	if w.podSelector == "" {
		w.objects = objects
		return releaseObjects
	}
	pods, releasePods, err := w.c.followPods(ctx, w.ref.Namespace, w.podSelector)
	if err != nil {
		releaseObjects()
		return func() {}
	}
	w.objects, w.pods = objects, pods
	return func() { releasePods(); releaseObjects() }
}

// following reports whether informers serve the wait.
func (w *kueueWatch) following() bool { return w.objects != nil }

// stopped reports whether an informer stopped under the wait (its watch
// refused, the identity may not watch); the wait then reads the server.
func (w *kueueWatch) stopped() bool {
	return w.following() && (w.objects.stopped() || (w.pods != nil && w.pods.stopped()))
}

func (w *kueueWatch) readServer() { w.objects, w.pods = nil, nil }

// recheck is when a check asks to run again without a change: never while
// informers wake it, after kueuePoll while it reads the server.
func (w *kueueWatch) recheck() time.Time {
	if w.following() {
		return time.Time{}
	}
	return time.Now().Add(kueuePoll)
}

// items are the followed Kueue objects as last seen.
func (w *kueueWatch) items(ctx context.Context) ([]*unstructured.Unstructured, error) {
	if w.following() {
		return w.objects.list(labels.Everything()), nil
	}
	if w.ref.Name == "" {
		return w.c.listObjects(ctx, w.ref)
	}
	live, err := w.c.GetFresh(ctx, w.ref)
	if live == nil {
		return nil, err
	}
	return []*unstructured.Unstructured{live}, nil
}

// workloadsOf are the followed Workloads standing for the object with the
// given UID and for its pods.
func (w *kueueWatch) workloadsOf(ctx context.Context, uid types.UID) ([]kueue.Workload, error) {
	owners, err := w.owners(ctx, uid)
	if err != nil {
		return nil, err
	}
	items, err := w.items(ctx)
	if err != nil {
		return nil, err
	}
	items = slices.DeleteFunc(items, func(u *unstructured.Unstructured) bool { return !owners[u.GetLabels()[LabelKueueJobUID]] })
	return decodeAll[kueue.Workload](items)
}

// owners are the UIDs a Workload of the object may stand for: the object's,
// and its pods' (a Deployment's pods are admitted one by one).
func (w *kueueWatch) owners(ctx context.Context, uid types.UID) (map[string]bool, error) {
	owners := map[string]bool{string(uid): true}
	if w.podSelector == "" {
		return owners, nil
	}
	selector, err := labels.Parse(w.podSelector)
	if err != nil {
		return nil, err
	}
	if w.following() {
		for _, p := range w.pods.list(selector) {
			owners[string(p.GetUID())] = true
		}
		return owners, nil
	}
	pods, err := w.c.listPods(ctx, w.ref.Namespace, w.podSelector)
	for _, p := range pods {
		owners[string(p.UID)] = true
	}
	return owners, err
}

// waitKueue runs check on the watch's informers until it is done, reading
// the server instead where they cannot start or stop under the wait.
func (c *Client) waitKueue(ctx context.Context, w *kueueWatch, check func() (bool, time.Time, error)) error {
	release := w.follow(ctx)
	defer release()
	err := c.waitUntil(ctx, check, w.objects, w.pods)
	if err != nil && w.stopped() && ctx.Err() == nil {
		w.readServer()
		return c.waitUntil(ctx, check)
	}
	return err
}

// WaitDeleted waits until the object is gone: Kueue keeps ClusterQueues and
// ResourceFlavors with its resource-in-use finalizer while work uses them.
func (c *Client) WaitDeleted(ctx context.Context, ref ObjectRef) error {
	w := &kueueWatch{c: c, ref: ref}
	err := c.waitKueue(ctx, w, func() (bool, time.Time, error) {
		items, err := w.items(ctx)
		return len(items) == 0 && err == nil, w.recheck(), err
	})
	if err != nil {
		return fmt.Errorf("%s is still there: %w", ref, err)
	}
	return nil
}

// kueueNudgeAfter is how long a ClusterQueue may stay Terminating before
// WaitClusterQueueDeleted asks Kueue to look at it again, and how often.
const kueueNudgeAfter = 3 * time.Second

// AnnotationReleaseCheck is the annotation WaitClusterQueueDeleted writes on
// a Terminating ClusterQueue to make Kueue reconcile it.
const AnnotationReleaseCheck = "gpu.gpuform.io/release-check"

// WaitClusterQueueDeleted waits until the ClusterQueue is gone. Kueue
// removes its resource-in-use finalizer only in a reconcile of the queue
// that finds no Workload reserving its quota in Kueue's cache. When the
// scheduler has just assumed a Workload for admission and the Workload is
// deleted before the admission is written (a preempted Job re-admitted in
// the instant it was destroyed), the cache forgets it without any event for
// the ClusterQueue, whose last reconcile saw it still reserving: the queue
// then stays Terminating until something touches it (seen with Kueue
// v0.17.0; pkg/controller/core/clusterqueue_controller.go and
// pkg/scheduler/scheduler.go of that version). So while the queue is
// Terminating the wait writes an annotation every few seconds, an update
// that makes Kueue reconcile it again; it changes nothing Kueue reads.
func (c *Client) WaitClusterQueueDeleted(ctx context.Context, name string) error {
	ref := ObjectRef{GVK: GVKClusterQueue, Name: name}
	w := &kueueWatch{c: c, ref: ref}
	nextNudge := time.Now().Add(kueueNudgeAfter)
	err := c.waitKueue(ctx, w, func() (bool, time.Time, error) {
		items, err := w.items(ctx)
		switch {
		case err != nil:
			return false, time.Time{}, err
		case len(items) == 0:
			return true, time.Time{}, nil
		}
		if items[0].GetDeletionTimestamp() != nil && time.Now().After(nextNudge) {
			nextNudge = time.Now().Add(kueueNudgeAfter)
			if err := c.annotate(ctx, ref, AnnotationReleaseCheck, time.Now().UTC().Format(time.RFC3339Nano)); err != nil && !apierrors.IsNotFound(err) {
				return false, time.Time{}, err
			}
		}
		return false, earliest(w.recheck(), nextNudge), nil
	})
	if err != nil {
		return fmt.Errorf("%s is still there: %w", ref, err)
	}
	return nil
}

// earliest is the sooner of two moments, a zero one being none.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

// annotate sets one annotation with a merge patch, leaving every other
// field, and every field manager's ownership, as it is.
func (c *Client) annotate(ctx context.Context, ref ObjectRef, key, value string) error {
	resource, err := c.resourceFor(ref)
	if err != nil {
		return err
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{key: value}}})
	if err != nil {
		return err
	}
	_, err = resource.Patch(ctx, ref.Name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: c.FieldManager})
	return err
}

// LabelKueueJobUID is the label Kueue puts on a Workload with the UID of
// the object it stands for (a Job, a StatefulSet, or a Deployment's pod).
const LabelKueueJobUID = "kueue.x-k8s.io/job-uid"

// KueueWorkloadsOf lists the Kueue Workloads standing for the object with
// the given UID and for the pods matching podSelector (a Deployment's pods
// are admitted one by one, each with a Workload of its own).
func (c *Client) KueueWorkloadsOf(ctx context.Context, namespace string, uid types.UID, podSelector string) ([]kueue.Workload, error) {
	w := &kueueWatch{c: c, ref: ObjectRef{GVK: GVKKueueWorkload, Namespace: namespace}, podSelector: podSelector}
	return w.workloadsOf(ctx, uid)
}

// WaitKueueReleased waits until the named Kueue Workloads of the namespace
// are gone, which they are once Kueue has released their quota and the
// garbage collector has followed the deleted work. Waiting only until they
// hold no quota is not enough: a pending Workload that still exists can be
// admitted in the moment the quota frees (a preempted Job destroyed together
// with the Job that preempted it), and would then hold quota in a queue
// about to be destroyed. Kueue also releases quota only after it sees the
// work's pods gone, a moment after they are.
func (c *Client) WaitKueueReleased(ctx context.Context, namespace string, names []string) error {
	if len(names) == 0 {
		return nil
	}
	w := &kueueWatch{c: c, ref: ObjectRef{GVK: GVKKueueWorkload, Namespace: namespace}}
	err := c.waitKueue(ctx, w, func() (bool, time.Time, error) {
		items, err := w.items(ctx)
		left := slices.ContainsFunc(items, func(u *unstructured.Unstructured) bool { return slices.Contains(names, u.GetName()) })
		return !left && err == nil, w.recheck(), err
	})
	if err != nil {
		return fmt.Errorf("waiting for Kueue to release %s/%s: %w", namespace, strings.Join(names, ", "), err)
	}
	return nil
}

// WaitAdmitted waits until Kueue has admitted want Workloads of the object
// (one for a Job or StatefulSet, one per pod of a Deployment). It returns a
// NotReadyError when the context ends first.
func (c *Client) WaitAdmitted(ctx context.Context, ref ObjectRef, uid types.UID, podSelector string, want int) error {
	start := time.Now()
	w := &kueueWatch{c: c, ref: ObjectRef{GVK: GVKKueueWorkload, Namespace: ref.Namespace}, podSelector: podSelector}
	err := c.waitKueue(ctx, w, func() (bool, time.Time, error) {
		workloads, err := w.workloadsOf(ctx, uid)
		admitted := 0
		for _, wl := range workloads {
			if queue.Admitted(wl) {
				admitted++
			}
		}
		return admitted >= want, w.recheck(), err
	})
	if err != nil && ctx.Err() != nil {
		return &NotReadyError{Ref: ref, Mode: WaitAdmitted, Waited: time.Since(start)}
	}
	return err
}
