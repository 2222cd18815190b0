package kube

import (
	"context"

	"golang.org/x/sync/errgroup"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/gpuform/terraform-provider-gpu/internal/render/dra"
)

// DRAReaders take what DRAInputs reads, one object at a time.
type DRAReaders struct {
	Slice func(*resourcev1.ResourceSlice)
	// Claim gets every ResourceClaim, to keep their allocations.
	Claim func(*resourcev1.ResourceClaim)
	// TaintRule gets every DeviceTaintRule of resource.k8s.io/v1.
	TaintRule func(*resourcev1.DeviceTaintRule)
}

// DRAInputs reads what counting a DRA driver's devices needs: its
// ResourceSlices, every ResourceClaim in all namespaces and every
// DeviceTaintRule. They are read at the same time, page by page, like
// CapacityInputs; each reader is called from one goroutine, the three from
// different ones.
//
// A cluster that does not serve resource.k8s.io/v1 (before Kubernetes
// 1.34, or with the API turned off) has no devices to count, and one
// before 1.37 serves no DeviceTaintRule there (1.36 has them in v1beta2,
// off by default): neither is an error. Any other failure, a missing
// permission included, is: counts that silently leave out every device
// or taint would mislead.
func (c *Client) DRAInputs(ctx context.Context, driver string, read DRAReaders) error {
	eachSlice, eachClaim := read.Slice, read.Claim
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		err := eachPage(ctx, func(o metav1.ListOptions) (runtime.Object, error) {
			return c.Typed.ResourceV1().DeviceTaintRules().List(ctx, o)
		}, metav1.ListOptions{}, func(obj runtime.Object) {
			if r, ok := obj.(*resourcev1.DeviceTaintRule); ok {
				read.TaintRule(r)
			}
		})
		return c.draListError("DeviceTaintRule", err)
	})
	g.Go(func() error {
		opts := metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("spec.driver", driver).String()}
		err := eachPage(ctx, func(o metav1.ListOptions) (runtime.Object, error) {
			return c.Typed.ResourceV1().ResourceSlices().List(ctx, o)
		}, opts, func(obj runtime.Object) {
			if s, ok := obj.(*resourcev1.ResourceSlice); ok {
				eachSlice(s)
			}
		})
		return c.draListError("ResourceSlice", err)
	})
	g.Go(func() error {
		err := eachPage(ctx, func(o metav1.ListOptions) (runtime.Object, error) {
			return c.Typed.ResourceV1().ResourceClaims("").List(ctx, o)
		}, metav1.ListOptions{}, func(obj runtime.Object) {
			if claim, ok := obj.(*resourcev1.ResourceClaim); ok {
				eachClaim(claim)
			}
		})
		return c.draListError("ResourceClaim", err)
	})
	return g.Wait()
}

// DeviceClassSelectors returns each DeviceClass's CEL selectors by class
// name: what a claim naming the class adds to its own selectors.
func (c *Client) DeviceClassSelectors(ctx context.Context) (map[string][]string, error) {
	out := map[string][]string{}
	err := eachPage(ctx, func(o metav1.ListOptions) (runtime.Object, error) {
		return c.Typed.ResourceV1().DeviceClasses().List(ctx, o)
	}, metav1.ListOptions{}, func(obj runtime.Object) {
		class, ok := obj.(*resourcev1.DeviceClass)
		if !ok {
			return
		}
		selectors := []string{}
		for _, s := range class.Spec.Selectors {
			if s.CEL != nil {
				selectors = append(selectors, s.CEL.Expression)
			}
		}
		out[class.Name] = selectors
	})
	if err := c.draListError("DeviceClass", err); err != nil {
		return nil, err
	}
	return out, nil
}

// ClassesWithExtendedResource lists the DeviceClasses whose
// extendedResourceName is name, with their creation times: the scheduler
// serves a pod's request for name from the newest of them
// (dra.ExtendedResourceOwner).
func (c *Client) ClassesWithExtendedResource(ctx context.Context, name string) ([]dra.ClassRef, error) {
	var out []dra.ClassRef
	err := eachPage(ctx, func(o metav1.ListOptions) (runtime.Object, error) {
		return c.Typed.ResourceV1().DeviceClasses().List(ctx, o)
	}, metav1.ListOptions{}, func(obj runtime.Object) {
		class, ok := obj.(*resourcev1.DeviceClass)
		if ok && class.Spec.ExtendedResourceName != nil && *class.Spec.ExtendedResourceName == name {
			out = append(out, dra.ClassRef{Name: class.Name, Created: class.CreationTimestamp.Time})
		}
	})
	if err := c.draListError("DeviceClass", err); err != nil {
		return nil, err
	}
	return out, nil
}

// draListError explains a failed list of a resource.k8s.io/v1 kind; a
// server that does not serve the API (404) is no error.
func (c *Client) draListError(kind string, err error) error {
	if err == nil || apierrors.IsNotFound(err) {
		return nil
	}
	return c.explain(ObjectRef{GVK: resourcev1.SchemeGroupVersion.WithKind(kind)}, "list", err)
}
