package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// Kueue's kinds, as the provider reads and writes them.
var (
	GVKResourceFlavor = kueue.GroupVersion.WithKind("ResourceFlavor")
	GVKClusterQueue   = kueue.GroupVersion.WithKind("ClusterQueue")
	GVKLocalQueue     = kueue.GroupVersion.WithKind("LocalQueue")
	GVKKueueWorkload  = kueue.GroupVersion.WithKind("Workload")
)

func (c *Client) list(ctx context.Context, gvk schema.GroupVersionKind, namespace string) ([]unstructured.Unstructured, error) {
	ri, err := c.resourceFor(ObjectRef{GVK: gvk, Namespace: namespace})
	if err != nil {
		return nil, err
	}
	var items []unstructured.Unstructured
	opts := metav1.ListOptions{Limit: 500}
	for {
		page, err := ri.List(ctx, opts)
		if err != nil {
			return nil, c.explain(ObjectRef{GVK: gvk, Namespace: namespace, Name: "(list)"}, "list", err)
		}
		items = append(items, page.Items...)
		if opts.Continue = page.GetContinue(); opts.Continue == "" {
			return items, nil
		}
	}
}

// KueueWorkloads lists Kueue's Workload objects of one namespace ("" for
// all), typed.
func (c *Client) KueueWorkloads(ctx context.Context, namespace string) ([]kueue.Workload, error) {
	items, err := c.list(ctx, GVKKueueWorkload, namespace)
	if err != nil {
		return nil, err
	}
	out := make([]kueue.Workload, 0, len(items))
	for _, item := range items {
		var wl kueue.Workload
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(item.Object, &wl); err != nil {
			return nil, fmt.Errorf("reading Kueue Workload %s/%s: %w", item.GetNamespace(), item.GetName(), err)
		}
		out = append(out, wl)
	}
	return out, nil
}

// ClusterQueues lists every ClusterQueue, typed.
func (c *Client) ClusterQueues(ctx context.Context) ([]kueue.ClusterQueue, error) {
	items, err := c.list(ctx, GVKClusterQueue, "")
	if err != nil {
		return nil, err
	}
	out := make([]kueue.ClusterQueue, 0, len(items))
	for _, item := range items {
		var cq kueue.ClusterQueue
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(item.Object, &cq); err != nil {
			return nil, fmt.Errorf("reading ClusterQueue %s: %w", item.GetName(), err)
		}
		out = append(out, cq)
	}
	return out, nil
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

// WaitDeleted polls until the object is gone: Kueue keeps ClusterQueues and
// ResourceFlavors with its resource-in-use finalizer while work uses them.
func (c *Client) WaitDeleted(ctx context.Context, ref ObjectRef) error {
	err := wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		live, err := c.GetFresh(ctx, ref)
		return live == nil, err
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

// KueueMissing reports whether the cluster serves no Kueue API: reading
// queues then finds none instead of failing.
func (c *Client) KueueMissing(ctx context.Context) bool {
	_, err := c.Typed.Discovery().ServerResourcesForGroupVersion(kueue.GroupVersion.String())
	return err != nil && apierrors.IsNotFound(err)
}

// WaitAdmitted waits until Kueue has admitted want Workloads of the object
// (one for a Job or StatefulSet, one per pod of a Deployment). It returns a
// NotReadyError when the context ends first.
func (c *Client) WaitAdmitted(ctx context.Context, ref ObjectRef, uid types.UID, podSelector string, want int) error {
	start := time.Now()
	err := wait.PollUntilContextCancel(ctx, 250*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		workloads, err := c.KueueWorkloadsOf(ctx, ref.Namespace, uid, podSelector)
		if err != nil {
			return false, err
		}
		admitted := 0
		for _, wl := range workloads {
			if meta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadAdmitted) {
				admitted++
			}
		}
		return admitted >= want, nil
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
