package kube

import (
	"context"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/pager"
)

// listPageSize bounds one list response. Unpaginated lists of a cluster's
// pods are one response of hundreds of megabytes at tens of thousands of
// pods; pages keep the provider's memory flat and let the API server serve
// them from its watch cache. At 5,000 nodes and 20,000 pods, pages of 1,000
// made half the requests of pages of 500 in the same time, with the same
// peak memory (bench/README.md).
const listPageSize = 1000

// CapacityInputs lists the nodes matching selector, keeping of each only
// what the capacity summary reads (internal/render/capacity: labels,
// taints, schedulability and resources), and hands every pod that still
// holds resources to eachPod as it is read, so the caller keeps sums
// rather than pods (tens of thousands on a large cluster). Nodes and pods
// are read at the same time, each page by page: memory grows with what is
// kept, not with the objects' size. eachPod is called from one goroutine.
func (c *Client) CapacityInputs(ctx context.Context, selector string, eachPod func(*corev1.Pod)) ([]corev1.Node, error) {
	var nodes []corev1.Node
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		err := eachPage(ctx, func(opts metav1.ListOptions) (runtime.Object, error) {
			return c.Typed.CoreV1().Nodes().List(ctx, opts)
		}, metav1.ListOptions{LabelSelector: selector}, func(obj runtime.Object) {
			if n, ok := obj.(*corev1.Node); ok {
				nodes = append(nodes, capacityNode(n))
			}
		})
		if err != nil {
			return c.explain(ObjectRef{GVK: corev1.SchemeGroupVersion.WithKind("Node")}, "list", err)
		}
		return nil
	})
	g.Go(func() error {
		err := eachPage(ctx, func(opts metav1.ListOptions) (runtime.Object, error) {
			return c.Typed.CoreV1().Pods("").List(ctx, opts)
		}, metav1.ListOptions{FieldSelector: "spec.nodeName!=,status.phase!=Succeeded,status.phase!=Failed"}, func(obj runtime.Object) {
			if p, ok := obj.(*corev1.Pod); ok {
				eachPod(p)
			}
		})
		if err != nil {
			return c.explain(ObjectRef{GVK: corev1.SchemeGroupVersion.WithKind("Pod")}, "list", err)
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return nodes, nil
}

// eachPage lists with client-go's pager, which falls back to one full list
// when the server expires the continue token mid-way.
func eachPage(ctx context.Context, list func(metav1.ListOptions) (runtime.Object, error), opts metav1.ListOptions, each func(runtime.Object)) error {
	p := pager.New(pager.SimplePageFunc(list))
	p.PageSize = listPageSize
	return p.EachListItem(ctx, opts, func(obj runtime.Object) error {
		each(obj)
		return nil
	})
}

func capacityNode(n *corev1.Node) corev1.Node {
	return corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: n.Name, Labels: n.Labels},
		Spec:       corev1.NodeSpec{Taints: n.Spec.Taints, Unschedulable: n.Spec.Unschedulable},
		Status:     corev1.NodeStatus{Capacity: n.Status.Capacity, Allocatable: n.Status.Allocatable},
	}
}
