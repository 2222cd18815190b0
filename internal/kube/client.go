package kube

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	utilversion "k8s.io/apimachinery/pkg/util/version"
	apiversion "k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// DefaultFieldManager is the server-side apply field manager the provider
// uses unless the provider block sets field_manager.
const DefaultFieldManager = "terraform-provider-gpu"

// Client is a connected cluster client. Build it through Lazy so that plans
// never touch the cluster.
type Client struct {
	Host         string
	Typed        kubernetes.Interface
	Dynamic      dynamic.Interface
	FieldManager string

	cache  *watchCache
	health *serverHealth

	versionMu sync.Mutex
	version   *utilversion.Version
}

// Lazy builds the Client on first use. The provider hands one Lazy to every
// resource at configure time; only apply, read and delete call Client, so a
// plan works offline and with a cluster that does not exist yet.
type Lazy struct {
	cfg    Config
	mu     sync.Mutex
	client *Client
	// checked: Check found the configuration usable once. A plan checks it
	// for every resource, and reading and parsing the kubeconfig each time
	// cost a large share of a plan's CPU.
	checked bool
}

// NewLazy returns a Lazy for the resolved configuration.
func NewLazy(cfg Config) *Lazy {
	if cfg.FieldManager == "" {
		cfg.FieldManager = DefaultFieldManager
	}
	return &Lazy{cfg: cfg}
}

// Configured reports whether a cluster is configured at all, without
// connecting.
func (l *Lazy) Configured() bool { return l != nil && l.cfg.Configured() }

// Check reports, without connecting, a configuration that can never give
// a client: no cluster configured, a kubeconfig that cannot be read, a
// context it does not have. A configuration known only at apply is not
// an error yet.
// A usable configuration is remembered (the kubeconfig is not read
// again); a failure is not, as in Client.
func (l *Lazy) Check() error {
	if l == nil {
		return ErrNotConfigured
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.checked || l.client != nil {
		return nil
	}
	_, err := l.cfg.RESTConfig()
	switch {
	case errors.Is(err, ErrConfigUnknown):
		return nil
	case err != nil:
		return err
	}
	l.checked = true
	return nil
}

// FieldManager is the server-side apply manager name.
func (l *Lazy) FieldManager() string { return l.cfg.FieldManager }

// Client returns the shared client, building it on the first call. Errors
// are not cached: a kubeconfig written by an earlier resource in the same
// apply can make a later call succeed.
func (l *Lazy) Client() (*Client, error) {
	if l == nil {
		return nil, ErrNotConfigured
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.client != nil {
		return l.client, nil
	}
	restConfig, err := l.cfg.RESTConfig()
	if err != nil {
		return nil, err
	}
	c, err := newClient(restConfig, l.cfg.FieldManager, l.cfg.CacheSelector)
	if err != nil {
		return nil, err
	}
	l.client = c
	return c, nil
}

func newClient(restConfig *rest.Config, fieldManager, cacheSelector string) (*Client, error) {
	// Built-in types travel as protobuf: several times smaller and faster
	// to decode than JSON, which matters for lists of thousands of nodes
	// and pods, and for the watch cache's Deployments, Jobs and pods. The
	// dynamic client (custom resources, apply) stays JSON.
	protoConfig := rest.CopyConfig(restConfig)
	protoConfig.ContentType = runtime.ContentTypeProtobuf
	protoConfig.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	if protoConfig.UserAgent == "" {
		protoConfig.UserAgent = rest.DefaultKubernetesUserAgent() // as kubernetes.NewForConfig sets it
	}
	httpClient, err := rest.HTTPClientFor(protoConfig)
	if err != nil {
		return nil, fmt.Errorf("creating the Kubernetes client for %s: %w", restConfig.Host, err)
	}
	typed, err := kubernetes.NewForConfigAndClient(protoConfig, httpClient)
	if err != nil {
		return nil, fmt.Errorf("creating the Kubernetes client for %s: %w", restConfig.Host, err)
	}
	dyn, err := dynamic.NewForConfig(restConfig)
	if err != nil {
		return nil, fmt.Errorf("creating the Kubernetes dynamic client for %s: %w", restConfig.Host, err)
	}
	c := &Client{Host: restConfig.Host, Typed: typed, Dynamic: dyn, FieldManager: fieldManager,
		cache: newWatchCache(dyn, cacheSelector)}
	c.cache.proto = newProtobufSource(protoConfig, httpClient)
	c.health = newServerHealth(restConfig.Host, func(ctx context.Context) error {
		return typed.Discovery().RESTClient().Get().AbsPath("/version").Do(ctx).Error()
	})
	return c, nil
}

// ServerVersion asks the API server for its version once per client; it is
// also the cheapest call that proves the credentials work. Failures are not
// remembered, so a server that comes back is asked again. The lock guards
// only the remembered answer, never the request: a hung server must not
// hold every parallel apply past its own context.
func (c *Client) ServerVersion(ctx context.Context) (*utilversion.Version, error) {
	c.versionMu.Lock()
	known := c.version
	c.versionMu.Unlock()
	if known != nil {
		return known, nil
	}
	v, err := c.askServerVersion(ctx)
	if err == nil {
		c.versionMu.Lock()
		c.version = v
		c.versionMu.Unlock()
	}
	return v, err
}

func (c *Client) askServerVersion(ctx context.Context) (*utilversion.Version, error) {
	info, err := discovery.ToServerVersionInterfaceWithContext(c.Typed.Discovery()).ServerVersionWithContext(ctx)
	if err != nil {
		return nil, fmt.Errorf("cannot reach the Kubernetes API server at %s: %w", c.Host, err)
	}
	v, err := parseServerVersion(info)
	if err != nil {
		return nil, fmt.Errorf("the API server at %s reported an unparsable version %q.%q (%s)", c.Host, info.Major, info.Minor, info.GitVersion)
	}
	return v, nil
}

// parseServerVersion reads /version's major and minor (managed services
// append "+", e.g. minor "33+"), falling back to gitVersion when they are
// empty, as in builds without version stamping. The answer is major.minor
// only: the rules that depend on the server never look at the patch.
func parseServerVersion(info *apiversion.Info) (*utilversion.Version, error) {
	v, err := utilversion.ParseGeneric(info.Major + "." + info.Minor)
	if err != nil {
		v, err = utilversion.ParseGeneric(info.GitVersion)
	}
	if err != nil {
		return nil, err
	}
	return utilversion.MajorMinor(v.Major(), v.Minor()), nil
}
