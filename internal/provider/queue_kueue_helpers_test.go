package provider

import (
	"context"
	"slices"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

func resourceQuantity(s string) *resource.Quantity {
	q := resource.MustParse(s)
	return &q
}

func kueueResource(name string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: "kueue.x-k8s.io", Version: "v1beta2", Resource: name}
}

// kueueObjectExists reads a Kueue object straight from the API server.
func kueueObjectExists(t *testing.T, resourceName, ns, name string) bool {
	t.Helper()
	_, err := dynamicClient(t).Resource(kueueResource(resourceName)).Namespace(ns).Get(context.Background(), name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return false
	}
	if err != nil {
		t.Fatalf("reading %s %s/%s: %v", resourceName, ns, name, err)
	}
	return true
}

// assertKueueAdmitted waits until some Kueue Workload of the namespace is
// admitted to the ClusterQueue: proof the work went through Kueue.
func assertKueueAdmitted(t *testing.T, ns, clusterQueue string) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 250*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		list, err := dynamicClient(t).Resource(kueueResource("workloads")).Namespace(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, wl := range list.Items {
			cq, _, _ := unstructured.NestedString(wl.Object, "status", "admission", "clusterQueue")
			if cq == clusterQueue {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("no Kueue Workload in %s was admitted to ClusterQueue %s: %v", ns, clusterQueue, err)
	}
}

// waitClusterQueueAdmitted waits until the ClusterQueue's status counts
// that many admitted Workloads.
func waitClusterQueueAdmitted(t *testing.T, clusterQueue string, admitted int64) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 250*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		cq, err := dynamicClient(t).Resource(kueueResource("clusterqueues")).Get(ctx, clusterQueue, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		n, _, _ := unstructured.NestedInt64(cq.Object, "status", "admittedWorkloads")
		return n == admitted, nil
	})
	if err != nil {
		t.Fatalf("ClusterQueue %s does not count %d admitted Workloads: %v", clusterQueue, admitted, err)
	}
}

// waitNoKueueWorkloads waits until Kueue has removed the namespace's
// Workloads (their owners are gone).
func waitNoKueueWorkloads(t *testing.T, ns string) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 250*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		list, err := dynamicClient(t).Resource(kueueResource("workloads")).Namespace(ns).List(ctx, metav1.ListOptions{})
		return err == nil && len(list.Items) == 0, err
	})
	if err != nil {
		t.Fatalf("Kueue Workloads of %s are still there: %v", ns, err)
	}
}

// waitJobComplete waits for a Job's Complete condition.
func waitJobComplete(t *testing.T, ns, name string, timeout time.Duration) {
	t.Helper()
	cs := acctest.Client(t)
	err := wait.PollUntilContextTimeout(context.Background(), 250*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		job, err := cs.BatchV1().Jobs(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return slices.ContainsFunc(job.Status.Conditions, func(c batchv1.JobCondition) bool {
			return c.Type == batchv1.JobComplete && c.Status == "True"
		}), nil
	})
	if err != nil {
		t.Fatalf("Job %s/%s did not complete: %v", ns, name, err)
	}
}

// assertPodsOn waits until checkPodsOnPool holds: the selected pods exist
// and run on nodes whose names match pool (a Deployment's pod may be gated
// by Kueue a moment after the apply returns).
func assertPodsOn(t *testing.T, ns, selector, pool string) {
	t.Helper()
	var last error
	err := wait.PollUntilContextTimeout(context.Background(), 250*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		last = checkPodsOnPool(t, ns, selector, pool)(nil)
		return last == nil, nil
	})
	if err != nil {
		t.Fatalf("%v (%v)", last, err)
	}
}

// priorityClass creates a PriorityClass for one test and deletes it after.
func priorityClass(t *testing.T, name string, value int32) string {
	t.Helper()
	cs := acctest.Client(t)
	pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value}
	if _, err := cs.SchedulingV1().PriorityClasses().Create(context.Background(), pc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cs.SchedulingV1().PriorityClasses().Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting PriorityClass %s: %v", name, err)
		}
	})
	return name
}
