// Package acctest is the acceptance-test harness: it finds the cluster the
// tests run against (the local cluster, or any kubeconfig named by
// TF_ACC_KUBECONFIG), gives each test its own namespace, and reads the
// cluster through client-go so tests can check what really exists.
package acctest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// EnvKubeconfig names the kubeconfig acceptance tests use. The provider's
// own KUBECONFIG fallback is deliberately not used, so that tests never run
// against a workstation's default (possibly production) cluster by accident.
const EnvKubeconfig = "TF_ACC_KUBECONFIG"

// Kubeconfig returns the kubeconfig path for acceptance tests. `make test`
// sets it; running `go test` by hand with TF_ACC=1 needs it too.
func Kubeconfig(t testing.TB) string {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		// As terraform-plugin-testing does: `go test` alone runs unit tests.
		t.Skip("acceptance test: set TF_ACC=1 (make test does, and starts the local cluster)")
	}
	p := os.Getenv(EnvKubeconfig)
	if p == "" {
		t.Fatalf("%s is not set: run `make test` (starts the local GPU cluster) or point %s at a cluster's kubeconfig",
			EnvKubeconfig, EnvKubeconfig)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatalf("%s=%q: %v", EnvKubeconfig, p, err)
	}
	if _, err := os.Stat(abs); err != nil {
		t.Fatalf("%s=%q cannot be read: %v (is the local cluster up? `make cluster-up`)", EnvKubeconfig, p, err)
	}
	return abs
}

// PreCheck fails the test early when the cluster is unusable.
func PreCheck(t testing.TB) {
	t.Helper()
	Client(t)
}

// RESTConfig is the client configuration of the acceptance cluster.
func RESTConfig(t testing.TB) *rest.Config {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", Kubeconfig(t))
	if err != nil {
		t.Fatalf("loading %s: %v", EnvKubeconfig, err)
	}
	cfg.QPS, cfg.Burst = 50, 100
	return cfg
}

// Client returns a client-go clientset for the acceptance cluster.
func Client(t testing.TB) kubernetes.Interface {
	t.Helper()
	cfg := RESTConfig(t)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatalf("client for %s: %v", cfg.Host, err)
	}
	return cs
}

// Namespace creates a namespace with a random name for one test and deletes
// it when the test ends, whether it passed or not.
func Namespace(t testing.TB) string {
	t.Helper()
	cs := Client(t)
	name := "tf-acc-" + rand.String(8)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"gpuform.io/acceptance-test": "true"}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating namespace %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		err := cs.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting namespace %s: %v", name, err)
		}
	})
	return name
}

// ProviderBlock is the provider configuration most tests use: the test
// cluster's kubeconfig.
func ProviderBlock(t testing.TB, extra ...string) string {
	t.Helper()
	return fmt.Sprintf("provider \"gpu\" {\n  config_path = %q\n%s}\n", Kubeconfig(t), indent(extra))
}

func indent(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("  " + l + "\n")
	}
	return b.String()
}

// RepoRoot returns the repository root, for tests that read examples or
// scripts.
func RepoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the repository root")
	}
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}
