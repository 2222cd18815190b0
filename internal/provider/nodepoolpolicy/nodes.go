package nodepoolpolicy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"sync"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/render/capacity"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// poolRecordAnnotation records, per policy, what the policy changed on a
// node: the taints it added, the labels it applies, and the previous values
// of labels it overwrote. Destroy undoes exactly that.
func poolRecordAnnotation(policy string) string { return "pools.gpu.gpuform.io/" + policy }

type poolRecord struct {
	Taints  []corev1.Taint    `json:"taints,omitempty"`
	Labels  []string          `json:"labels,omitempty"`
	Restore map[string]string `json:"restore,omitempty"`
}

// poolNodeState is what a policy wants on its nodes.
type poolNodeState struct {
	policy   string
	manager  string
	selector string
	// cloudLabels are set by the cloud or the GPU Operator on real nodes:
	// added where missing (bare nodes), never overwritten.
	cloudLabels map[string]string
	// policyLabels must carry these values: overwritten if need be, and
	// restored on destroy.
	policyLabels map[string]string
	taints       []corev1.Taint
}

func newPoolNodeState(client *kube.Client, policy, selector string, p *spec.PoolRendered) poolNodeState {
	return poolNodeState{
		policy: policy, manager: kube.PoolFieldManager(client.FieldManager, policy), selector: selector,
		cloudLabels: p.CloudSetLabels, policyLabels: p.NodeLabels, taints: p.NodeTaints,
	}
}

// nodesInFlight bounds the nodes labelled, tainted or cleaned at once. Each
// node takes two to four requests, one after the other; done one node at a
// time, a 500-node pool took minutes (bench/README.md, manage_nodes). Nodes
// are independent objects, and a taint update that races the node's own
// status updates is retried on the conflict (kube.AddNodeTaints), so
// concurrency loses no change.
const nodesInFlight = 16

// applyToNodes labels and taints every node matching the selector and
// cleans up nodes managed before that no longer match. It returns the
// managed node names, sorted: on failure, those that were done, so the
// state records them and the next apply finishes the rest.
func applyToNodes(ctx context.Context, client *kube.Client, want poolNodeState, priorManaged []string) ([]string, error) {
	nodes, err := client.ListNodes(ctx, want.selector)
	if err != nil {
		return nil, err
	}
	managed, applyErr := forEachNode(nodes, func(n corev1.Node) (string, error) {
		return n.Name, applyToNode(ctx, client, want, &n)
	})
	var stale []string
	for _, name := range priorManaged {
		if !slices.Contains(managed, name) {
			stale = append(stale, name)
		}
	}
	_, cleanErr := forEachNode(stale, func(name string) (string, error) {
		return name, cleanupNode(ctx, client, want.policy, want.manager, name)
	})
	sort.Strings(managed)
	return managed, errors.Join(applyErr, cleanErr)
}

// forEachNode runs do for every item, nodesInFlight at a time, and returns
// the names done without error and the errors of the others (which name
// their node). A failure
// does not stop the other nodes: each is finished or left as it was.
func forEachNode[T any](items []T, do func(T) (string, error)) ([]string, error) {
	var (
		mu   sync.Mutex
		done []string
		errs []error
		g    errgroup.Group
	)
	g.SetLimit(nodesInFlight)
	for i := range items {
		g.Go(func() error {
			name, err := do(items[i])
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err) // the kube client's errors name the node
			} else {
				done = append(done, name)
			}
			return nil
		})
	}
	_ = g.Wait() // the goroutines report through errs
	return done, errors.Join(errs...)
}

func applyToNode(ctx context.Context, client *kube.Client, want poolNodeState, node *corev1.Node) error {
	rec := readRecord(node, want.policy)
	added, err := client.AddNodeTaints(ctx, node.Name, want.taints)
	if err != nil {
		return err
	}
	var stale []corev1.Taint
	kept := rec.Taints[:0:0]
	for _, t := range rec.Taints {
		if capacity.HasTaint(want.taints, t) {
			kept = append(kept, t)
		} else {
			stale = append(stale, t)
		}
	}
	rec.Taints = append(kept, added...)
	if len(stale) > 0 {
		if err := client.RemoveNodeTaints(ctx, node.Name, stale); err != nil {
			return err
		}
	}
	labels := labelsToApply(want, node, &rec)
	encoded, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return client.ApplyNodeMetadata(ctx, node.Name, want.manager, labels,
		map[string]string{poolRecordAnnotation(want.policy): string(encoded)})
}

// labelsToApply decides which labels this policy owns on the node, and
// remembers values it overwrites.
func labelsToApply(want poolNodeState, node *corev1.Node, rec *poolRecord) map[string]string {
	owned := map[string]bool{}
	for _, k := range rec.Labels {
		owned[k] = true
	}
	apply := map[string]string{}
	for k, v := range want.cloudLabels {
		if _, present := node.Labels[k]; owned[k] || !present {
			apply[k] = v
		}
	}
	if rec.Restore == nil {
		rec.Restore = map[string]string{}
	}
	for k, v := range want.policyLabels {
		old, present := node.Labels[k]
		switch {
		case owned[k] || !present:
			apply[k] = v
		case old != v:
			apply[k] = v
			rec.Restore[k] = old
		}
	}
	rec.Labels = slices.Sorted(maps.Keys(apply))
	return apply
}

// cleanupNode undoes what the policy changed on a node: removes its taints,
// drops its labels (by applying nothing under its field manager) and puts
// back label values it had overwritten.
func cleanupNode(ctx context.Context, client *kube.Client, policy, manager, name string) error {
	node, err := client.GetNode(ctx, name)
	if err != nil || node == nil {
		return err // a node that is gone needs no cleaning
	}
	rec := readRecord(node, policy)
	if len(rec.Taints) > 0 {
		if err := client.RemoveNodeTaints(ctx, name, rec.Taints); err != nil {
			return err
		}
	}
	if err := client.ApplyNodeMetadata(ctx, name, manager, nil, nil); err != nil {
		return err
	}
	if len(rec.Restore) > 0 {
		return client.MergeNodeLabels(ctx, name, rec.Restore)
	}
	return nil
}

func readRecord(node *corev1.Node, policy string) poolRecord {
	var rec poolRecord
	if raw, ok := node.Annotations[poolRecordAnnotation(policy)]; ok {
		_ = json.Unmarshal([]byte(raw), &rec) // an unreadable record is treated as empty
	}
	return rec
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
		rec := readRecord(n, want.policy)
		for _, k := range slices.Sorted(maps.Keys(want.policyLabels)) {
			if got, ok := n.Labels[k]; !ok || got != want.policyLabels[k] {
				drift = append(drift, fmt.Sprintf("node %s: label %s is %q, want %q", n.Name, k, got, want.policyLabels[k]))
			}
		}
		for _, k := range rec.Labels {
			if v, cloud := want.cloudLabels[k]; cloud && n.Labels[k] != v {
				drift = append(drift, fmt.Sprintf("node %s: label %s is %q, want %q", n.Name, k, n.Labels[k], v))
			}
		}
		for _, t := range want.taints {
			if !capacity.HasTaint(n.Spec.Taints, t) {
				drift = append(drift, fmt.Sprintf("node %s: taint %s=%s:%s is missing", n.Name, t.Key, t.Value, t.Effect))
			}
		}
	}
	return drift, nil
}
