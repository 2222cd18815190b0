package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
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
	items, err := c.listObjects(ctx, ObjectRef{GVK: gvk, Namespace: namespace})
	if err != nil {
		return nil, err
	}
	return decodeAll[T](items)
}

// listObjects lists one kind in a namespace ("" for all) page by page.
func (c *Client) listObjects(ctx context.Context, ref ObjectRef) ([]*unstructured.Unstructured, error) {
	ri, err := c.resourceFor(ObjectRef{GVK: ref.GVK, Namespace: ref.Namespace})
	if err != nil {
		return nil, err
	}
	var out []*unstructured.Unstructured
	err = eachPage(ctx, func(opts metav1.ListOptions) (runtime.Object, error) {
		return ri.List(ctx, opts)
	}, metav1.ListOptions{}, func(obj runtime.Object) {
		if u, ok := obj.(*unstructured.Unstructured); ok {
			out = append(out, u)
		}
	})
	if err != nil {
		return nil, c.explain(ObjectRef{GVK: ref.GVK, Namespace: ref.Namespace, Name: "(list)"}, "list", err)
	}
	return out, nil
}

// decodeAll decodes objects into T, naming the first it cannot read.
func decodeAll[T any](items []*unstructured.Unstructured) ([]T, error) {
	out := make([]T, 0, len(items))
	for _, u := range items {
		var item T
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &item); err != nil {
			return nil, fmt.Errorf("reading %s %s/%s: %w", u.GetKind(), u.GetNamespace(), u.GetName(), err)
		}
		out = append(out, item)
	}
	return out, nil
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

// KueueMissing reports whether the cluster serves no Kueue API: reading
// queues then finds none instead of failing.
func (c *Client) KueueMissing(ctx context.Context) bool {
	err := c.Typed.Discovery().RESTClient().Get().AbsPath("/apis", kueue.GroupVersion.Group, kueue.GroupVersion.Version).Do(ctx).Error()
	return apierrors.IsNotFound(err)
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
