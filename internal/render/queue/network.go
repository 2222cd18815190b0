package queue

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// The pool's GPU network in the ClusterQueue (issue #42,
// docs/design/gpu-networks.md#workloads): Kueue counts every resource a
// pod requests and leaves a workload asking for one its ClusterQueue does
// not cover pending ("resource vpc.amazonaws.com/efa unavailable in
// ClusterQueue", kueue pkg/scheduler/flavorassigner). So the queue covers
// what a pool's workloads request for its network (EFA, RDMA devices, huge
// pages), each flavor with as much of it as its GPU quota's nodes have.

// networkResources are the network resources of every flavor's pool,
// sorted, for the resource group's covered resources.
func networkResources(flavors []flavor) []corev1.ResourceName {
	var out []corev1.ResourceName
	for _, f := range flavors {
		if f.pool == nil || f.pool.GPUNetwork == nil {
			continue
		}
		for name := range f.pool.GPUNetwork.ResourcesPerPod {
			if n := corev1.ResourceName(name); !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return out
}

// networkQuota is the flavor's quota of a network resource: what one
// node's worth of GPUs requests, times the nodes the GPU quota stands for
// (in proportion, as the pods' shares are); 0 for pools without it.
func networkQuota(f flavor, name corev1.ResourceName) resource.Quantity {
	zero := *resource.NewQuantity(0, resource.DecimalSI)
	if f.pool == nil || f.pool.GPUNetwork == nil || f.perNode <= 0 || f.quota <= 0 {
		return zero
	}
	perNode, ok := f.pool.GPUNetwork.ResourcesPerPod[string(name)]
	if !ok {
		return zero
	}
	q, err := resource.ParseQuantity(perNode)
	if err != nil {
		return zero
	}
	// Whole units: both are integers per node (EFA devices, bytes of huge
	// pages), and the GPU quota's share of them is whole where the pods'
	// shares are.
	return *resource.NewQuantity(q.Value()*f.quota/f.perNode, q.Format)
}

// networkQuotas are the flavor's quotas of every covered network resource.
func networkQuotas(f flavor, names []corev1.ResourceName) []resourceQuota {
	out := make([]resourceQuota, 0, len(names))
	for _, name := range names {
		out = append(out, resourceQuota{name: name, quota: networkQuota(f, name)})
	}
	return out
}

type resourceQuota struct {
	name  corev1.ResourceName
	quota resource.Quantity
}
