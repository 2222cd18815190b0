package kube

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// Unit tests of the Kueue waits on client-go's fakes: they follow Kueue's
// objects with informers, survive a watch the server closes, and poll when
// the identity may not watch.

var kueueWorkloadsGVR = GVKKueueWorkload.GroupVersion().WithResource("workloads")

// kueueFake is a Client on the dynamic fake holding Workloads and pods.
func kueueFake(objs ...runtime.Object) (*Client, *dynamicfake.FakeDynamicClient) {
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		kueueWorkloadsGVR: "WorkloadList", podsGVR: "PodList",
	}, objs...)
	c := healthyClient()
	c.Dynamic = dyn
	return c, dyn
}

// kueueWorkload is a Workload in namespace "ns" standing for the object
// with the given UID.
func kueueWorkload(name string, owner types.UID) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": GVKKueueWorkload.GroupVersion().String(), "kind": "Workload",
		"metadata": map[string]any{"namespace": "ns", "name": name, "labels": map[string]any{LabelKueueJobUID: string(owner)}},
	}}
}

// setCondition writes one of Kueue's conditions, True, on the Workload
// (Admitted, Finished).
func setCondition(ctx context.Context, t *testing.T, dyn *dynamicfake.FakeDynamicClient, wl *unstructured.Unstructured, condition string) {
	t.Helper()
	updated := wl.DeepCopy()
	if err := unstructured.SetNestedSlice(updated.Object, []any{map[string]any{"type": condition, "status": "True"}},
		"status", "conditions"); err != nil {
		t.Fatal(err)
	}
	if _, err := dyn.Resource(kueueWorkloadsGVR).Namespace("ns").Update(ctx, updated, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func stillWaiting(t *testing.T, done <-chan error, what string) {
	t.Helper()
	select {
	case err := <-done:
		t.Fatalf("returned while %s: %v", what, err)
	case <-time.After(400 * time.Millisecond):
	}
}

var queuedJob = ObjectRef{GVK: jobGVK, Namespace: "ns", Name: "train"}

// The server closes watches (a timeout, an API server restart): the
// admission wait goes on with a new watch and sees the admission made
// after it, instead of failing.
func TestWaitAdmitted_resumesAWatchTheServerClosed(t *testing.T) {
	pending := kueueWorkload("job-train-1", "job-uid")
	c, dyn := kueueFake(pending)
	first := watch.NewFake()
	var watches atomic.Int32
	dyn.PrependWatchReactor("workloads", func(k8stesting.Action) (bool, watch.Interface, error) {
		if watches.Add(1) == 1 {
			return true, first, nil
		}
		return false, nil, nil // the fake's own watch from now on
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.WaitAdmitted(ctx, queuedJob, "job-uid", "", 1) }()
	waitFor(t, 5*time.Second, func() bool { return watches.Load() == 1 })
	first.Stop()
	stillWaiting(t, done, "the Workload is pending")
	// The closed watch is resumed: a second one is opened.
	waitFor(t, 15*time.Second, func() bool { return watches.Load() >= 2 })
	setCondition(ctx, t, dyn, pending, "Admitted")
	if err := <-done; err != nil {
		t.Fatalf("want nil once Kueue admits the Workload, got %v", err)
	}
}

// A Deployment's pods are admitted one by one: the wait finds their
// Workloads through the pods' UIDs and ends when want of them are admitted.
func TestWaitAdmitted_countsADeploymentsPods(t *testing.T) {
	sel := map[string]string{"app": "serve"}
	podA, podB := fakePod("serve-a", sel), fakePod("serve-b", sel)
	podA.SetUID("uid-a")
	podB.SetUID("uid-b")
	wlA, wlB, other := kueueWorkload("pod-serve-a", "uid-a"), kueueWorkload("pod-serve-b", "uid-b"), kueueWorkload("pod-other", "uid-x")
	c, dyn := kueueFake(podA, podB, wlA, wlB, other)
	watching := countWatches(dyn, "workloads")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	setCondition(ctx, t, dyn, wlA, "Admitted")
	setCondition(ctx, t, dyn, other, "Admitted")
	done := make(chan error, 1)
	go func() {
		done <- c.WaitAdmitted(ctx, ObjectRef{GVK: deploymentGVK, Namespace: "ns", Name: "serve"}, "deploy-uid", "app=serve", 2)
	}()
	awaitWatch(t, watching) // the admission below must reach the wait's watch
	stillWaiting(t, done, "one pod's Workload is pending")
	setCondition(ctx, t, dyn, wlB, "Admitted")
	if err := <-done; err != nil {
		t.Fatalf("want nil once both pods' Workloads are admitted, got %v", err)
	}
	// Without a wait, the pods are read from the server (typed).
	c.Typed = kubefake.NewClientset(typedPod(t, podA), typedPod(t, podB))
	got, err := c.KueueWorkloadsOf(ctx, "ns", "deploy-uid", "app=serve")
	if err != nil || len(got) != 2 {
		t.Fatalf("KueueWorkloadsOf = %d Workloads (%v), want the two pods'", len(got), err)
	}
}

// A destroy of queued work waits until its Workloads are gone: a pending
// one could still be admitted into quota freed in the meantime, and a
// finished one still exists until the garbage collector follows its Job.
func TestWaitKueueReleased_endsWhenTheWorkloadIsGone(t *testing.T) {
	pending := kueueWorkload("pod-w-1", "u")
	c, dyn := kueueFake(pending)
	watching := countWatches(dyn, "workloads")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.WaitKueueReleased(ctx, "ns", []string{"pod-w-1"}) }()
	awaitWatch(t, watching) // the changes below must reach the wait's watch
	stillWaiting(t, done, "the Workload is pending")
	setCondition(ctx, t, dyn, pending, "Finished")
	stillWaiting(t, done, "the Workload is finished but not yet deleted")
	if err := dyn.Resource(kueueWorkloadsGVR).Namespace("ns").Delete(ctx, "pod-w-1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("want nil once the Workload is gone, got %v", err)
	}
}

func typedPod(t *testing.T, u *unstructured.Unstructured) *corev1.Pod {
	t.Helper()
	var pod corev1.Pod
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &pod); err != nil {
		t.Fatal(err)
	}
	return &pod
}

// An identity that may list Workloads but not watch them (the RBAC guide's
// minimum) still waits, by asking the server.
func TestWaitKueueReleased_pollsWithoutWatch(t *testing.T) {
	c, dyn := kueueFake(kueueWorkload("pod-w-1", "u"))
	dyn.PrependWatchReactor("workloads", func(k8stesting.Action) (bool, watch.Interface, error) {
		return true, nil, apierrors.NewForbidden(kueueWorkloadsGVR.GroupResource(), "", nil)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.WaitKueueReleased(ctx, "ns", []string{"pod-w-1"}) }()
	stillWaiting(t, done, "the Workload exists")
	if err := dyn.Resource(kueueWorkloadsGVR).Namespace("ns").Delete(ctx, "pod-w-1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("want nil once the Workload is gone, got %v", err)
	}
}

// WaitAdmitted reports a context that ended first as not ready.
func TestWaitAdmitted_timeoutIsNotReady(t *testing.T) {
	c, _ := kueueFake(kueueWorkload("job-train-1", "job-uid"))
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	err := c.WaitAdmitted(ctx, queuedJob, "job-uid", "", 1)
	var notReady *NotReadyError
	if !errors.As(err, &notReady) || notReady.Mode != WaitAdmitted {
		t.Fatalf("want a NotReadyError for wait_for = admitted, got %v", err)
	}
}
