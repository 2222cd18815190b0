package kube

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

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
	version   *ServerVersion
}

// Lazy builds the Client on first use. The provider hands one Lazy to every
// resource at configure time; only apply, read and delete call Client, so a
// plan works offline and with a cluster that does not exist yet.
type Lazy struct {
	cfg    Config
	mu     sync.Mutex
	client *Client
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
	typed, err := kubernetes.NewForConfig(restConfig)
	if err != nil {
		return nil, fmt.Errorf("creating the Kubernetes client for %s: %w", restConfig.Host, err)
	}
	dyn, err := dynamic.NewForConfig(restConfig)
	if err != nil {
		return nil, fmt.Errorf("creating the Kubernetes dynamic client for %s: %w", restConfig.Host, err)
	}
	c := &Client{Host: restConfig.Host, Typed: typed, Dynamic: dyn, FieldManager: fieldManager,
		cache: newWatchCache(dyn, cacheSelector)}
	c.health = newServerHealth(restConfig.Host, func(ctx context.Context) error {
		return typed.Discovery().RESTClient().Get().AbsPath("/version").Do(ctx).Error()
	})
	return c, nil
}

// ServerVersion is the API server's major and minor version.
type ServerVersion struct {
	Major, Minor int
	GitVersion   string
}

// AtLeast reports whether the server is at major.minor or newer.
func (v ServerVersion) AtLeast(major, minor int) bool {
	return v.Major > major || (v.Major == major && v.Minor >= minor)
}

// ServerVersion asks the API server for its version once per client; it is
// also the cheapest call that proves the credentials work. Failures are not
// remembered, so a server that comes back is asked again.
func (c *Client) ServerVersion(ctx context.Context) (ServerVersion, error) {
	c.versionMu.Lock()
	defer c.versionMu.Unlock()
	if c.version != nil {
		return *c.version, nil
	}
	v, err := c.askServerVersion(ctx)
	if err == nil {
		c.version = &v
	}
	return v, err
}

func (c *Client) askServerVersion(ctx context.Context) (ServerVersion, error) {
	info, err := c.Typed.Discovery().ServerVersion()
	if err != nil {
		return ServerVersion{}, fmt.Errorf("cannot reach the Kubernetes API server at %s: %w", c.Host, err)
	}
	major, errMajor := strconv.Atoi(strings.TrimSuffix(info.Major, "+"))
	minor, errMinor := strconv.Atoi(strings.TrimSuffix(info.Minor, "+"))
	if errMajor != nil || errMinor != nil {
		return ServerVersion{}, fmt.Errorf("the API server at %s reported an unparsable version %q.%q (%s)", c.Host, info.Major, info.Minor, info.GitVersion)
	}
	_ = ctx // discovery's ServerVersion takes no context in client-go.
	return ServerVersion{Major: major, Minor: minor, GitVersion: info.GitVersion}, nil
}
