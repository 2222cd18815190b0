package capacity

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// isGPUResource: the NVIDIA device plugin's resources. AMD, Neuron and
// Gaudi devices are out of scope for this provider.
func isGPUResource(name corev1.ResourceName) bool {
	s := string(name)
	return s == string(clouds.ResourceNvidiaGPU) || strings.HasPrefix(s, string(clouds.ResourceNvidiaGPU)+".") ||
		strings.HasPrefix(s, "nvidia.com/mig-")
}

// Summarize groups the GPU nodes into pools and totals their GPU
// capacity, allocatable and requests. Nodes without GPU resources or GPU
// labels are left out; a GPU-labelled node whose device plugin has not
// advertised anything yet is kept (with zero resources), because that is
// often why a GPU pod is pending. Pools are sorted by Key.
func Summarize(nodes []corev1.Node, pods []corev1.Pod) []spec.PoolCapacity {
	return SummarizeRequests(nodes, requestsByNode(pods))
}

// SummarizeRequests is Summarize with the pods' requests already added up
// per node (Requests.Add).
func SummarizeRequests(nodes []corev1.Node, requested Requests) []spec.PoolCapacity {
	return SummarizeDRA(nodes, requested, nil)
}

// SummarizeDRA is SummarizeRequests with the DRA driver's devices: nodes
// publishing its ResourceSlices form pools of their own (key suffix
// "/dra"), with their devices counted by product, type and MIG profile.
//
// A node is a DRA node when it publishes at least one ResourceSlice of the
// driver, whatever its labels and resources. The slices are the driver's
// own statement that its kubelet plugin serves the node's GPUs. Labels are
// not: the GPU Operator's nvidia.com/gpu.deploy.device-plugin=false is one
// install's convention (GKE and EKS DRA pools say it otherwise or not at
// all), and GPU Feature Discovery labels DRA nodes exactly as device plugin
// nodes (docs/design/dra.md section 8). Nor is a missing nvidia.com/gpu:
// a device plugin node whose plugin has not started yet has none either,
// and must stay in its pool, where the missing GPUs explain a Pending pod.
func SummarizeDRA(nodes []corev1.Node, requested Requests, draInputs *DRAInputs) []spec.PoolCapacity {
	devices := draInputs.byNode()
	groups := map[string]*spec.PoolCapacity{}
	for i := range nodes {
		n := &nodes[i]
		nodeDevices, isDRA := devices[n.Name]
		if !isDRA && !isGPUNode(n) {
			continue
		}
		c := classifyNode(n)
		if isDRA {
			c.Key += draKeySuffix
		}
		pool := groups[c.Key]
		if pool == nil {
			pool = &spec.PoolCapacity{Key: c.Key, Cloud: string(c.Cloud), Product: c.Product}
			if c.Accel != nil {
				pool.Accelerator = c.Accel.Name
			}
			if isDRA {
				pool.DRADriver = DRADriver
			}
			groups[c.Key] = pool
		}
		nc := nodeCapacity(n, requested[n.Name])
		nc.DRADevices = countDevices(nodeDevices)
		pool.Nodes = append(pool.Nodes, nc)
	}
	out := make([]spec.PoolCapacity, 0, len(groups))
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
	for _, reader := range clouds.NodeReaders() {
		if reader.MarksGPUNode(n.Labels) {
			return true
		}
	}
	return false
}

func nodeCapacity(n *corev1.Node, requested map[corev1.ResourceName]int64) spec.NodeCapacity {
	nc := spec.NodeCapacity{
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
		nc.Resources = append(nc.Resources, spec.ResourceCapacity{
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
func finishPool(pool *spec.PoolCapacity) {
	slices.SortStableFunc(pool.Nodes, func(a, b spec.NodeCapacity) int { return cmp.Compare(a.Name, b.Name) })
	totals := map[string]*spec.ResourceCapacity{}
	for _, n := range pool.Nodes {
		for _, r := range n.Resources {
			t := totals[r.Name]
			if t == nil {
				t = &spec.ResourceCapacity{Name: r.Name}
				totals[r.Name] = t
			}
			t.Capacity = clouds.AddSat(t.Capacity, r.Capacity)
			t.Allocatable = clouds.AddSat(t.Allocatable, r.Allocatable)
			t.Requested = clouds.AddSat(t.Requested, r.Requested)
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
	pool.DRADevices = sumCounts(pool.Nodes)
	slices.SortFunc(pool.Taints, func(a, b corev1.Taint) int {
		return cmp.Or(cmp.Compare(a.Key, b.Key), cmp.Compare(a.Value, b.Value), cmp.Compare(a.Effect, b.Effect))
	})
	readPoolState(pool, commonLabels(pool.Nodes))
	pool.TopologyDomains = topologyDomains(pool)
}

// SameTaint is the provider's one taint identity: key, value and effect
// (a taint's TimeAdded is when, not what). Node pools and capacity compare
// taints with it; the node updates in internal/kube use the same identity
// (kube.hasTaint, tested against this one) without importing render.
func SameTaint(a, b corev1.Taint) bool {
	return a.Key == b.Key && a.Value == b.Value && a.Effect == b.Effect
}

// HasTaint reports whether list holds a taint the same as t.
func HasTaint(list []corev1.Taint, t corev1.Taint) bool {
	return slices.ContainsFunc(list, func(x corev1.Taint) bool { return SameTaint(x, t) })
}

// commonLabels are the labels every node carries with the same value.
func commonLabels(nodes []spec.NodeCapacity) map[string]string {
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
func readPoolState(pool *spec.PoolCapacity, l map[string]string) {
	if cfg := l[spec.LabelMIGConfig]; cfg != spec.MIGConfigDisabled {
		pool.MIGConfig = cfg
	}
	pool.MIGStrategy = l["nvidia.com/mig.strategy"]
	if pool.MIGStrategy == "" && slices.ContainsFunc(pool.Resources, func(r spec.ResourceCapacity) bool {
		return strings.HasPrefix(r.Name, "nvidia.com/mig-")
	}) {
		pool.MIGStrategy = spec.MIGStrategyMixed
	}
	if s := l[clouds.LabelSharingStrategy]; s != "" && s != "none" {
		pool.Sharing = s
		pool.SharedClients = clouds.ParseCount(l[clouds.LabelGPUReplicas])
	}
	for _, reader := range clouds.NodeReaders() {
		reader.ReadPoolState(l, pool)
	}
}
