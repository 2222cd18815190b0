package kube

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
)

// Only a pod that runs an older revision and is not ready is recreated:
// ready pods are the rolling update's to replace, and a pod of the new
// revision that is not ready yet is what the wait is for.
func TestRecreateStuckPods(t *testing.T) {
	sts := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "StatefulSet",
		"metadata": map[string]any{"namespace": "ns", "name": "shard", "generation": int64(2)},
		"status":   map[string]any{"observedGeneration": int64(2), "updateRevision": "shard-new"},
	}}
	gvr := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "statefulsets"}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{gvr: "StatefulSetList"}, sts)
	pod := func(name, revision string, ready bool) *corev1.Pod {
		status := corev1.ConditionFalse
		if ready {
			status = corev1.ConditionTrue
		}
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name,
			Labels: map[string]string{"app": "shard", appsv1.ControllerRevisionHashLabelKey: revision}},
			Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}}}
	}
	typed := fake.NewClientset(pod("stuck-old", "shard-old", false), pod("ready-old", "shard-old", true),
		pod("starting-new", "shard-new", false))
	c := healthyClient()
	c.Dynamic, c.Typed = dyn, typed
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	target := WaitTarget{Ref: ObjectRef{GVK: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "StatefulSet"},
		Namespace: "ns", Name: "shard"}, Generation: 2}
	if err := c.RecreateStuckPods(ctx, target, "app=shard"); err != nil {
		t.Fatal(err)
	}
	left, err := typed.CoreV1().Pods("ns").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range left.Items {
		names = append(names, p.Name)
	}
	if len(names) != 2 || names[0] == "stuck-old" || names[1] == "stuck-old" {
		t.Fatalf("pods left %v, want ready-old and starting-new", names)
	}
}
