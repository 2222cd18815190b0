package capacity

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// PoolMatch says whether a pod with a given placement could land on a pool
// now, and if not, why: the answer to "why is my GPU pod pending".
type PoolMatch struct {
	Pool string `json:"pool"` // PoolCapacity.Key
	// Fits: some node admits the placement (node selector, required node
	// affinity, NoSchedule/NoExecute taints, cordon) and has a free unit of
	// the resource.
	Fits bool `json:"fits"`
	// PlacementNodes admit the placement, whatever their free resources;
	// FreeNodes of those also have a free unit; MaxFree is the most free
	// units on one of them (a pod cannot span nodes, so a request for more
	// than MaxFree waits even when Fits).
	PlacementNodes int   `json:"placement_nodes"`
	FreeNodes      int   `json:"free_nodes"`
	MaxFree        int64 `json:"max_free"`
	// Reasons are set when the pod does not fit: each distinct reason with
	// how many of the pool's nodes it applies to, most common first, e.g.
	// "2/2 nodes: taint sku=gpu:NoSchedule not tolerated".
	Reasons []string `json:"reasons,omitempty"`
	// DRA is set for a pool of DRA nodes judged for a claim
	// (MatchingDRAPools): how its devices meet each way the claim's request
	// can be met.
	DRA []DRAMatch `json:"dra,omitempty"`
}

// MatchingPools judges every pool (in the given order) for a pod with this
// placement requesting resource ("" skips the resource check). It follows
// the scheduler's rules for nodeSelector, requiredDuringScheduling node
// affinity, taints and tolerations, and cordoned nodes; preferred terms,
// pod (anti-)affinity, topology spread and CPU/memory are not considered.
func MatchingPools(pools []spec.PoolCapacity, nodeSelector map[string]string, affinity *corev1.Affinity,
	tolerations []corev1.Toleration, resource string) []PoolMatch {
	out := make([]PoolMatch, 0, len(pools))
	for i := range pools {
		out = append(out, matchPool(&pools[i], nodeSelector, affinity, tolerations, resource))
	}
	return out
}

func matchPool(pool *spec.PoolCapacity, nodeSelector map[string]string, affinity *corev1.Affinity,
	tolerations []corev1.Toleration, resource string) PoolMatch {
	m := PoolMatch{Pool: pool.Key}
	counts := map[string]int{}
	for i := range pool.Nodes {
		n := &pool.Nodes[i]
		reasons := placementMismatches(n, nodeSelector, affinity, tolerations)
		if len(reasons) == 0 {
			m.PlacementNodes++
			free, why := nodeFree(n, resource)
			m.MaxFree = max(m.MaxFree, free)
			if why == "" {
				m.FreeNodes++
				m.Fits = true
			} else {
				reasons = append(reasons, why)
			}
		}
		for _, r := range reasons {
			counts[r]++
		}
	}
	if !m.Fits {
		m.Reasons = formatReasons(counts, len(pool.Nodes))
	}
	return m
}

// nodeFree is the free amount of resource on n and, when none is free,
// why.
func nodeFree(n *spec.NodeCapacity, resource string) (int64, string) {
	if resource == "" {
		return 0, ""
	}
	i := slices.IndexFunc(n.Resources, func(r spec.ResourceCapacity) bool { return r.Name == resource })
	switch {
	case (i < 0 || n.Resources[i].Allocatable == 0) && len(n.DRADevices) > 0:
		return 0, "node advertises no " + resource + ": its GPUs are DRA devices, which only a claim gets"
	case i < 0 || n.Resources[i].Allocatable == 0:
		return 0, "node advertises no " + resource
	}
	r := n.Resources[i]
	if r.Free() == 0 {
		return 0, "all " + strconv.FormatInt(r.Allocatable, 10) + " " + resource + " requested by other pods"
	}
	return r.Free(), ""
}

func formatReasons(counts map[string]int, nodes int) []string {
	if nodes == 0 {
		return []string{"pool has no nodes"}
	}
	reasons := slices.Collect(maps.Keys(counts))
	slices.SortFunc(reasons, func(a, b string) int { return cmp.Or(cmp.Compare(counts[b], counts[a]), cmp.Compare(a, b)) })
	out := make([]string, len(reasons))
	for i, r := range reasons {
		out[i] = strconv.Itoa(counts[r]) + "/" + strconv.Itoa(nodes) + " nodes: " + r
	}
	return out
}

// placementMismatches lists why a pod with this placement cannot land on n
// (empty: it can). Reasons never name the node, so they aggregate.
func placementMismatches(n *spec.NodeCapacity, nodeSelector map[string]string, affinity *corev1.Affinity,
	tolerations []corev1.Toleration) []string {
	var reasons []string
	for _, key := range slices.Sorted(maps.Keys(nodeSelector)) {
		want := nodeSelector[key]
		if got, ok := n.Labels[key]; !ok {
			reasons = append(reasons, "node selector "+key+"="+want+": node has no "+key+" label")
		} else if got != want {
			reasons = append(reasons, "node selector "+key+"="+want+": node has "+key+"="+got)
		}
	}
	if why := affinityMismatch(n, affinity); why != "" {
		reasons = append(reasons, why)
	}
	for _, t := range n.Taints {
		if t.Effect == corev1.TaintEffectPreferNoSchedule {
			continue // only lowers the score
		}
		if !slices.ContainsFunc(tolerations, func(tol corev1.Toleration) bool { return toleratesTaint(tol, t) }) {
			reasons = append(reasons, "taint "+clouds.KubectlTaint(t)+" not tolerated")
		}
	}
	if n.Unschedulable && !slices.ContainsFunc(tolerations, func(tol corev1.Toleration) bool {
		return toleratesTaint(tol, corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule})
	}) {
		reasons = append(reasons, "node is cordoned (spec.unschedulable)")
	}
	return reasons
}

// tolerates is the Kubernetes rule (core/v1 Toleration.ToleratesTaint): an
// empty effect matches every effect, an empty key with Exists every key.
func toleratesTaint(tol corev1.Toleration, t corev1.Taint) bool {
	if tol.Effect != "" && tol.Effect != t.Effect {
		return false
	}
	if tol.Key != "" && tol.Key != t.Key {
		return false
	}
	switch tol.Operator {
	case corev1.TolerationOpExists:
		return true
	case corev1.TolerationOpEqual, "":
		return tol.Key != "" && tol.Value == t.Value
	}
	return false
}

// affinityMismatch checks requiredDuringSchedulingIgnoredDuringExecution:
// terms are ORed, the requirements of a term ANDed; an empty term matches
// nothing. It returns "" when some term matches.
func affinityMismatch(n *spec.NodeCapacity, affinity *corev1.Affinity) string {
	if affinity == nil || affinity.NodeAffinity == nil || affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return ""
	}
	terms := affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	var failures []string
	for _, term := range terms {
		why := termMismatch(n, term)
		if why == "" {
			return ""
		}
		failures = append(failures, why)
	}
	if len(failures) == 0 {
		return "required node affinity has no terms (matches no node)"
	}
	return "required node affinity: " + strings.Join(failures, " | ")
}

// termMismatch returns the first requirement of term n fails ("" if none).
func termMismatch(n *spec.NodeCapacity, term corev1.NodeSelectorTerm) string {
	if len(term.MatchExpressions) == 0 && len(term.MatchFields) == 0 {
		return "empty term"
	}
	for _, r := range term.MatchExpressions {
		value, has := n.Labels[r.Key]
		if !requirementMatches(r, value, has) {
			return describeRequirement(r) + ", node has " + describeLabel(r.Key, value, has)
		}
	}
	for _, r := range term.MatchFields {
		// metadata.name is the only field Kubernetes supports here.
		if r.Key != "metadata.name" || !requirementMatches(r, n.Name, true) {
			return "field " + describeRequirement(r)
		}
	}
	return ""
}

func requirementMatches(r corev1.NodeSelectorRequirement, value string, has bool) bool {
	switch r.Operator {
	case corev1.NodeSelectorOpIn:
		return has && slices.Contains(r.Values, value)
	case corev1.NodeSelectorOpNotIn:
		return !has || !slices.Contains(r.Values, value)
	case corev1.NodeSelectorOpExists:
		return has
	case corev1.NodeSelectorOpDoesNotExist:
		return !has
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if !has || len(r.Values) != 1 {
			return false
		}
		got, err1 := strconv.ParseInt(value, 10, 64)
		bound, err2 := strconv.ParseInt(r.Values[0], 10, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		if r.Operator == corev1.NodeSelectorOpGt {
			return got > bound
		}
		return got < bound
	}
	return false
}

func describeRequirement(r corev1.NodeSelectorRequirement) string {
	switch r.Operator {
	case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
		return r.Key + " " + string(r.Operator)
	}
	return r.Key + " " + string(r.Operator) + " (" + strings.Join(r.Values, ", ") + ")"
}

func describeLabel(key, value string, has bool) string {
	if !has {
		return "no " + key + " label"
	}
	return key + "=" + value
}
