package acctest

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// draDriver is NVIDIA's DRA driver, whose ResourceSlices the scheduler
// allocates GPUs from (docs/design/dra.md section 8).
const draDriver = "gpu.nvidia.com"

// CreateFakeDRANode creates one fake node as CreateFakeNodes does, named
// <prefix>-0 and advertising no extended GPU resource, and publishes
// devices for it as the driver's kubelet plugin would: one ResourceSlice of
// a pool named after the node, owned by the node (so the garbage collector
// removes it with the node). No kubelet plugin runs under kwok, so the test
// plays it. Both go when the test ends.
func CreateFakeDRANode(t testing.TB, prefix string, labels map[string]string, devices []resourcev1.Device, taints ...corev1.Taint) string {
	t.Helper()
	name := CreateFakeNodes(t, prefix, 1, nil, labels, taints...)[0]
	cs := Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	node, err := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("reading node %s: %v", name, err)
	}
	slice := &resourcev1.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{
			Name: "00000-" + draDriver + "-" + name,
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "v1", Kind: "Node", Name: name, UID: node.UID, Controller: ptr.To(true),
			}},
		},
		Spec: resourcev1.ResourceSliceSpec{
			Driver:   draDriver,
			NodeName: ptr.To(name),
			Pool:     resourcev1.ResourcePool{Name: name, Generation: 1, ResourceSliceCount: 1},
			Devices:  devices,
		},
	}
	if _, err := cs.ResourceV1().ResourceSlices().Create(ctx, slice, metav1.CreateOptions{}); err != nil {
		t.Fatalf("publishing the ResourceSlice of %s: %v", name, err)
	}
	// Registered after the node's cleanup, so it runs first: the slice
	// goes before the node that owns it.
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		err := cs.ResourceV1().ResourceSlices().Delete(ctx, slice.Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting ResourceSlice %s: %v", slice.Name, err)
		}
	})
	return name
}
