package kube

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"
)

// cacheIdle is how long an informer nobody reads or waits on keeps its
// watch open. A Terraform run ends the provider process long before; the
// limit matters for processes serving many runs (tests, debug sessions).
const cacheIdle = 30 * time.Second

// watchCache serves reads and waits from one list-and-watch per resource
// and namespace, shared by every resource in the provider process. A
// refresh of 300 workloads in one namespace is then one LIST and one WATCH
// instead of 300 GETs, and 300 rollout waits share that one watch instead
// of opening one each. Only objects carrying the provider's managed-by label
// are cached; anything else is read directly, so an object the cache has
// not seen is never reported missing on the cache's word alone.
type watchCache struct {
	dyn      dynamic.Interface
	proto    *protobufSource // nil: every resource through dyn (client-go's fakes)
	selector string

	mu      sync.Mutex
	entries map[cacheKey]*cacheEntry
	janitor bool
}

type cacheKey struct {
	gvr       schema.GroupVersionResource
	namespace string
}

// cacheEntry is one running informer: a shared one of the watch cache, or
// a private one that a single wait starts for what the cache cannot serve.
type cacheEntry struct {
	informer cache.SharedIndexInformer
	stop     chan struct{}
	synced   <-chan struct{} // closed once the initial list is in the store
	failed   chan struct{}   // closed when the list is refused (RBAC) or fails before syncing
	failOnce sync.Once
	failErr  error

	lastUsed atomic.Int64
	waiters  atomic.Int32

	mu        sync.Mutex
	followers map[chan struct{}]bool // the wake channels of the waits following the entry
}

func newWatchCache(dyn dynamic.Interface, selector string) *watchCache {
	return &watchCache{dyn: dyn, selector: selector, entries: map[cacheKey]*cacheEntry{}}
}

// holds reports whether objects with these labels are in the cache. An
// object without the managed-by label (a workload adopted as it was) is
// not, and a wait on the cache would never see it.
func (wc *watchCache) holds(set map[string]string) bool {
	if wc == nil || wc.selector == "" {
		return false
	}
	selector, err := labels.Parse(wc.selector)
	return err == nil && selector.Matches(labels.Set(set))
}

// holdsAll reports whether every object an equality selector matches is in
// the cache: the selector itself requires the cache's labels.
func (wc *watchCache) holdsAll(selector string) bool {
	set, err := labels.ConvertSelectorToLabelsMap(selector)
	return err == nil && wc.holds(set)
}

// entry returns the synced informer for a resource in a namespace, starting
// it on first use. It reports false when the cache cannot serve this
// resource (no selector configured, list or watch forbidden, the list
// failed): callers then talk to the API server directly, which also gives
// the clearer error.
func (wc *watchCache) entry(ctx context.Context, gvr schema.GroupVersionResource, namespace string) (*cacheEntry, bool) {
	if wc == nil || wc.selector == "" || namespace == "" {
		return nil, false
	}
	key := cacheKey{gvr: gvr, namespace: namespace}
	e := wc.getOrStart(key)
	e.touch()
	select {
	case <-e.synced:
	case <-e.failed:
	case <-ctx.Done():
		return nil, false
	}
	select {
	case <-e.failed: // refused, or stopped as idle just now
		wc.forget(key, e)
		return nil, false
	default:
		return e, true
	}
}

func (wc *watchCache) getOrStart(key cacheKey) *cacheEntry {
	wc.mu.Lock()
	defer wc.mu.Unlock()
	if e, ok := wc.entries[key]; ok {
		return e
	}
	e := wc.start(key)
	wc.entries[key] = e
	if !wc.janitor {
		wc.janitor = true
		go wc.stopIdle()
	}
	return e
}

// start starts the informer of a key: typed in protobuf for a built-in
// resource (protobufSource), else unstructured through the dynamic client.
func (wc *watchCache) start(key cacheKey) *cacheEntry {
	if lw, prototype, ok := wc.proto.listWatch(key.gvr, key.namespace, wc.selector); ok {
		return newTypedEntry(lw, prototype, nil) // a real server's REST client: it streams the initial list
	}
	return newEntry(bySelector(wc.dyn.Resource(key.gvr).Namespace(key.namespace), wc.selector), wc.dyn)
}

// newEntry starts an informer on a list and watch of unstructured objects.
// client tells the reflector whether it can stream the initial list (a
// real server can; client-go's fakes cannot).
func newEntry(lw *cache.ListWatch, client any) *cacheEntry {
	return newTypedEntry(lw, &unstructured.Unstructured{}, client)
}

// newTypedEntry starts an informer on a list and watch of objects of
// prototype's type; the cache keeps them unstructured (cachedObject).
func newTypedEntry(lw *cache.ListWatch, prototype runtime.Object, client any) *cacheEntry {
	informer := cache.NewSharedIndexInformer(cache.ToListWatcherWithWatchListSemantics(lw, client),
		prototype, 0, cache.Indexers{})
	e := &cacheEntry{
		informer:  informer,
		stop:      make(chan struct{}),
		synced:    informer.HasSyncedChecker().Done(),
		failed:    make(chan struct{}),
		followers: map[chan struct{}]bool{},
	}
	_ = informer.SetTransform(cachedObject)
	_ = informer.SetWatchErrorHandlerWithContext(func(ctx context.Context, r *cache.Reflector, err error) {
		if !informer.HasSynced() || apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) {
			e.fail(err)
			return
		}
		cache.DefaultWatchErrorHandler(ctx, r, err)
	})
	notify := func(any) { e.notify() }
	_, _ = informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    notify,
		UpdateFunc: func(_, obj any) { notify(obj) },
		DeleteFunc: notify,
	})
	go informer.Run(e.stop)
	return e
}

// bySelector lists and watches the objects matching a label selector.
func bySelector(ri dynamic.ResourceInterface, selector string) *cache.ListWatch {
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			o.LabelSelector = selector
			return ri.List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.LabelSelector = selector
			return ri.Watch(ctx, o)
		},
	}
}

// fail stops an informer that cannot serve (a later call starts a new
// one, so an API server that comes back is used again) and wakes the waits
// following it, which then end with stoppedErr.
func (e *cacheEntry) fail(err error) {
	e.failOnce.Do(func() {
		e.failErr = err
		close(e.failed)
		close(e.stop)
		e.notify()
	})
}

func (e *cacheEntry) stopped() bool {
	select {
	case <-e.failed:
		return true
	default:
		return false
	}
}

// stoppedErr explains a watch that stopped under a wait, e.g. because the
// identity lost its list or watch permission.
func (e *cacheEntry) stoppedErr() error {
	if e.failErr == nil {
		return errors.New("the watch serving this wait stopped")
	}
	return fmt.Errorf("the watch serving this wait stopped: %w", e.failErr)
}

func (wc *watchCache) forget(key cacheKey, e *cacheEntry) {
	wc.mu.Lock()
	defer wc.mu.Unlock()
	if wc.entries[key] == e {
		delete(wc.entries, key)
	}
}

// stopIdle stops informers nobody used for cacheIdle. It exits when none
// are left; the next getOrStart starts it again.
func (wc *watchCache) stopIdle() {
	ticker := time.NewTicker(cacheIdle / 3)
	defer ticker.Stop()
	for range ticker.C {
		wc.mu.Lock()
		for key, e := range wc.entries {
			if e.waiters.Load() == 0 && time.Since(time.Unix(0, e.lastUsed.Load())) > cacheIdle {
				e.fail(nil)
				delete(wc.entries, key)
			}
		}
		empty := len(wc.entries) == 0
		if empty {
			wc.janitor = false
		}
		wc.mu.Unlock()
		if empty {
			return
		}
	}
}

func (e *cacheEntry) touch() { e.lastUsed.Store(time.Now().UnixNano()) }

// notify wakes every wait following the entry. A wake channel holds one
// token, so changes that come while the wait is checking are not lost and
// a burst of them costs one more check.
func (e *cacheEntry) notify() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for wake := range e.followers {
		select {
		case wake <- struct{}{}:
		default:
		}
	}
}

// get returns a copy of a cached object, or nil when the cache has none.
func (e *cacheEntry) get(namespace, name string) *unstructured.Unstructured {
	e.touch()
	item, exists, err := e.informer.GetStore().GetByKey(namespace + "/" + name)
	if err != nil || !exists {
		return nil
	}
	u, ok := item.(*unstructured.Unstructured)
	if !ok {
		return nil
	}
	return u.DeepCopy()
}

// list returns copies of the cached objects matching a label selector.
func (e *cacheEntry) list(selector labels.Selector) []*unstructured.Unstructured {
	e.touch()
	var out []*unstructured.Unstructured
	for _, item := range e.informer.GetStore().List() {
		u, ok := item.(*unstructured.Unstructured)
		if ok && selector.Matches(labels.Set(u.GetLabels())) {
			out = append(out, u.DeepCopy())
		}
	}
	return out
}

// follow sends the entry's changes to wake (a channel of capacity one)
// and marks the entry as in use, so it is not stopped as idle, until
// release.
func (e *cacheEntry) follow(wake chan struct{}) (release func()) {
	e.waiters.Add(1)
	e.mu.Lock()
	e.followers[wake] = true
	e.mu.Unlock()
	return func() {
		e.mu.Lock()
		delete(e.followers, wake)
		e.mu.Unlock()
		e.touch()
		e.waiters.Add(-1)
	}
}
