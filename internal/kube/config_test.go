package kube

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const twoContexts = `apiVersion: v1
kind: Config
current-context: first
clusters:
- name: a
  cluster: {server: "https://127.0.0.1:1111"}
- name: b
  cluster: {server: "https://127.0.0.1:2222"}
users:
- name: u
  user: {token: secret}
contexts:
- name: first
  context: {cluster: a, user: u}
- name: second
  context: {cluster: b, user: u}
`

func writeKubeconfig(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(p, []byte(twoContexts), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRESTConfig_contextSelectsCluster(t *testing.T) {
	p := writeKubeconfig(t)
	for ctxName, want := range map[string]string{"": "https://127.0.0.1:1111", "second": "https://127.0.0.1:2222"} {
		rc, err := Config{ConfigPaths: []string{p}, ConfigContext: ctxName}.RESTConfig()
		if err != nil {
			t.Fatalf("context %q: %v", ctxName, err)
		}
		if rc.Host != want || rc.BearerToken != "secret" {
			t.Errorf("context %q: host %q token %q, want %q and the user's token", ctxName, rc.Host, rc.BearerToken, want)
		}
	}
}

func TestRESTConfig_wrongContextListsAvailable(t *testing.T) {
	_, err := Config{ConfigPaths: []string{writeKubeconfig(t)}, ConfigContext: "prod"}.RESTConfig()
	if err == nil || !strings.Contains(err.Error(), `context "prod" does not exist`) ||
		!strings.Contains(err.Error(), `"first", "second"`) {
		t.Fatalf("want an error naming the missing and the available contexts, got %v", err)
	}
}

func TestRESTConfig_missingFile(t *testing.T) {
	_, err := Config{ConfigPaths: []string{"/nonexistent/kubeconfig"}}.RESTConfig()
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/kubeconfig") {
		t.Fatalf("want an error naming the file, got %v", err)
	}
}

func TestRESTConfig_nothingConfiguredNeverGuesses(t *testing.T) {
	_, err := Config{}.RESTConfig()
	if !errors.Is(err, ErrNotConfigured) {
		t.Fatalf("want ErrNotConfigured, got %v", err)
	}
	for _, attr := range []string{"config_path", "host", "KUBECONFIG"} {
		if !strings.Contains(err.Error(), attr) {
			t.Errorf("error should name %s: %v", attr, err)
		}
	}
}

func TestRESTConfig_unknownConfiguration(t *testing.T) {
	_, err := Config{Unknown: true, Host: "https://example.invalid"}.RESTConfig()
	if !errors.Is(err, ErrConfigUnknown) {
		t.Fatalf("want ErrConfigUnknown, got %v", err)
	}
}

func TestRESTConfig_hostTokenOverridesFile(t *testing.T) {
	rc, err := Config{Host: "https://10.0.0.1:6443", Token: "t0k", Insecure: true}.RESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	if rc.Host != "https://10.0.0.1:6443" || rc.BearerToken != "t0k" || !rc.Insecure {
		t.Fatalf("unexpected config: host %q token %q insecure %v", rc.Host, rc.BearerToken, rc.Insecure)
	}
	if rc.QPS >= 0 || rc.RateLimiter != nil {
		t.Errorf("QPS %v, rate limiter %v: a client-side limit would throttle large applies", rc.QPS, rc.RateLimiter)
	}
}

func TestRESTConfig_execPluginNeverPrompts(t *testing.T) {
	rc, err := Config{Host: "https://10.0.0.1", Exec: &ExecConfig{Command: "aws", Args: []string{"eks", "get-token"},
		Env: map[string]string{"B": "2", "A": "1"}}}.RESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	if rc.ExecProvider == nil || rc.ExecProvider.Command != "aws" || rc.ExecProvider.InteractiveMode != "Never" {
		t.Fatalf("exec provider not set as expected: %+v", rc.ExecProvider)
	}
	if rc.ExecProvider.Env[0].Name != "A" {
		t.Errorf("env should be sorted for stable behaviour: %+v", rc.ExecProvider.Env)
	}
}
