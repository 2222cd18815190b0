package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/gpuform/terraform-provider-gpu/bench/spec"
)

// How the large-cluster scenario generates its nodes and pods: clones of
// the local cluster's GPU node fixtures, and pods bound to them.

// scaleSize is K and P for a BENCH_SCALE.
func scaleSize(scale float64) (nodes, pods int) {
	return int(math.Round(scaleNodesAtOne * scale)), int(math.Round(scalePodsAtOne * scale))
}

// fixtureNode is one GPU node of scripts/localcluster/fixtures.
type fixtureNode struct {
	File string // base name, e.g. aks.yaml
	Node corev1.Node
}

// loadFixtures reads every *.yaml in dir (sorted by name) and returns the
// nodes that advertise at least one NVIDIA extended resource; the CPU
// fixture and other documents are skipped.
func loadFixtures(dir string) ([]fixtureNode, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var out []fixtureNode
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		nodes, err := parseFixtureNodes(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		for _, n := range nodes {
			if len(gpuResources(&n)) > 0 {
				out = append(out, fixtureNode{File: filepath.Base(p), Node: n})
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no GPU node fixtures in %s", dir)
	}
	return out, nil
}

// parseFixtureNodes decodes the Node documents of a multi-document YAML file.
func parseFixtureNodes(data []byte) ([]corev1.Node, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []corev1.Node
	for {
		var n corev1.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if n.Kind == "Node" && n.Name != "" {
			out = append(out, n)
		}
	}
}

// resourceSlots is one extended resource of a node and how many units of
// it the node has allocatable.
type resourceSlots struct {
	Name  string
	Count int64
}

// gpuResources are the node's allocatable NVIDIA extended resources with a
// positive count, sorted by name.
func gpuResources(n *corev1.Node) []resourceSlots {
	var out []resourceSlots
	for name, q := range n.Status.Allocatable {
		if strings.HasPrefix(string(name), gpuResourcePrefix) && q.Value() > 0 {
			out = append(out, resourceSlots{Name: string(name), Count: q.Value()})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// scaleNodeName is the i-th scenario node, cloned from fixture f.
func scaleNodeName(id string, f fixtureNode, i int) string {
	return fmt.Sprintf("bench-%s-%s-%d", id, f.Node.Name, i)
}

// cloneNode is fixture f as a new node: its labels (hostname renamed),
// annotations, taints, capacity, allocatable and nodeInfo, plus the run's
// label, the run's NoSchedule taint (no other pod lands on it) and kwok's
// annotation. Addresses are left for kwok.
func cloneNode(f *corev1.Node, name, id string) *corev1.Node {
	labels := map[string]string{}
	for k, v := range f.Labels {
		labels[k] = v
	}
	labels["kubernetes.io/hostname"], labels[spec.LabelKey], labels[scaleLabel] = name, id, id
	annotations := map[string]string{}
	for k, v := range f.Annotations {
		annotations[k] = v
	}
	annotations["kwok.x-k8s.io/node"] = "fake"
	nodeSpec := *f.Spec.DeepCopy()
	nodeSpec.Taints = append(nodeSpec.Taints, corev1.Taint{Key: spec.LabelKey, Value: id, Effect: corev1.TaintEffectNoSchedule})
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, Annotations: annotations},
		Spec:       nodeSpec,
		Status: corev1.NodeStatus{
			Capacity:    f.Status.Capacity.DeepCopy(),
			Allocatable: f.Status.Allocatable.DeepCopy(),
			NodeInfo:    f.Status.NodeInfo,
		},
	}
}

// planNodes spreads k nodes round-robin over the fixtures.
func planNodes(id string, fixtures []fixtureNode, k int) []*corev1.Node {
	out := make([]*corev1.Node, k)
	for i := range out {
		f := fixtures[i%len(fixtures)]
		out[i] = cloneNode(&f.Node, scaleNodeName(id, f, i/len(fixtures)), id)
	}
	return out
}

// placement is one pod: the index of its node and the resource it asks
// one unit of.
type placement struct {
	Node     int
	Resource string
}

// spreadPods places p pods on the nodes, one unit of one GPU resource each,
// round-robin: each pass gives every node that still has a free unit (and
// room under its pods limit, when set) one pod, on its resource with the
// most units left (ties by name). Nodes with few GPUs fill up first; no node
// gets more than it advertises. It fails when p does not fit.
func spreadPods(nodes []*corev1.Node, p int) ([]placement, error) {
	free := make([][]resourceSlots, len(nodes))
	podsLeft := make([]int64, len(nodes))
	var total int64
	for i, n := range nodes {
		free[i] = gpuResources(n)
		var units int64
		for _, r := range free[i] {
			units += r.Count
		}
		podsLeft[i] = units
		if q, ok := n.Status.Allocatable[corev1.ResourcePods]; ok {
			podsLeft[i] = min(units, q.Value())
		}
		total += podsLeft[i]
	}
	if int64(p) > total {
		return nil, fmt.Errorf("%d pods do not fit: the %d nodes have %d GPU units (whole GPUs, MIG slices, shared replicas) for pods", p, len(nodes), total)
	}
	out := make([]placement, 0, p)
	for len(out) < p {
		for i := range nodes {
			if len(out) == p {
				break
			}
			if podsLeft[i] == 0 {
				continue
			}
			best := -1
			for j, r := range free[i] {
				if r.Count > 0 && (best < 0 || r.Count > free[i][best].Count) {
					best = j
				}
			}
			free[i][best].Count--
			podsLeft[i]--
			out = append(out, placement{Node: i, Resource: free[i][best].Name})
		}
	}
	return out, nil
}

// scalePod is a pod bound to node (spec.nodeName, so the scheduler is not
// involved) asking for one unit of res in requests and limits, tolerating
// every taint of the node (the run's included) and, for good, the node
// lifecycle controller's not-ready and unreachable taints.
func scalePod(namespace, name, id string, node *corev1.Node, res string) *corev1.Pod {
	one := resource.MustParse("1")
	tolerations := make([]corev1.Toleration, 0, len(node.Spec.Taints))
	for _, t := range node.Spec.Taints {
		tol := corev1.Toleration{Key: t.Key, Operator: corev1.TolerationOpEqual, Value: t.Value, Effect: t.Effect}
		if t.Value == "" {
			tol.Operator, tol.Value = corev1.TolerationOpExists, ""
		}
		tolerations = append(tolerations, tol)
	}
	// Stay bound if kwok falls behind with the nodes' Leases and the node
	// lifecycle controller marks them unreachable (instead of the default
	// 300 s tolerations, after which the pods would be evicted mid-run).
	for _, key := range []string{corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable} {
		tolerations = append(tolerations, corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute})
	}
	grace, automount := int64(0), false
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: map[string]string{spec.LabelKey: id}},
		Spec: corev1.PodSpec{
			NodeName:                      node.Name,
			Tolerations:                   tolerations,
			TerminationGracePeriodSeconds: &grace,
			AutomountServiceAccountToken:  &automount,
			Containers: []corev1.Container{{
				Name:  "cuda",
				Image: spec.Image,
				Resources: corev1.ResourceRequirements{
					Limits:   corev1.ResourceList{corev1.ResourceName(res): one},
					Requests: corev1.ResourceList{corev1.ResourceName(res): one},
				},
			}},
		},
	}
}
