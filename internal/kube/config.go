// Package kube holds every call the provider makes to a Kubernetes cluster:
// building the client from the provider configuration, server-side apply,
// reads, waits and deletes. Nothing else in the provider imports client-go.
package kube

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Config is the resolved provider configuration: Terraform attributes with
// environment variables already applied. Zero values mean "not set".
type Config struct {
	Host                 string
	Token                string
	ClusterCACertificate string
	ClientCertificate    string
	ClientKey            string
	Insecure             bool
	ConfigPaths          []string
	ConfigContext        string
	Exec                 *ExecConfig
	FieldManager         string
	UserAgent            string
	// CacheSelector is the label selector of the objects the provider
	// manages; reads and waits on them are served from a watch cache.
	// Empty turns the cache off.
	CacheSelector string
	// Unknown is set while the provider configuration depends on values
	// Terraform only learns during apply (a cluster created in the same
	// run). Plans then work offline and refreshes keep the prior state.
	Unknown bool
}

// DefaultExecAPIVersion is the ExecCredential version used when the exec
// block does not name one.
const DefaultExecAPIVersion = "client.authentication.k8s.io/v1beta1"

// ExecConfig runs a credential plugin, as the exec block of a kubeconfig user.
type ExecConfig struct {
	APIVersion string
	Command    string
	Args       []string
	Env        map[string]string
}

// ErrNotConfigured is returned when nothing tells the provider which cluster
// to talk to. The provider never guesses (no localhost, no in-cluster config),
// because applying GPU workloads to the wrong cluster is worse than failing.
var ErrNotConfigured = errors.New("no Kubernetes cluster is configured for the gpu provider: " +
	"set config_path (or config_paths, optionally with config_context), or host with token, " +
	"client_certificate/client_key or an exec block, in the provider \"gpu\" block; " +
	"or set the KUBECONFIG, KUBE_CONFIG_PATH(S) or KUBE_HOST environment variables")

// ErrConfigUnknown is returned by Lazy.Client while the provider
// configuration is not yet known.
var ErrConfigUnknown = errors.New("the gpu provider configuration depends on values that are only known after apply " +
	"(for example a cluster created in the same run); the cluster is contacted once they are known")

// Configured reports whether the configuration names a cluster at all.
func (c Config) Configured() bool {
	return c.Host != "" || len(c.ConfigPaths) > 0
}

// RESTConfig builds the client-go configuration. It reads kubeconfig files
// but makes no network call.
func (c Config) RESTConfig() (*rest.Config, error) {
	if c.Unknown {
		return nil, ErrConfigUnknown
	}
	if !c.Configured() {
		return nil, ErrNotConfigured
	}
	raw, err := c.loadKubeconfig()
	if err != nil {
		return nil, err
	}
	if err := c.checkContext(raw); err != nil {
		return nil, err
	}
	clientConfig := clientcmd.NewNonInteractiveClientConfig(*raw, c.ConfigContext, c.overrides(), nil)
	restConfig, err := clientConfig.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("building the Kubernetes client configuration: %w", err)
	}
	// No client-side rate limit: client-go's default (5 QPS, burst 10), or
	// any fixed rate, makes an apply of hundreds of workloads wait on the
	// limiter instead of the server. Terraform's -parallelism already bounds
	// how many requests are in flight, and the API server's priority and
	// fairness protects it from every client alike.
	restConfig.QPS = -1
	if c.UserAgent != "" {
		restConfig.UserAgent = c.UserAgent
	}
	return restConfig, nil
}

// loadKubeconfig merges the configured kubeconfig files, or returns an empty
// configuration when only host-based attributes are set.
func (c Config) loadKubeconfig() (*clientcmdapi.Config, error) {
	if len(c.ConfigPaths) == 0 {
		return clientcmdapi.NewConfig(), nil
	}
	paths := make([]string, 0, len(c.ConfigPaths))
	for _, p := range c.ConfigPaths {
		expanded, err := expandHome(p)
		if err != nil {
			return nil, err
		}
		if _, err := os.Stat(expanded); err != nil {
			return nil, fmt.Errorf("kubeconfig file %q (from config_path/config_paths or KUBECONFIG) cannot be read: %w", p, err)
		}
		paths = append(paths, expanded)
	}
	rules := &clientcmd.ClientConfigLoadingRules{Precedence: paths}
	raw, err := rules.Load()
	if err != nil {
		return nil, fmt.Errorf("loading kubeconfig %s: %w", strings.Join(paths, ", "), err)
	}
	return raw, nil
}

// checkContext turns client-go's terse "context was not found" into an error
// that lists the contexts the files do have.
func (c Config) checkContext(raw *clientcmdapi.Config) error {
	name := c.ConfigContext
	if name == "" {
		name = raw.CurrentContext
	}
	if name == "" {
		return nil
	}
	if _, ok := raw.Contexts[name]; ok {
		return nil
	}
	available := make([]string, 0, len(raw.Contexts))
	for n := range raw.Contexts {
		available = append(available, n)
	}
	sort.Strings(available)
	return fmt.Errorf("context %q does not exist in kubeconfig %s; available contexts: %s",
		name, strings.Join(c.ConfigPaths, ", "), quoteList(available))
}

func (c Config) overrides() *clientcmd.ConfigOverrides {
	o := &clientcmd.ConfigOverrides{}
	if c.ConfigContext != "" {
		o.CurrentContext = c.ConfigContext
	}
	if c.Host != "" {
		o.ClusterInfo.Server = c.Host
	}
	if c.ClusterCACertificate != "" {
		o.ClusterInfo.CertificateAuthorityData = []byte(c.ClusterCACertificate)
	}
	o.ClusterInfo.InsecureSkipTLSVerify = c.Insecure
	if c.ClientCertificate != "" {
		o.AuthInfo.ClientCertificateData = []byte(c.ClientCertificate)
	}
	if c.ClientKey != "" {
		o.AuthInfo.ClientKeyData = []byte(c.ClientKey)
	}
	if c.Token != "" {
		o.AuthInfo.Token = c.Token
	}
	if c.Exec != nil {
		o.AuthInfo.Exec = c.Exec.clientcmd()
	}
	return o
}

func (e *ExecConfig) clientcmd() *clientcmdapi.ExecConfig {
	names := make([]string, 0, len(e.Env))
	for n := range e.Env {
		names = append(names, n)
	}
	sort.Strings(names)
	env := make([]clientcmdapi.ExecEnvVar, 0, len(names))
	for _, n := range names {
		env = append(env, clientcmdapi.ExecEnvVar{Name: n, Value: e.Env[n]})
	}
	apiVersion := e.APIVersion
	if apiVersion == "" {
		// What every managed cloud's plugin speaks today.
		apiVersion = DefaultExecAPIVersion
	}
	return &clientcmdapi.ExecConfig{
		APIVersion: apiVersion,
		Command:    e.Command,
		Args:       e.Args,
		Env:        env,
		// Terraform owns the terminal: a plugin must never prompt.
		InteractiveMode: clientcmdapi.NeverExecInteractiveMode,
	}
}

func expandHome(p string) (string, error) {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("expanding %q: %w", p, err)
	}
	return filepath.Join(home, strings.TrimPrefix(p, "~")), nil
}

func quoteList(items []string) string {
	if len(items) == 0 {
		return "(none)"
	}
	quoted := make([]string, len(items))
	for i, s := range items {
		quoted[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(quoted, ", ")
}
