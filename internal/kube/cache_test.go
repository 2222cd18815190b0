package kube

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

const testSelector = "app.kubernetes.io/managed-by=terraform-provider-gpu"

var deploymentGVK = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}

// requestLog counts the requests a client sends, by verb and path without
// the object name's variations collapsed: what the API server would count.
type requestLog struct {
	mu    sync.Mutex
	calls []string
	// open holds the paths of the watches the server has answered: the
	// streams a wait is following.
	open []string
}

func (l *requestLog) RoundTrip(next http.RoundTripper) http.RoundTripper {
	return roundTripper(func(r *http.Request) (*http.Response, error) {
		if r.URL.Path != "/version" { // the outage probe, counted apart
			l.mu.Lock()
			l.calls = append(l.calls, r.Method+" "+r.URL.Path+"?"+r.URL.RawQuery)
			l.mu.Unlock()
		}
		resp, err := next.RoundTrip(r)
		if err == nil && resp.StatusCode == http.StatusOK && r.URL.Query().Get("watch") == "true" {
			l.mu.Lock()
			l.open = append(l.open, r.URL.Path)
			l.mu.Unlock()
		}
		return resp, err
	})
}

// watching reports whether the server has answered a watch on a path
// ending in suffix.
func (l *requestLog) watching(suffix string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, p := range l.open {
		if strings.HasSuffix(p, suffix) {
			return true
		}
	}
	return false
}

func (l *requestLog) snapshot() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.calls...)
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// countingClient is a provider client for the acceptance cluster (or, with
// a path, another kubeconfig) whose requests are logged.
func countingClient(t *testing.T, kubeconfig string) (*Client, *requestLog) {
	t.Helper()
	rc, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	rc.QPS, rc.Burst = 50, 100
	log := &requestLog{}
	rc.WrapTransport = log.RoundTrip
	c, err := newClient(rc, DefaultFieldManager, testSelector)
	if err != nil {
		t.Fatal(err)
	}
	return c, log
}

func createDeployments(t *testing.T, ns string, count int, managed bool, mutate func(*appsv1.Deployment)) []ObjectRef {
	t.Helper()
	cs := acctest.Client(t)
	refs := make([]ObjectRef, count)
	for i := range refs {
		d := testDeployment(ns, fmt.Sprintf("d-%02d", i), managed)
		if mutate != nil {
			mutate(d)
		}
		if _, err := cs.AppsV1().Deployments(ns).Create(context.Background(), d, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		refs[i] = ObjectRef{GVK: deploymentGVK, Namespace: ns, Name: d.Name}
	}
	return refs
}

func testDeployment(ns, name string, managed bool) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	meta := map[string]string{}
	if managed {
		meta["app.kubernetes.io/managed-by"] = "terraform-provider-gpu"
	}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: meta},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](0),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "registry.example/cuda:12"}}},
			},
		},
	}
}

// Reading many managed objects costs one list and one watch, whatever
// their number; what the cache does not hold is read from the server.
func TestAccCache_readsShareOneWatch(t *testing.T) {
	ns := acctest.Namespace(t)
	refs := createDeployments(t, ns, 40, true, nil)
	c, log := countingClient(t, acctest.Kubeconfig(t))
	ctx := context.Background()

	for _, ref := range refs {
		live, err := c.Get(ctx, ref)
		if err != nil || live == nil {
			t.Fatalf("Get(%s) = %v, %v", ref, live, err)
		}
		if live.GetName() != ref.Name || len(live.GetManagedFields()) != 0 {
			t.Fatalf("Get(%s) returned %s with %d managed fields entries", ref, live.GetName(), len(live.GetManagedFields()))
		}
	}
	if calls := log.snapshot(); len(calls) > 3 {
		t.Fatalf("40 reads made %d requests, want at most 3 (list and watch):\n%s", len(calls), strings.Join(calls, "\n"))
	}

	before := len(log.snapshot())
	unmanaged := createDeployments(t, ns, 1, false, func(d *appsv1.Deployment) { d.Name = "not-ours" })[0]
	if live, err := c.Get(ctx, unmanaged); err != nil || live == nil {
		t.Fatalf("an object without the managed-by label must be read from the server: %v, %v", live, err)
	}
	missing := ObjectRef{GVK: deploymentGVK, Namespace: ns, Name: "missing"}
	if live, err := c.Get(ctx, missing); err != nil || live != nil {
		t.Fatalf("Get(missing) = %v, %v; want nil, nil", live, err)
	}
	if got := len(log.snapshot()) - before; got != 2 {
		t.Fatalf("cache misses made %d requests, want one GET each (2)", got)
	}
}

// Waits for many workloads share the cache's watch instead of opening one
// each, and a change made after the wait started is seen.
func TestAccCache_waitsShareOneWatch(t *testing.T) {
	ns := acctest.Namespace(t)
	refs := createDeployments(t, ns, 20, true, nil)
	c, log := countingClient(t, acctest.Kubeconfig(t))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	errs := make(chan error, len(refs))
	for _, ref := range refs {
		go func() {
			errs <- c.WaitReady(ctx, managedTarget(ref, "", 1), WaitRollout, "app="+ref.Name, NoUnschedulableLimit)
		}()
	}
	for range refs {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if calls := log.snapshot(); len(calls) > 3 {
		sort.Strings(calls)
		t.Fatalf("20 waits made %d requests, want at most 3 (list and watch):\n%s", len(calls), strings.Join(calls, "\n"))
	}

	// A wait for generation 2 must not be satisfied by the cached
	// generation 1, which already looks rolled out.
	cs := acctest.Client(t)
	d, err := cs.AppsV1().Deployments(ns).Get(ctx, refs[0].Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d.Spec.Template.Annotations = map[string]string{"restarted": "yes"}
	updated, err := cs.AppsV1().Deployments(ns).Update(ctx, d, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	target := managedTarget(refs[0], updated.UID, updated.Generation)
	if err := c.WaitReady(ctx, target, WaitRollout, "app="+refs[0].Name, NoUnschedulableLimit); err != nil {
		t.Fatal(err)
	}
	live, err := c.GetFresh(ctx, refs[0])
	if err != nil {
		t.Fatal(err)
	}
	if observed, _, _ := unstructured.NestedInt64(live.Object, "status", "observedGeneration"); observed != updated.Generation {
		t.Fatalf("wait returned before the controller observed generation %d (observed %v)", updated.Generation, observed)
	}
}

// When the API server goes away during a wait, the wait ends within
// seconds with an error that says so, instead of running into its
// timeout and blaming the workload.
func TestAccCache_outageEndsWaits(t *testing.T) {
	ns := acctest.Namespace(t)
	refs := createDeployments(t, ns, 1, true, func(d *appsv1.Deployment) {
		d.Spec.Replicas = ptr.To[int32](1)
		d.Spec.Template.Spec.NodeSelector = map[string]string{"gpuform.io/no-such-pool": "true"}
	})
	proxy, kubeconfig := acctest.NewAPIProxy(t)
	c, log := countingClient(t, kubeconfig)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	done := make(chan error, 1)
	go func() {
		done <- c.WaitReady(ctx, managedTarget(refs[0], "", 1), WaitRollout, "app="+refs[0].Name, NoUnschedulableLimit)
	}()
	// The outage must come while the wait follows the Deployments' watch.
	waitFor(t, time.Minute, func() bool { return log.watching("/deployments") })
	proxy.Stop()

	err := <-done
	if err == nil || !strings.Contains(err.Error(), "lost contact with the Kubernetes API server at "+proxy.Host()) {
		t.Fatalf("wait during an outage returned %v; want a lost-contact error naming %s", err, proxy.Host())
	}
	if ctx.Err() != nil {
		t.Fatal("the wait ran into its own timeout instead of noticing the outage")
	}

	// Once the server is back, the same client works again.
	proxy.Start()
	if _, err := c.GetFresh(ctx, refs[0]); err != nil {
		t.Fatalf("after the outage: %v", err)
	}
}

// managedTarget is the wait target of an object carrying the managed-by
// label, which the watch cache holds (TargetOf reads the labels from the
// applied object).
func managedTarget(ref ObjectRef, uid types.UID, generation int64) WaitTarget {
	return WaitTarget{Ref: ref, UID: uid, Generation: generation, Labels: map[string]string{"app.kubernetes.io/managed-by": "terraform-provider-gpu"}}
}
