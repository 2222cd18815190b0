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
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gpuform/terraform-provider-gpu/internal/render/queue"
)

// Kueue's kinds, as the provider reads and writes them.
var (
	GVKResourceFlavor = kueue.GroupVersion.WithKind("ResourceFlavor")
	GVKClusterQueue   = kueue.GroupVersion.WithKind("ClusterQueue")
	GVKLocalQueue     = kueue.GroupVersion.WithKind("LocalQueue")
	GVKKueueWorkload  = kueue.GroupVersion.WithKind("Workload")
	GVKTopology       = kueue.GroupVersion.WithKind("Topology")
)

// listKueue lists one Kueue kind page by page (the pager the capacity
// reads use) and decodes each item into T.
func listKueue[T any](ctx context.Context, c *Client, gvk schema.GroupVersionKind, namespace string) ([]T, error) {
	ri, err := c.resourceFor(ObjectRef{GVK: gvk, Namespace: namespace})
	if err != nil {
		return nil, err
	}
	var out []T
	var decodeErr error
	err = eachPage(ctx, func(opts metav1.ListOptions) (runtime.Object, error) {
		return ri.List(ctx, opts)
	}, metav1.ListOptions{}, func(obj runtime.Object) {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok || decodeErr != nil {
			return
		}
		var item T
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &item); err != nil {
			decodeErr = fmt.Errorf("reading %s %s/%s: %w", gvk.Kind, u.GetNamespace(), u.GetName(), err)
			return
		}
		out = append(out, item)
	})
	if err != nil {
		return nil, c.explain(ObjectRef{GVK: gvk, Namespace: namespace, Name: "(list)"}, "list", err)
	}
	return out, decodeErr
}

// KueueWorkloads lists Kueue's Workload objects of one namespace ("" for
// all), typed.
func (c *Client) KueueWorkloads(ctx context.Context, namespace string) ([]kueue.Workload, error) {
	return listKueue[kueue.Workload](ctx, c, GVKKueueWorkload, namespace)
}

// ClusterQueues lists every ClusterQueue, typed.
func (c *Client) ClusterQueues(ctx context.Context) ([]kueue.ClusterQueue, error) {
	return listKueue[kueue.ClusterQueue](ctx, c, GVKClusterQueue, "")
}

// ClusterQueuesUsingFlavor names the ClusterQueues other than except whose
// quota lists the flavor: a flavor still in use must not be deleted (Kueue
// would keep it Terminating, and those queues inactive).
func (c *Client) ClusterQueuesUsingFlavor(ctx context.Context, flavor, except string) ([]string, error) {
	queues, err := c.ClusterQueues(ctx)
	if err != nil {
		return nil, err
	}
	var users []string
	for _, cq := range queues {
		if cq.Name == except {
			continue
		}
		for _, group := range cq.Spec.ResourceGroups {
			for _, f := range group.Flavors {
				if string(f.Name) == flavor && !slices.Contains(users, cq.Name) {
					users = append(users, cq.Name)
				}
			}
		}
	}
	return users, nil
}

// FlavorsUsingTopology names the ResourceFlavors whose topologyName is the
// Topology: one still referenced must not be deleted (Kueue keeps it
// Terminating behind its in-use finalizer).
func (c *Client) FlavorsUsingTopology(ctx context.Context, topology string) ([]string, error) {
	flavors, err := listKueue[kueue.ResourceFlavor](ctx, c, GVKResourceFlavor, "")
	if err != nil {
		return nil, err
	}
	var users []string
	for _, f := range flavors {
		if f.Spec.TopologyName != nil && string(*f.Spec.TopologyName) == topology {
			users = append(users, f.Name)
		}
	}
	return users, nil
}

// The waits on Kueue's objects follow them on the same machinery as the
// rollout waits (waitUntil with an informer): each check runs when Kueue
// changes what the wait looks at. An identity that may get and list Kueue's
// kinds but not watch them (the RBAC guide's minimum) cannot start the
// informer; its waits poll every kueuePoll instead. With the informer they
// still check every kueueBackstop, for what the informer does not see (a
// Deployment's Workloads are found through its pods' UIDs).
const (
	kueuePoll     = 250 * time.Millisecond
	kueueBackstop = 2 * time.Second
)

// waitKueue waits until check is done, following the Kueue objects ref
// names (a kind in a namespace, or one object) with an informer of the
// wait's own. check gets how soon to ask again without an event. An
// informer that cannot start, or stops under the wait (the identity may list
// but not watch), leaves the wait to polling.
func (c *Client) waitKueue(ctx context.Context, ref ObjectRef, check func(again time.Duration) (bool, time.Time, error)) error {
	poll := func() (bool, time.Time, error) { return check(kueuePoll) }
	ri, err := c.resourceFor(ObjectRef{GVK: ref.GVK, Namespace: ref.Namespace})
	if err != nil {
		return c.waitUntil(ctx, poll)
	}
	lw := bySelector(ri, "")
	if ref.Name != "" {
		lw = byName(ri, ref.Name)
	}
	entry, release, err := c.followPrivately(ctx, lw)
	if err != nil {
		return c.waitUntil(ctx, poll)
	}
	defer release()
	err = c.waitUntil(ctx, func() (bool, time.Time, error) { return check(kueueBackstop) }, entry)
	if err != nil && entry.stopped() && ctx.Err() == nil {
		return c.waitUntil(ctx, poll)
	}
	return err
}

// WaitDeleted waits until the object is gone: Kueue keeps ClusterQueues and
// ResourceFlavors with its resource-in-use finalizer while work uses them.
func (c *Client) WaitDeleted(ctx context.Context, ref ObjectRef) error {
	err := c.waitKueue(ctx, ref, func(again time.Duration) (bool, time.Time, error) {
		live, err := c.GetFresh(ctx, ref)
		return live == nil, time.Now().Add(again), err
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
	nextNudge := time.Now().Add(kueueNudgeAfter)
	err := c.waitKueue(ctx, ref, func(again time.Duration) (bool, time.Time, error) {
		live, err := c.GetFresh(ctx, ref)
		switch {
		case err != nil:
			return false, time.Time{}, err
		case live == nil:
			return true, time.Time{}, nil
		}
		if live.GetDeletionTimestamp() != nil && time.Now().After(nextNudge) {
			nextNudge = time.Now().Add(kueueNudgeAfter)
			if err := c.annotate(ctx, ref, AnnotationReleaseCheck, time.Now().UTC().Format(time.RFC3339Nano)); err != nil && !apierrors.IsNotFound(err) {
				return false, time.Time{}, err
			}
		}
		return false, time.Now().Add(min(again, time.Until(nextNudge))), nil
	})
	if err != nil {
		return fmt.Errorf("%s is still there: %w", ref, err)
	}
	return nil
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
	owners := map[string]bool{string(uid): true}
	if podSelector != "" {
		pods, err := c.listPods(ctx, namespace, podSelector)
		if err != nil {
			return nil, err
		}
		for _, p := range pods {
			owners[string(p.UID)] = true
		}
	}
	all, err := c.KueueWorkloads(ctx, namespace)
	if err != nil {
		return nil, err
	}
	var out []kueue.Workload
	for _, wl := range all {
		if owners[wl.Labels[LabelKueueJobUID]] {
			out = append(out, wl)
		}
	}
	return out, nil
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
	err := c.waitKueue(ctx, ObjectRef{GVK: GVKKueueWorkload, Namespace: namespace}, func(again time.Duration) (bool, time.Time, error) {
		all, err := c.KueueWorkloads(ctx, namespace)
		left := slices.ContainsFunc(all, func(wl kueue.Workload) bool { return slices.Contains(names, wl.Name) })
		return !left && err == nil, time.Now().Add(again), err
	})
	if err != nil {
		return fmt.Errorf("waiting for Kueue to release %s/%s: %w", namespace, strings.Join(names, ", "), err)
	}
	return nil
}

// KueueMissing reports whether the cluster serves no Kueue API: reading
// queues then finds none instead of failing.
func (c *Client) KueueMissing(ctx context.Context) bool {
	err := c.Typed.Discovery().RESTClient().Get().AbsPath("/apis", kueue.GroupVersion.Group, kueue.GroupVersion.Version).Do(ctx).Error()
	return apierrors.IsNotFound(err)
}

// WaitAdmitted waits until Kueue has admitted want Workloads of the object
// (one for a Job or StatefulSet, one per pod of a Deployment). It returns a
// NotReadyError when the context ends first.
func (c *Client) WaitAdmitted(ctx context.Context, ref ObjectRef, uid types.UID, podSelector string, want int) error {
	start := time.Now()
	err := c.waitKueue(ctx, ObjectRef{GVK: GVKKueueWorkload, Namespace: ref.Namespace}, func(again time.Duration) (bool, time.Time, error) {
		workloads, err := c.KueueWorkloadsOf(ctx, ref.Namespace, uid, podSelector)
		admitted := 0
		for _, wl := range workloads {
			if queue.Admitted(wl) {
				admitted++
			}
		}
		return admitted >= want, time.Now().Add(again), err
	})
	if err != nil && ctx.Err() != nil {
		return &NotReadyError{Ref: ref, Mode: WaitAdmitted, Waited: time.Since(start)}
	}
	return err
}

// QueuePosition asks Kueue's on-demand visibility API where a pending
// Workload stands in its LocalQueue (0 is next). ok is false when the API
// is not served (the VisibilityOnDemand feature is off, or an older Kueue)
// or does not list the Workload: the position is then simply not reported.
func (c *Client) QueuePosition(ctx context.Context, namespace, localQueue, workload string) (int32, bool) {
	raw, err := c.Typed.CoreV1().RESTClient().Get().
		AbsPath("/apis/visibility.kueue.x-k8s.io/v1beta2/namespaces", namespace, "localqueues", localQueue, "pendingworkloads").
		DoRaw(ctx)
	if err != nil {
		return 0, false
	}
	var summary struct {
		Items []struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
			PositionInLocalQueue int32 `json:"positionInLocalQueue"`
		} `json:"items"`
	}
	if json.Unmarshal(raw, &summary) != nil {
		return 0, false
	}
	for _, item := range summary.Items {
		if item.Metadata.Name == workload {
			return item.PositionInLocalQueue, true
		}
	}
	return 0, false
}
