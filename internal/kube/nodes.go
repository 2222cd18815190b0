package kube

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/util/retry"
)

// ListNodes lists nodes matching a label selector.
func (c *Client) ListNodes(ctx context.Context, selector string) ([]corev1.Node, error) {
	list, err := c.Typed.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, c.explain(ObjectRef{GVK: corev1.SchemeGroupVersion.WithKind("Node")}, "list", err)
	}
	return list.Items, nil
}

// ApplyNodeMetadata server-side applies labels and annotations to a node
// under the given field manager. Applying an empty set later removes exactly
// what this manager set, and leaves labels another manager also owns (such
// as the ones the cloud put there first).
func (c *Client) ApplyNodeMetadata(ctx context.Context, node, manager string, labels, annotations map[string]string) error {
	body := corev1ac.Node(node)
	if len(labels) > 0 {
		body.WithLabels(labels)
	}
	if len(annotations) > 0 {
		body.WithAnnotations(annotations)
	}
	// Force only takes over the metadata keys listed; the manager is this
	// policy's own.
	_, err := c.Typed.CoreV1().Nodes().Apply(ctx, body, metav1.ApplyOptions{FieldManager: manager, Force: true})
	if err != nil {
		return c.explain(ObjectRef{GVK: corev1.SchemeGroupVersion.WithKind("Node"), Name: node}, "apply labels to", err)
	}
	return nil
}

// AddNodeTaints adds the taints a node lacks and returns those it added.
// Node taints are an atomic list, so server-side apply would take ownership
// of every taint on the node (the cloud's and kubelet's too); this reads,
// appends and updates with optimistic concurrency instead, as kubectl taint
// does.
//
// A node holds one taint per key and effect, so a taint the node already
// has with another value is an error that names both: replacing the value
// could turn away pods that tolerate exactly the old one, and keeping it
// would leave the pool without the taint its workloads tolerate.
func (c *Client) AddNodeTaints(ctx context.Context, node string, taints []corev1.Taint) ([]corev1.Taint, error) {
	var added []corev1.Taint
	err := c.updateNodeTaints(ctx, node, func(current []corev1.Taint) ([]corev1.Taint, error) {
		added = nil
		for _, t := range taints {
			if hasTaint(current, t) {
				continue
			}
			if i := slices.IndexFunc(current, func(x corev1.Taint) bool { return x.MatchTaint(&t) }); i >= 0 {
				return nil, &TaintClashError{Node: node, Has: current[i], Wants: t}
			}
			current = append(current, t)
			added = append(added, t)
		}
		return current, nil
	})
	return added, err
}

// TaintClashError: the node has a taint of the wanted key and effect with
// another value.
type TaintClashError struct {
	Node       string
	Has, Wants corev1.Taint
}

func (e *TaintClashError) Error() string {
	return fmt.Sprintf("node %s already has the taint %s, and the policy's taint %s has the same key and effect "+
		"(a node holds one taint per key and effect): the node likely belongs to another cloud's pool (check cloud "+
		"and manage_nodes.selector), or remove its taint first", e.Node, taintString(e.Has), taintString(e.Wants))
}

func taintString(t corev1.Taint) string {
	if t.Value == "" {
		return fmt.Sprintf("%s:%s", t.Key, t.Effect)
	}
	return fmt.Sprintf("%s=%s:%s", t.Key, t.Value, t.Effect)
}

// RemoveNodeTaints removes the given taints (matched by key, value and
// effect) and nothing else.
func (c *Client) RemoveNodeTaints(ctx context.Context, node string, taints []corev1.Taint) error {
	return c.updateNodeTaints(ctx, node, func(current []corev1.Taint) ([]corev1.Taint, error) {
		kept := current[:0]
		for _, t := range current {
			if !hasTaint(taints, t) {
				kept = append(kept, t)
			}
		}
		return kept, nil
	})
}

func (c *Client) updateNodeTaints(ctx context.Context, node string, change func([]corev1.Taint) ([]corev1.Taint, error)) error {
	ref := ObjectRef{GVK: corev1.SchemeGroupVersion.WithKind("Node"), Name: node}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n, err := c.Typed.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		if err != nil {
			return err
		}
		before := len(n.Spec.Taints)
		updated, err := change(append([]corev1.Taint(nil), n.Spec.Taints...))
		if err != nil {
			return err
		}
		if len(updated) == before && sameTaints(updated, n.Spec.Taints) {
			return nil
		}
		n.Spec.Taints = updated
		_, err = c.Typed.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{FieldManager: c.FieldManager})
		return err
	})
	var clash *TaintClashError
	if errors.As(err, &clash) {
		return err
	}
	if err != nil {
		return c.explain(ref, "update taints of", err)
	}
	return nil
}

func sameTaints(a, b []corev1.Taint) bool {
	if len(a) != len(b) {
		return false
	}
	for _, t := range a {
		if !hasTaint(b, t) {
			return false
		}
	}
	return true
}

// hasTaint reports whether the list holds the taint: the same key and
// effect (the slot a node holds one taint in, corev1.Taint.MatchTaint) and
// the same value. It is the identity render/capacity's SameTaint judges
// pools with; kube keeps its own copy so that it imports nothing of render.
func hasTaint(list []corev1.Taint, t corev1.Taint) bool {
	return slices.ContainsFunc(list, func(x corev1.Taint) bool { return x.MatchTaint(&t) && x.Value == t.Value })
}

// PoolFieldManager is the field manager of one node pool policy, so that
// policies sharing nodes never remove each other's labels.
func PoolFieldManager(base, policy string) string {
	m := fmt.Sprintf("%s/pool/%s", base, policy)
	if len(m) > 128 {
		m = m[:128]
	}
	return m
}

// GetNode reads a node; a missing node is (nil, nil).
func (c *Client) GetNode(ctx context.Context, name string) (*corev1.Node, error) {
	n, err := c.Typed.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, c.explain(ObjectRef{GVK: corev1.SchemeGroupVersion.WithKind("Node"), Name: name}, "get", err)
	}
	return n, nil
}

// MergeNodeLabels sets label values with a merge patch, used to put back
// values a policy had overwritten.
func (c *Client) MergeNodeLabels(ctx context.Context, node string, labels map[string]string) error {
	body, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": labels}})
	if err != nil {
		return err
	}
	_, err = c.Typed.CoreV1().Nodes().Patch(ctx, node, types.MergePatchType, body, metav1.PatchOptions{FieldManager: c.FieldManager})
	if err != nil {
		return c.explain(ObjectRef{GVK: corev1.SchemeGroupVersion.WithKind("Node"), Name: node}, "restore labels of", err)
	}
	return nil
}
