package kube

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
)

// Unit tests of the waits and the watch cache against client-go's fakes;
// the TestAcc* tests in cache_test.go run the same code on a real server.

// fakePod is a pod in namespace "ns".
func fakePod(name string, lbls map[string]string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Labels: lbls}}
}

// waitPodsGone returns once the last selected pod is deleted, and not
// before; pods outside the selector do not hold it up.
func TestWaitPodsGone_endsWithTheLastPod(t *testing.T) {
	sel := map[string]string{"app": "w"}
	typed := fake.NewClientset(fakePod("a", sel), fakePod("b", sel), fakePod("other", map[string]string{"app": "x"}))
	c := &Client{Typed: typed}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.waitPodsGone(ctx, "ns", "app=w") }()

	pods := typed.CoreV1().Pods("ns")
	time.Sleep(100 * time.Millisecond)
	if err := pods.Delete(ctx, "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		t.Fatalf("returned with a pod left: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	if err := pods.Delete(ctx, "b", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("want nil once every selected pod is gone, got %v", err)
	}
}

func TestWaitPodsGone_timeoutSaysHowManyAreLeft(t *testing.T) {
	typed := fake.NewClientset(fakePod("stuck", map[string]string{"app": "w"}))
	c := &Client{Typed: typed}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err := c.waitPodsGone(ctx, "ns", "app=w")
	if err == nil || !strings.Contains(err.Error(), "waiting for 1 pod(s) to terminate") {
		t.Fatalf("want a timeout naming the pod left, got %v", err)
	}
}

// The watch cache serves only objects carrying its label selector, follows
// changes, and wakes waits that follow it.
func TestWatchCache_servesLabelledObjectsAndWakesWaits(t *testing.T) {
	gvr := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	managed := deploymentObject("ns", "ours", map[string]string{"app.kubernetes.io/managed-by": "terraform-provider-gpu"})
	foreign := deploymentObject("ns", "theirs", nil)
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{gvr: "DeploymentList"}, managed, foreign)
	wc := newWatchCache(dyn, testSelector)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	e, ok := wc.entry(ctx, gvr, "ns")
	if !ok {
		t.Fatal("the cache must serve a resource it can list and watch")
	}
	defer e.fail(nil)
	if e.get("ns", "ours") == nil || e.get("ns", "theirs") != nil {
		t.Fatal("the cache holds exactly the objects with the managed-by label")
	}
	if got := len(e.list(labels.Everything())); got != 1 {
		t.Fatalf("list: %d objects, want 1", got)
	}

	c := healthyClient()
	woke := make(chan error, 1)
	go func() {
		woke <- c.waitOnCache(ctx, func() (bool, error) { return e.get("ns", "ours") == nil, nil }, e)
	}()
	if err := dyn.Resource(gvr).Namespace("ns").Delete(ctx, "ours", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := <-woke; err != nil {
		t.Fatalf("a wait following the cache must end when the object goes: %v", err)
	}
}

func deploymentObject(ns, name string, lbls map[string]string) *unstructured.Unstructured {
	d := &appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: lbls}}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(d)
	if err != nil {
		panic(err)
	}
	return &unstructured.Unstructured{Object: content}
}
