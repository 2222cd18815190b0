package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// A ClusterQueue that stays Terminating with nothing left in it (Kueue's
// lost reconcile, docs/design/queues.md#deleting-queues) is touched until
// it goes: here a finalizer of the test's own holds the queue, and the
// test lets go of it only once the wait has written its annotation.
func TestAccWaitClusterQueueDeleted_touchesATerminatingQueue(t *testing.T) {
	acctest.PreCheck(t)
	c, _ := countingClient(t, acctest.Kubeconfig(t))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	name := "nudge-" + rand.String(6)
	const hold = "gpuform.io/test-hold"
	ref := ObjectRef{GVK: GVKClusterQueue, Name: name}
	queues, err := c.resourceFor(ref)
	if err != nil {
		t.Fatal(err)
	}
	cq := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": GVKClusterQueue.GroupVersion().String(), "kind": "ClusterQueue",
		"metadata": map[string]any{"name": name, "finalizers": []any{hold}},
		"spec":     map[string]any{"namespaceSelector": map[string]any{}},
	}}
	if _, err := queues.Create(ctx, cq, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { releaseHold(context.Background(), t, c, name) })
	if err := c.Delete(ctx, ref, ""); err != nil {
		t.Fatal(err)
	}
	released := make(chan error, 1)
	go func() { released <- releaseWhenTouched(ctx, c, name) }()
	if err := c.WaitClusterQueueDeleted(ctx, name); err != nil {
		t.Fatalf("the wait ended with %v", err)
	}
	if err := <-released; err != nil {
		t.Fatal(err)
	}
}

// releaseWhenTouched removes the test's finalizer once the queue carries
// the wait's annotation, and fails if it never does.
func releaseWhenTouched(ctx context.Context, c *Client, name string) error {
	ref := ObjectRef{GVK: GVKClusterQueue, Name: name}
	err := wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		live, err := c.GetFresh(ctx, ref)
		return live != nil && live.GetAnnotations()[AnnotationReleaseCheck] != "", err
	})
	if wait.Interrupted(err) {
		return fmt.Errorf("the wait never annotated ClusterQueue %s", name)
	}
	if err != nil {
		return err
	}
	return patchFinalizers(ctx, c, name)
}

func releaseHold(ctx context.Context, t *testing.T, c *Client, name string) {
	if err := patchFinalizers(ctx, c, name); err != nil {
		t.Logf("cleanup: %v", err)
	}
}

// patchFinalizers drops every finalizer but Kueue's, which Kueue removes
// itself from a queue with nothing in it.
func patchFinalizers(ctx context.Context, c *Client, name string) error {
	queues, err := c.resourceFor(ObjectRef{GVK: GVKClusterQueue, Name: name})
	if err != nil {
		return err
	}
	live, err := c.GetFresh(ctx, ObjectRef{GVK: GVKClusterQueue, Name: name})
	if err != nil || live == nil {
		return err
	}
	keep := []string{}
	for _, f := range live.GetFinalizers() {
		if f != "gpuform.io/test-hold" {
			keep = append(keep, f)
		}
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"finalizers": keep, "resourceVersion": live.GetResourceVersion(),
	}})
	if err != nil {
		return err
	}
	_, err = queues.Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
	return err
}
