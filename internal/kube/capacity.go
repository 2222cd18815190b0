package kube

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/pager"
)

// listPageSize bounds one list response. Unpaginated lists of a cluster's
// pods are one response of hundreds of megabytes at tens of thousands of
// pods; pages of 500 keep the provider's memory flat and let the API
// server serve them from its watch cache.
const listPageSize = 500

// CapacityInputs lists the nodes matching selector and the pods that still
// hold resources, keeping of each only what the capacity summary reads
// (internal/render/capacity): node labels, taints, schedulability and
// resources; pod node, phase, container resources and overhead. Both are read page
// by page, so memory grows with what is kept, not with the objects' size.
func (c *Client) CapacityInputs(ctx context.Context, selector string) ([]corev1.Node, []corev1.Pod, error) {
	var nodes []corev1.Node
	err := eachPage(ctx, func(opts metav1.ListOptions) (runtime.Object, error) {
		return c.Typed.CoreV1().Nodes().List(ctx, opts)
	}, metav1.ListOptions{LabelSelector: selector}, func(obj runtime.Object) {
		if n, ok := obj.(*corev1.Node); ok {
			nodes = append(nodes, capacityNode(n))
		}
	})
	if err != nil {
		return nil, nil, c.explain(ObjectRef{GVK: corev1.SchemeGroupVersion.WithKind("Node")}, "list", err)
	}
	var pods []corev1.Pod
	err = eachPage(ctx, func(opts metav1.ListOptions) (runtime.Object, error) {
		return c.Typed.CoreV1().Pods("").List(ctx, opts)
	}, metav1.ListOptions{FieldSelector: "spec.nodeName!=,status.phase!=Succeeded,status.phase!=Failed"}, func(obj runtime.Object) {
		if p, ok := obj.(*corev1.Pod); ok {
			pods = append(pods, capacityPod(p))
		}
	})
	if err != nil {
		return nil, nil, c.explain(ObjectRef{GVK: corev1.SchemeGroupVersion.WithKind("Pod")}, "list", err)
	}
	return nodes, pods, nil
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

func capacityPod(p *corev1.Pod) corev1.Pod {
	out := corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace},
		Spec:       corev1.PodSpec{NodeName: p.Spec.NodeName, Overhead: p.Spec.Overhead},
		Status:     corev1.PodStatus{Phase: p.Status.Phase},
	}
	for _, c := range p.Spec.Containers {
		out.Spec.Containers = append(out.Spec.Containers, corev1.Container{Name: c.Name, Resources: c.Resources})
	}
	for _, c := range p.Spec.InitContainers {
		out.Spec.InitContainers = append(out.Spec.InitContainers, corev1.Container{Name: c.Name, Resources: c.Resources, RestartPolicy: c.RestartPolicy})
	}
	return out
}
