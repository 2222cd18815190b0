package kube

import (
	"context"
	"net/http"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// protobufSource lists and watches the watch cache's built-in resources
// (Deployments, Jobs, Pods, Services...) in protobuf, the API server's own
// encoding, instead of JSON into unstructured: decoding the watch was the
// largest single cost left in the provider's refresh of 300 workloads
// (bench/README.md, issue #45). Each object is turned into the unstructured
// form every reader of the cache takes once, as it enters the cache
// (cachedObject). Custom resources (Kueue, KubeRay) have no protobuf
// encoding and stay on the dynamic client.
type protobufSource struct {
	config     *rest.Config // the typed client's: protobuf first, JSON accepted
	httpClient *http.Client // shared with the typed client, so one connection pool

	mu      sync.Mutex
	clients map[schema.GroupVersion]rest.Interface
}

func newProtobufSource(protoConfig *rest.Config, httpClient *http.Client) *protobufSource {
	return &protobufSource{config: protoConfig, httpClient: httpClient, clients: map[schema.GroupVersion]rest.Interface{}}
}

// builtinKinds maps the resources of client-go's scheme to their kinds
// (deployments to Deployment), for the resources with a list kind: the
// ones the cache can list and watch typed.
var builtinKinds = func() map[schema.GroupVersionResource]schema.GroupVersionKind {
	out := map[schema.GroupVersionResource]schema.GroupVersionKind{}
	for gvk := range scheme.Scheme.AllKnownTypes() {
		if !scheme.Scheme.Recognizes(gvk.GroupVersion().WithKind(gvk.Kind + "List")) {
			continue
		}
		plural, _ := meta.UnsafeGuessKindToResource(gvk)
		out[plural] = gvk
	}
	return out
}()

// listWatch is the typed list and watch of a resource in a namespace, with
// the object type the informer expects; false when the resource is not a
// built-in one (or its client cannot be built), for the dynamic client.
func (p *protobufSource) listWatch(gvr schema.GroupVersionResource, namespace, selector string) (*cache.ListWatch, runtime.Object, bool) {
	gvk, builtin := builtinKinds[gvr]
	if p == nil || !builtin {
		return nil, nil, false
	}
	prototype, err := scheme.Scheme.New(gvk)
	if err != nil {
		return nil, nil, false
	}
	client, err := p.client(gvr.GroupVersion())
	if err != nil {
		return nil, nil, false
	}
	request := func(o metav1.ListOptions) *rest.Request {
		o.LabelSelector = selector
		return client.Get().Namespace(namespace).Resource(gvr.Resource).VersionedParams(&o, scheme.ParameterCodec)
	}
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return request(o).Do(ctx).Get()
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.Watch = true
			return request(o).Watch(ctx)
		},
	}, prototype, true
}

// client is the REST client of one group version, built as client-go's
// generated clients build theirs, and kept.
func (p *protobufSource) client(gv schema.GroupVersion) (rest.Interface, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c, ok := p.clients[gv]; ok {
		return c, nil
	}
	config := rest.CopyConfig(p.config)
	config.GroupVersion = &gv
	config.APIPath = "/apis"
	if gv.Group == "" {
		config.APIPath = "/api"
	}
	config.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	c, err := rest.RESTClientForConfigAndClient(config, p.httpClient)
	if err != nil {
		return nil, err
	}
	p.clients[gv] = c
	return c, nil
}

// cachedObject is the informer's transform: an object as the cache keeps
// it, unstructured and without managed fields (most of an object's size;
// only the conflict check reads them, with a direct GET). A typed object
// (from protobuf, which leaves its kind out) gets its apiVersion and kind
// from the scheme; its map form is the one JSON would give.
func cachedObject(obj any) (any, error) {
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		o.SetManagedFields(nil)
		return o, nil
	case runtime.Object:
		gvks, _, err := scheme.Scheme.ObjectKinds(o)
		if err != nil {
			return nil, err
		}
		if accessor, err := meta.Accessor(o); err == nil {
			accessor.SetManagedFields(nil)
		}
		content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
		if err != nil {
			return nil, err
		}
		u := &unstructured.Unstructured{Object: content}
		u.SetGroupVersionKind(gvks[0])
		return u, nil
	}
	return obj, nil
}
