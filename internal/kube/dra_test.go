package kube

import (
	"context"
	"strings"
	"testing"

	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// DRAInputs hands over every slice, claim and DeviceTaintRule it lists; a
// server without resource.k8s.io/v1 has none (nor one without v1
// DeviceTaintRules, before 1.37), and a refused list is an error naming
// the kind.
func TestDRAInputs(t *testing.T) {
	objs := []runtime.Object{
		&resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: "s"}, Spec: resourcev1.ResourceSliceSpec{Driver: "gpu.nvidia.com"}},
		&resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "c1"}},
		&resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "b", Name: "c2"}},
		&resourcev1.DeviceTaintRule{ObjectMeta: metav1.ObjectMeta{Name: "r"}},
		&resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "gpu.nvidia.com"}, Spec: resourcev1.DeviceClassSpec{
			Selectors: []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{Expression: "true"}}}}},
		&resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "pool.gpu.gpuform.io"},
			Spec: resourcev1.DeviceClassSpec{ExtendedResourceName: ptrTo("nvidia.com/gpu")}},
		&resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "mig.gpu.gpuform.io"},
			Spec: resourcev1.DeviceClassSpec{ExtendedResourceName: ptrTo("nvidia.com/mig-1g.10gb")}},
	}
	cs := fake.NewClientset(objs...)
	c := healthyClient()
	c.Typed = cs
	var slices, claims, rules int
	counting := DRAReaders{Slice: func(*resourcev1.ResourceSlice) { slices++ }, Claim: func(*resourcev1.ResourceClaim) { claims++ },
		TaintRule: func(*resourcev1.DeviceTaintRule) { rules++ }}
	err := c.DRAInputs(context.Background(), "gpu.nvidia.com", counting)
	if err != nil || slices != 1 || claims != 2 || rules != 1 {
		t.Fatalf("slices %d claims %d rules %d err %v, want 1, 2, 1, nil", slices, claims, rules, err)
	}
	owners, err := c.ClassesWithExtendedResource(context.Background(), "nvidia.com/gpu")
	if err != nil || len(owners) != 1 || owners[0].Name != "pool.gpu.gpuform.io" {
		t.Fatalf("classes with nvidia.com/gpu %v err %v, want the pool's alone", owners, err)
	}
	classes, err := c.DeviceClassSelectors(context.Background())
	if err != nil || len(classes["gpu.nvidia.com"]) != 1 {
		t.Fatalf("classes %v err %v", classes, err)
	}

	ignoring := DRAReaders{Slice: func(*resourcev1.ResourceSlice) {}, Claim: func(*resourcev1.ResourceClaim) {},
		TaintRule: func(*resourcev1.DeviceTaintRule) {}}
	for _, resource := range []string{"devicetaintrules", "resourceslices"} {
		notServed := apierrors.NewNotFound(schema.GroupResource{Group: "resource.k8s.io", Resource: resource}, "")
		cs.PrependReactor("list", resource, func(k8stesting.Action) (bool, runtime.Object, error) { return true, nil, notServed })
		if err := c.DRAInputs(context.Background(), "gpu.nvidia.com", ignoring); err != nil {
			t.Fatalf("%s not served: %v", resource, err)
		}
	}
	forbidden := apierrors.NewForbidden(schema.GroupResource{Group: "resource.k8s.io", Resource: "resourceclaims"}, "", nil)
	cs.PrependReactor("list", "resourceclaims", func(k8stesting.Action) (bool, runtime.Object, error) { return true, nil, forbidden })
	err = c.DRAInputs(context.Background(), "gpu.nvidia.com", ignoring)
	if err == nil || !strings.Contains(err.Error(), "list ResourceClaims was forbidden") {
		t.Fatalf("forbidden: %v", err)
	}
}

func ptrTo[T any](v T) *T { return &v }
