package render

import (
	"maps"

	corev1 "k8s.io/api/core/v1"
)

// podPlacement is everything about a GPU container and its pod that follows
// from the GPU intent, the cloud and the node pool: where the pod may run
// and what the container asks for. Render builds the workload's pod from it;
// the values targets copy the same pieces into a chart's values. Both call
// placePod, so a chart's GPU pods and a gpu_workload with the same GPU block
// are placed by one function.
type podPlacement struct {
	nodeSelector map[string]string
	affinity     *corev1.Affinity
	tolerations  []corev1.Toleration
	// resourceName is the extended resource requested; "" with DRA, where
	// the claim stands in for it.
	resourceName corev1.ResourceName
	// resources holds the GPU limit and equal request (or the DRA claim) and
	// the CPU and memory sized for the container.
	resources corev1.ResourceRequirements
	// env is the cloud's driver environment (GKE's LD_LIBRARY_PATH), which
	// the container's own env overrides.
	env     map[string]string
	hostIPC bool
}

// placePod asks the cloud's profile where the intent runs, adds the node
// pool's own labels and taints, and sizes the container. ok is false only
// when sizing fails on values validation already accepted (a bug).
func placePod(w Workload, in gpuIntent, cloud Cloud, pool *PoolPolicy) (podPlacement, bool) {
	place := profileFor(cloud).place(in)
	if pool != nil {
		labels, tolerations := PoolPlacementExtras(*pool)
		maps.Copy(place.nodeSelector, labels)
		place.tolerations = append(place.tolerations, tolerations...)
	}
	resources, ok := containerResources(w, in, place)
	if !ok {
		return podPlacement{}, false
	}
	nodeSelector, affinity := nodeScheduling(place)
	p := podPlacement{
		nodeSelector: nodeSelector,
		affinity:     affinity,
		tolerations:  normalizeTolerations(place.tolerations),
		resources:    resources,
		env:          maps.Clone(place.env),
		hostIPC:      place.hostIPC,
	}
	if !in.dra {
		p.resourceName = place.resourceName
	}
	return p, true
}
