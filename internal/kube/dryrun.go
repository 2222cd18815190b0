package kube

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// dryRunPrefix names the object a defaulting dry run creates, so that an
// audit log reader can tell what it was.
const dryRunPrefix = "gpu-defaults-"

// DefaultedByServer returns obj as the API server would store it, with its
// defaults and mutating admission applied, without storing anything: a
// dry-run create under a generated name, so the object of the same name
// (the one being adopted) does not get in the way. The result carries the
// generated name.
func (c *Client) DefaultedByServer(ctx context.Context, obj runtime.Object) (*unstructured.Unstructured, error) {
	ref, err := RefOf(obj)
	if err != nil {
		return nil, err
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: content}
	u.SetName("")
	u.SetGenerateName(dryRunPrefix)
	ri, err := c.resourceFor(ref)
	if err != nil {
		return nil, err
	}
	created, err := ri.Create(ctx, u, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldManager: c.FieldManager})
	if err != nil {
		return nil, c.explain(ref, "create (dry run)", err)
	}
	return created, nil
}
