package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/render"
)

// addedTaintsAnnotation records, per policy, the taints the policy added to
// a node (as opposed to taints the node already had), so destroy removes
// exactly those.
func addedTaintsAnnotation(policy string) string { return "pools.gpu.gpuform.io/" + policy }

// poolNodeState is what a policy wants on its nodes.
type poolNodeState struct {
	policy   string
	manager  string
	labels   map[string]string
	taints   []corev1.Taint
	selector string
}

func newPoolNodeState(client *kube.Client, policy, selector string, p *render.PoolRendered) poolNodeState {
	labels := maps.Clone(p.CloudSetLabels)
	if labels == nil {
		labels = map[string]string{}
	}
	// On real clouds the cloud sets these itself and applying the same
	// values is harmless; on plain nodes (bare metal, tests) nobody else
	// would, and workloads select them.
	maps.Copy(labels, p.NodeLabels)
	return poolNodeState{
		policy: policy, manager: kube.PoolFieldManager(client.FieldManager, policy),
		labels: labels, taints: p.NodeTaints, selector: selector,
	}
}

// applyToNodes labels and taints every node matching the selector and
// cleans up nodes managed before that no longer match. It returns the
// managed node names, sorted.
func applyToNodes(ctx context.Context, client *kube.Client, want poolNodeState, priorManaged []string) ([]string, error) {
	nodes, err := client.ListNodes(ctx, want.selector)
	if err != nil {
		return nil, err
	}
	var managed []string
	for i := range nodes {
		if err := applyToNode(ctx, client, want, &nodes[i]); err != nil {
			return managed, err
		}
		managed = append(managed, nodes[i].Name)
	}
	for _, name := range priorManaged {
		if !slices.Contains(managed, name) {
			if err := cleanupNode(ctx, client, want.policy, want.manager, name); err != nil {
				return managed, err
			}
		}
	}
	sort.Strings(managed)
	return managed, nil
}

func applyToNode(ctx context.Context, client *kube.Client, want poolNodeState, node *corev1.Node) error {
	added, err := client.AddNodeTaints(ctx, node.Name, want.taints)
	if err != nil {
		return err
	}
	previously := recordedTaints(node, want.policy)
	var stale, record []corev1.Taint
	for _, t := range previously {
		if containsTaint(want.taints, t) {
			record = append(record, t)
		} else {
			stale = append(stale, t)
		}
	}
	record = append(record, added...)
	if len(stale) > 0 {
		if err := client.RemoveNodeTaints(ctx, node.Name, stale); err != nil {
			return err
		}
	}
	encoded, err := json.Marshal(record)
	if err != nil {
		return err
	}
	return client.ApplyNodeMetadata(ctx, node.Name, want.manager, want.labels,
		map[string]string{addedTaintsAnnotation(want.policy): string(encoded)})
}

// cleanupNode removes what the policy added to a node: its recorded taints,
// and (by applying nothing under its field manager) its labels and record.
func cleanupNode(ctx context.Context, client *kube.Client, policy, manager, name string) error {
	node, err := client.GetNode(ctx, name)
	if err != nil || node == nil {
		return err // a node that is gone needs no cleaning
	}
	if taints := recordedTaints(node, policy); len(taints) > 0 {
		if err := client.RemoveNodeTaints(ctx, name, taints); err != nil {
			return err
		}
	}
	return client.ApplyNodeMetadata(ctx, name, manager, nil, nil)
}

func recordedTaints(node *corev1.Node, policy string) []corev1.Taint {
	raw, ok := node.Annotations[addedTaintsAnnotation(policy)]
	if !ok {
		return nil
	}
	var taints []corev1.Taint
	if json.Unmarshal([]byte(raw), &taints) != nil {
		return nil
	}
	return taints
}

func containsTaint(list []corev1.Taint, t corev1.Taint) bool {
	for _, x := range list {
		if x.Key == t.Key && x.Value == t.Value && x.Effect == t.Effect {
			return true
		}
	}
	return false
}

// nodeDrift lists how the matching nodes differ from the policy, including
// nodes that match the selector but were never labelled.
func nodeDrift(ctx context.Context, client *kube.Client, want poolNodeState, managed []string) ([]string, error) {
	nodes, err := client.ListNodes(ctx, want.selector)
	if err != nil {
		return nil, err
	}
	var drift []string
	for i := range nodes {
		n := &nodes[i]
		if !slices.Contains(managed, n.Name) {
			drift = append(drift, fmt.Sprintf("node %s matches manage_nodes.selector but is not managed yet", n.Name))
			continue
		}
		for _, k := range kube.SortedKeys(want.labels) {
			if got, ok := n.Labels[k]; !ok || got != want.labels[k] {
				drift = append(drift, fmt.Sprintf("node %s: label %s is %q, want %q", n.Name, k, got, want.labels[k]))
			}
		}
		for _, t := range want.taints {
			if !containsTaint(n.Spec.Taints, t) {
				drift = append(drift, fmt.Sprintf("node %s: taint %s=%s:%s is missing", n.Name, t.Key, t.Value, t.Effect))
			}
		}
	}
	return drift, nil
}
