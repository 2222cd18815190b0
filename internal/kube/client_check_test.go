package kube

import (
	"os"
	"path/filepath"
	"testing"
)

// Check reads the kubeconfig until it is usable, then no more: a plan
// checks it for every resource. A kubeconfig that is missing at first and
// written later (by an earlier resource of the same apply) is found.
func TestLazyCheck_remembersOnlySuccess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kubeconfig")
	l := NewLazy(Config{ConfigPaths: []string{path}})
	if err := l.Check(); err == nil {
		t.Fatal("a kubeconfig that does not exist passed the check")
	}
	kubeconfig := `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:6443"}
users:
- name: u
  user: {token: t}
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
`
	if err := os.WriteFile(path, []byte(kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := l.Check(); err != nil {
		t.Fatalf("the kubeconfig written later is not found: %v", err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := l.Check(); err != nil {
		t.Fatalf("a checked configuration was read again: %v", err)
	}
}
