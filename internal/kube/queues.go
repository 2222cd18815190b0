package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// Kueue's kinds, as the provider reads and writes them.
var (
	GVKResourceFlavor = kueue.GroupVersion.WithKind("ResourceFlavor")
	GVKClusterQueue   = kueue.GroupVersion.WithKind("ClusterQueue")
	GVKLocalQueue     = kueue.GroupVersion.WithKind("LocalQueue")
	GVKKueueWorkload  = kueue.GroupVersion.WithKind("Workload")
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

// kueuePoll is how often the waits on Kueue's objects ask again. They are
// polled, not watched: the RBAC guide grants get and list on Kueue's kinds,
// no watch, and a Deployment's Workloads are found through its pods' UIDs.
const kueuePoll = 250 * time.Millisecond

// WaitDeleted waits until the object is gone: Kueue keeps ClusterQueues and
// ResourceFlavors with its resource-in-use finalizer while work uses them.
func (c *Client) WaitDeleted(ctx context.Context, ref ObjectRef) error {
	err := c.waitUntil(ctx, func() (bool, time.Time, error) {
		live, err := c.GetFresh(ctx, ref)
		return live == nil, time.Now().Add(kueuePoll), err
	})
	if err != nil {
		return fmt.Errorf("%s is still there: %w", ref, err)
	}
	return nil
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

// WaitKueueReleased waits until none of the named Kueue Workloads of the
// namespace holds quota: each is gone, not admitted, or Finished. Kueue
// releases a Workload's quota only after it sees the work's pods gone, a
// moment after they are; a destroy that moved on at once would find the
// queue still running that work.
func (c *Client) WaitKueueReleased(ctx context.Context, namespace string, names []string) error {
	if len(names) == 0 {
		return nil
	}
	err := c.waitUntil(ctx, func() (bool, time.Time, error) {
		all, err := c.KueueWorkloads(ctx, namespace)
		held := slices.ContainsFunc(all, func(wl kueue.Workload) bool {
			return slices.Contains(names, wl.Name) && wl.Status.Admission != nil &&
				!meta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadFinished)
		})
		return !held, time.Now().Add(kueuePoll), err
	})
	if err != nil {
		return fmt.Errorf("waiting for Kueue to release the quota of %s/%s: %w", namespace, strings.Join(names, ", "), err)
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
	err := c.waitUntil(ctx, func() (bool, time.Time, error) {
		workloads, err := c.KueueWorkloadsOf(ctx, ref.Namespace, uid, podSelector)
		admitted := 0
		for _, wl := range workloads {
			if meta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadAdmitted) {
				admitted++
			}
		}
		return admitted >= want, time.Now().Add(kueuePoll), err
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
