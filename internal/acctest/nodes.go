package acctest

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FakeNodeLabel marks the nodes one test created, so selectors can pick
// exactly them.
const FakeNodeLabel = "gpuform.io/test-nodes"

// CreateFakeNodes creates count plain nodes named <prefix>-<i>, played by
// kwok (annotation kwok.x-k8s.io/node=fake), labelled FakeNodeLabel=prefix
// plus labels, and advertising the given extended resources next to a large
// machine's CPU and memory, with the given taints from the start. It waits
// until they are Ready and deletes them when the test ends.
func CreateFakeNodes(t testing.TB, prefix string, count int, resources map[string]int64, labels map[string]string, taints ...corev1.Taint) []string {
	t.Helper()
	cs := Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	names := make([]string, count)
	for i := range names {
		names[i] = fmt.Sprintf("%s-%d", prefix, i)
		node := fakeNode(names[i], prefix, resources)
		node.Spec.Taints = taints
		for k, v := range labels {
			node.Labels[k] = v
		}
		if _, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating node %s: %v", names[i], err)
		}
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for _, n := range names {
			if err := cs.CoreV1().Nodes().Delete(ctx, n, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("deleting node %s: %v", n, err)
			}
		}
	})
	for _, n := range names {
		waitNodeReady(ctx, t, n)
	}
	return names
}

func fakeNode(name, prefix string, resources map[string]int64) *corev1.Node {
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("96"),
		corev1.ResourceMemory: resource.MustParse("680Gi"),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
	for k, v := range resources {
		capacity[corev1.ResourceName(k)] = *resource.NewQuantity(v, resource.DecimalSI)
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"},
			Labels: map[string]string{
				"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
				// Set up front: kwok adds them otherwise, racing with snapshots.
				"beta.kubernetes.io/os": "linux", "beta.kubernetes.io/arch": "amd64",
				FakeNodeLabel: prefix,
			},
		},
		Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity},
	}
}

func waitNodeReady(ctx context.Context, t testing.TB, name string) {
	t.Helper()
	cs := Client(t)
	for {
		n, err := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err == nil && nodeReady(n) && !hasNotReadyTaint(n) {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("node %s did not become Ready (is kwok running?): %v", name, err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// hasNotReadyTaint: the node lifecycle controller taints new nodes until it
// sees them Ready; the scheduler would refuse pods until it is gone.
func hasNotReadyTaint(n *corev1.Node) bool {
	for _, t := range n.Spec.Taints {
		if t.Key == corev1.TaintNodeNotReady {
			return true
		}
	}
	return false
}

// NodeSnapshot is a node's labels and taints, to compare before and after.
type NodeSnapshot struct {
	Labels map[string]string
	Taints []corev1.Taint
}

// SnapshotNodes reads the labels and taints of the named nodes.
func SnapshotNodes(t testing.TB, names []string) map[string]NodeSnapshot {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out := map[string]NodeSnapshot{}
	for _, name := range names {
		n, err := Client(t).CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("reading node %s: %v", name, err)
		}
		out[name] = NodeSnapshot{Labels: n.Labels, Taints: n.Spec.Taints}
	}
	return out
}
