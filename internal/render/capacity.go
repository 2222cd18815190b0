package render

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// PoolCapacity is one group of alike GPU nodes found in a live cluster: a
// cloud node pool (GKE node pool, AKS agent pool, EKS node group, Karpenter
// or EKS Auto Mode NodePool) or, on generic clusters, nodes with the same
// GPU model and GPU Operator configuration.
type PoolCapacity struct {
	// Key is stable across calls: "<cloud>/<pool name>", or for generic
	// clusters "generic/<GFD product>[/mig-<layout>][/<sharing>-<replicas>]",
	// falling back to "instance-type/<type>" and "node/<name>".
	Key string `json:"key"`
	// Cloud is a best guess from node labels ("" when nothing says). GKE
	// node pools auto-provisioned by NAP look like Autopilot's and are
	// reported as gke-autopilot.
	Cloud string `json:"cloud,omitempty"`
	// Accelerator is the catalog id, "" when the model is not in the catalog.
	Accelerator string `json:"accelerator,omitempty"`
	// Product is the label value that identified the model (gke-accelerator,
	// instance-gpu-name, GFD product, VM size or instance type).
	Product string `json:"product,omitempty"`

	// Resources are totals over the nodes, sorted by name.
	Resources []ResourceCapacity `json:"resources,omitempty"`

	// MIG and sharing state, from labels every node of the pool carries.
	MIGPartition  string `json:"mig_partition,omitempty"` // GKE gke-gpu-partition-size
	MIGConfig     string `json:"mig_config,omitempty"`    // nvidia.com/mig.config
	MIGStrategy   string `json:"mig_strategy,omitempty"`  // single or mixed
	Sharing       string `json:"sharing,omitempty"`       // time-slicing or mps
	SharedClients int64  `json:"shared_clients,omitempty"`

	// Taints are the distinct taints of the nodes, sorted.
	Taints []corev1.Taint `json:"taints,omitempty"`
	// Nodes are the pool's nodes sorted by name, with what MatchingPools
	// needs to judge each one.
	Nodes []NodeCapacity `json:"nodes"`
}

// NodeCapacity is one GPU node of a pool.
type NodeCapacity struct {
	Name          string             `json:"name"`
	Labels        map[string]string  `json:"labels,omitempty"`
	Taints        []corev1.Taint     `json:"taints,omitempty"`
	Unschedulable bool               `json:"unschedulable,omitempty"`
	Resources     []ResourceCapacity `json:"resources,omitempty"`
}

// ResourceCapacity is one GPU-ish extended resource (nvidia.com/gpu,
// nvidia.com/gpu.shared, nvidia.com/mig-*). Requested sums the requests of
// the pods bound to the node(s) that have not terminated.
type ResourceCapacity struct {
	Name        string `json:"name"`
	Capacity    int64  `json:"capacity"`
	Allocatable int64  `json:"allocatable"`
	Requested   int64  `json:"requested"`
}

// Free is what is left to request (never negative: a node can be
// overcommitted briefly after its allocatable shrinks).
func (r ResourceCapacity) Free() int64 { return max(r.Allocatable-r.Requested, 0) }

// isGPUResource: the NVIDIA device plugin's resources. AMD, Neuron and
// Gaudi devices are out of scope for this provider.
func isGPUResource(name corev1.ResourceName) bool {
	s := string(name)
	return s == string(ResourceNvidiaGPU) || strings.HasPrefix(s, string(ResourceNvidiaGPU)+".") ||
		strings.HasPrefix(s, "nvidia.com/mig-")
}

// SummarizeCapacity groups the GPU nodes into pools and totals their GPU
// capacity, allocatable and requests. Nodes without GPU resources or GPU
// labels are left out; a GPU-labelled node whose device plugin has not
// advertised anything yet is kept (with zero resources), because that is
// often why a GPU pod is pending. Pools are sorted by Key.
func SummarizeCapacity(nodes []corev1.Node, pods []corev1.Pod) []PoolCapacity {
	requested := requestsByNode(pods)
	groups := map[string]*PoolCapacity{}
	for i := range nodes {
		n := &nodes[i]
		if !isGPUNode(n) {
			continue
		}
		c := classifyNode(n)
		pool := groups[c.key]
		if pool == nil {
			pool = &PoolCapacity{Key: c.key, Cloud: string(c.cloud), Product: c.product}
			if c.accel != nil {
				pool.Accelerator = c.accel.Name
			}
			groups[c.key] = pool
		}
		pool.Nodes = append(pool.Nodes, nodeCapacity(n, requested[n.Name]))
	}
	out := make([]PoolCapacity, 0, len(groups))
	for _, key := range slices.Sorted(maps.Keys(groups)) {
		pool := groups[key]
		finishPool(pool)
		out = append(out, *pool)
	}
	return out
}

func isGPUNode(n *corev1.Node) bool {
	for _, list := range []corev1.ResourceList{n.Status.Capacity, n.Status.Allocatable} {
		for name, q := range list {
			if isGPUResource(name) && q.Value() > 0 {
				return true
			}
		}
	}
	for _, e := range cloudOrder {
		if e.profile.marksGPUNode(n.Labels) {
			return true
		}
	}
	return false
}

func positive(s string) bool {
	n, err := strconv.ParseInt(s, 10, 64)
	return err == nil && n > 0
}

func nodeCapacity(n *corev1.Node, requested map[corev1.ResourceName]int64) NodeCapacity {
	nc := NodeCapacity{
		Name:          n.Name,
		Labels:        maps.Clone(n.Labels),
		Taints:        slices.Clone(n.Spec.Taints),
		Unschedulable: n.Spec.Unschedulable,
	}
	names := map[corev1.ResourceName]bool{}
	for _, list := range []corev1.ResourceList{n.Status.Capacity, n.Status.Allocatable} {
		for name := range list {
			if isGPUResource(name) {
				names[name] = true
			}
		}
	}
	for name := range requested {
		names[name] = true // requestsByNode only keeps GPU resources
	}
	for _, name := range slices.Sorted(maps.Keys(names)) {
		nc.Resources = append(nc.Resources, ResourceCapacity{
			Name:        string(name),
			Capacity:    quantityValue(n.Status.Capacity, name),
			Allocatable: quantityValue(n.Status.Allocatable, name),
			Requested:   requested[name],
		})
	}
	return nc
}

func quantityValue(list corev1.ResourceList, name corev1.ResourceName) int64 {
	q, ok := list[name]
	if !ok {
		return 0
	}
	return max(q.Value(), 0)
}

// finishPool sorts nodes, totals resources, and reads MIG/sharing state
// and taints from the nodes.
func finishPool(pool *PoolCapacity) {
	slices.SortStableFunc(pool.Nodes, func(a, b NodeCapacity) int { return cmp.Compare(a.Name, b.Name) })
	totals := map[string]*ResourceCapacity{}
	for _, n := range pool.Nodes {
		for _, r := range n.Resources {
			t := totals[r.Name]
			if t == nil {
				t = &ResourceCapacity{Name: r.Name}
				totals[r.Name] = t
			}
			t.Capacity = addSat(t.Capacity, r.Capacity)
			t.Allocatable = addSat(t.Allocatable, r.Allocatable)
			t.Requested = addSat(t.Requested, r.Requested)
		}
		for _, taint := range n.Taints {
			if !HasTaint(pool.Taints, taint) {
				pool.Taints = append(pool.Taints, corev1.Taint{Key: taint.Key, Value: taint.Value, Effect: taint.Effect})
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(totals)) {
		pool.Resources = append(pool.Resources, *totals[name])
	}
	slices.SortFunc(pool.Taints, func(a, b corev1.Taint) int {
		return cmp.Or(cmp.Compare(a.Key, b.Key), cmp.Compare(a.Value, b.Value), cmp.Compare(a.Effect, b.Effect))
	})
	readPoolState(pool, commonLabels(pool.Nodes))
}

// SameTaint is the provider's one taint identity: key, value and effect
// (a taint's TimeAdded is when, not what). Node pools, capacity and node
// updates all compare taints with it.
func SameTaint(a, b corev1.Taint) bool {
	return a.Key == b.Key && a.Value == b.Value && a.Effect == b.Effect
}

// HasTaint reports whether list holds a taint the same as t.
func HasTaint(list []corev1.Taint, t corev1.Taint) bool {
	return slices.ContainsFunc(list, func(x corev1.Taint) bool { return SameTaint(x, t) })
}

// commonLabels are the labels every node carries with the same value.
func commonLabels(nodes []NodeCapacity) map[string]string {
	if len(nodes) == 0 {
		return nil
	}
	common := maps.Clone(nodes[0].Labels)
	for _, n := range nodes[1:] {
		maps.DeleteFunc(common, func(k, v string) bool { return n.Labels[k] != v })
	}
	return common
}

// readPoolState reads the GPU Operator's MIG and sharing labels, then
// each cloud's own (GKE's win where a node carries both).
func readPoolState(pool *PoolCapacity, l map[string]string) {
	if cfg := l[LabelMIGConfig]; cfg != MIGConfigDisabled {
		pool.MIGConfig = cfg
	}
	pool.MIGStrategy = l["nvidia.com/mig.strategy"]
	if pool.MIGStrategy == "" && slices.ContainsFunc(pool.Resources, func(r ResourceCapacity) bool {
		return strings.HasPrefix(r.Name, "nvidia.com/mig-")
	}) {
		pool.MIGStrategy = MIGStrategyMixed
	}
	if s := l[labelSharingStrategy]; s != "" && s != "none" {
		pool.Sharing = s
		pool.SharedClients = parseCount(l[labelGPUReplicas])
	}
	for _, e := range cloudOrder {
		e.profile.readPoolState(l, pool)
	}
}

func parseCount(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}
