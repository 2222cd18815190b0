package kube

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"
)

// Unit tests of the waits and the watch cache against client-go's fakes;
// the TestAcc* tests in cache_test.go run the same code on a real server.

// fakePod is a pod in namespace "ns".
func fakePod(name string, lbls map[string]string) *unstructured.Unstructured {
	return toUnstructured(&corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Labels: lbls}})
}

// fakeClient is a Client on client-go's dynamic fake, holding objs, with no
// watch cache: every wait follows its objects with informers of its own.
func fakeClient(objs ...runtime.Object) (*Client, *dynamicfake.FakeDynamicClient) {
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		podsGVR: "PodList", {Group: "apps", Version: "v1", Resource: "deployments"}: "DeploymentList",
	}, objs...)
	c := healthyClient()
	c.Dynamic = dyn
	return c, dyn
}

var goneDeployment = ObjectRef{GVK: deploymentGVK, Namespace: "ns", Name: "w"}

// WaitGone returns once the last selected pod is deleted, and not before;
// pods outside the selector do not hold it up.
func TestWaitGone_endsWithTheLastPod(t *testing.T) {
	sel := map[string]string{"app": "w"}
	c, dyn := fakeClient(fakePod("a", sel), fakePod("b", sel), fakePod("other", map[string]string{"app": "x"}))
	// The deletes below must be seen by the wait's watch rather than by its
	// initial list.
	watching := countWatches(dyn, "pods")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.WaitGone(ctx, goneDeployment, "app=w") }()

	pods := dyn.Resource(podsGVR).Namespace("ns")
	awaitWatch(t, watching)
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

func TestWaitGone_timeoutSaysHowManyPodsAreLeft(t *testing.T) {
	c, _ := fakeClient(fakePod("stuck", map[string]string{"app": "w"}))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err := c.WaitGone(ctx, goneDeployment, "app=w")
	if err == nil || !strings.Contains(err.Error(), "waiting for 1 pod(s) to terminate") {
		t.Fatalf("want a timeout naming the pod left, got %v", err)
	}
}

// An identity without list on the workload's kind (the RBAC guide before
// the shared watch), or an object the cache does not hold, is followed with
// get and watch: the wait ends when the rollout does.
func TestWaitReady_followsAnObjectWithoutList(t *testing.T) {
	d := deploymentObject("ns", "w", nil)
	d.SetGeneration(1)
	c, dyn := fakeClient(d)
	dyn.PrependReactor("list", "deployments", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "apps", Resource: "deployments"}, "", nil)
	})
	watching := countWatches(dyn, "deployments")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- c.WaitReady(ctx, WaitTarget{Ref: goneDeployment, Generation: 1}, WaitRollout, "app=w", NoUnschedulableLimit)
	}()
	// The rollout below must be seen by the wait's watch: the fake sends an
	// event only to the watches open when it happens.
	awaitWatch(t, watching)
	select {
	case err := <-done:
		t.Fatalf("returned before the rollout: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	rolledOut := d.DeepCopy()
	rolledOut.Object["status"] = deploymentStatus(1, "NewReplicaSetAvailable")
	if _, err := dyn.Resource(appsDeployments).Namespace("ns").Update(ctx, rolledOut, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("want nil once rolled out, got %v", err)
	}
}

var appsDeployments = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}

// deploymentStatus is the status of a one-replica Deployment whose
// controller saw generation 1, with the Progressing condition's reason.
func deploymentStatus(replicas int64, progressing string) map[string]any {
	status := "True"
	if progressing == "ProgressDeadlineExceeded" {
		status = "False"
	}
	return map[string]any{
		"observedGeneration": int64(1), "replicas": replicas, "updatedReplicas": replicas,
		"readyReplicas": replicas, "availableReplicas": replicas,
		"conditions": []any{
			map[string]any{"type": "Available", "status": "True"},
			map[string]any{"type": "Progressing", "status": status, "reason": progressing, "message": `ReplicaSet "w-1" has timed out progressing.`},
		},
	}
}

// The watch cache serves only objects carrying its label selector, follows
// changes, and wakes waits that follow it.
func TestWatchCache_servesLabelledObjectsAndWakesWaits(t *testing.T) {
	gvr := appsDeployments
	managed := deploymentObject("ns", "ours", map[string]string{"app.kubernetes.io/managed-by": "terraform-provider-gpu"})
	foreign := deploymentObject("ns", "theirs", nil)
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{gvr: "DeploymentList"}, managed, foreign)
	watching := countWatches(dyn, "deployments")
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
		woke <- c.waitUntil(ctx, func() (bool, time.Time, error) { return e.get("ns", "ours") == nil, never, nil }, e)
	}()
	awaitWatch(t, watching) // the cache's informer sees the delete
	if err := dyn.Resource(gvr).Namespace("ns").Delete(ctx, "ours", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := <-woke; err != nil {
		t.Fatalf("a wait following the cache must end when the object goes: %v", err)
	}
}

// countWatches counts the watches of resource once they are open. The fake
// delivers an event only to the watches open when it happens (a real
// server replays from the list's resource version), so a test that changes
// an object for a watch to see waits for the count first.
func countWatches(dyn *dynamicfake.FakeDynamicClient, resource string) *atomic.Int32 {
	var watching atomic.Int32
	dyn.PrependWatchReactor(resource, func(action k8stesting.Action) (bool, watch.Interface, error) {
		var opts metav1.ListOptions
		if a, ok := action.(k8stesting.WatchActionImpl); ok {
			opts = a.ListOptions
		}
		w, err := dyn.Tracker().Watch(action.GetResource(), action.GetNamespace(), opts)
		if err == nil {
			watching.Add(1)
		}
		return true, w, err
	})
	return &watching
}

// awaitWatch returns once a watch counted by countWatches is open.
func awaitWatch(t *testing.T, watching *atomic.Int32) {
	t.Helper()
	waitFor(t, 5*time.Second, func() bool { return watching.Load() > 0 })
}

func deploymentObject(ns, name string, lbls map[string]string) *unstructured.Unstructured {
	return toUnstructured(&appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: lbls}})
}

func toUnstructured(obj any) *unstructured.Unstructured {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		panic(err)
	}
	return &unstructured.Unstructured{Object: content}
}
