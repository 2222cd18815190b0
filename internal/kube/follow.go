package kube

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"
)

// A wait follows informers only: the shared watch cache's where it serves,
// else one the wait starts for itself and stops when it ends. The latter
// serves what the cache cannot: objects without the managed-by label (a
// workload adopted as it was), kinds and scopes it does not cache, and
// identities that may get and watch but not list.

// followObject returns an informer that sees the object, and the func that
// releases it. held says the shared cache holds the object (by its labels),
// or the caller confirms what the cache says with the server.
func (c *Client) followObject(ctx context.Context, ref ObjectRef, held bool) (*cacheEntry, func(), error) {
	if held {
		if e, ok := c.cached(ctx, ref); ok {
			return e, func() {}, nil
		}
	}
	ri, err := c.resourceFor(ref)
	if err != nil {
		return nil, nil, err
	}
	return c.followPrivately(ctx, byName(ri, ref.Name))
}

// followPods returns an informer that sees the pods matching the selector,
// and the func that releases it.
func (c *Client) followPods(ctx context.Context, namespace, selector string) (*cacheEntry, func(), error) {
	if c.cache.holdsAll(selector) {
		if e, ok := c.cachedPods(ctx, namespace); ok {
			return e, func() {}, nil
		}
	}
	return c.followPrivately(ctx, bySelector(c.Dynamic.Resource(podsGVR).Namespace(namespace), selector))
}

// followPrivately starts an informer of the wait's own and returns it once
// synced; release stops it.
func (c *Client) followPrivately(ctx context.Context, lw *cache.ListWatch) (*cacheEntry, func(), error) {
	e := newEntry(lw, c.Dynamic)
	release := func() { e.fail(nil) }
	select {
	case <-e.synced:
		return e, release, nil
	case <-e.failed:
		return nil, nil, e.failErr
	case <-ctx.Done():
		release()
		return nil, nil, ctx.Err()
	}
}

// byName lists and watches one object with get and watch only: its list is
// a GET, so an identity without list permission can follow it too.
func byName(ri dynamic.ResourceInterface, name string) *cache.ListWatch {
	field := fields.OneTermEqualSelector("metadata.name", name).String()
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, _ metav1.ListOptions) (runtime.Object, error) {
			list := &unstructured.UnstructuredList{}
			live, err := ri.Get(ctx, name, metav1.GetOptions{})
			switch {
			case apierrors.IsNotFound(err):
			case err != nil:
				return nil, err
			default:
				list.Items = []unstructured.Unstructured{*live}
				list.SetResourceVersion(live.GetResourceVersion())
			}
			return list, nil
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.FieldSelector = field
			return ri.Watch(ctx, o)
		},
	}
}
