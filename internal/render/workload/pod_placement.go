package workload

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// podPlacement is everything about a GPU container and its pod that follows
// from the GPU intent, the cloud and the node pool: where the pod may run
// and what the container asks for. Render builds the workload's pod from it;
// the values targets copy the same pieces into a chart's values. Both call
// PlacePod, so a chart's GPU pods and a gpu_workload with the same GPU block
// are placed by one function.
type podPlacement struct {
	NodeSelector map[string]string
	Affinity     *corev1.Affinity
	Tolerations  []corev1.Toleration
	// ResourceName is the extended resource requested; "" with DRA, where
	// the claim stands in for it.
	ResourceName corev1.ResourceName
	// Resources holds the GPU limit and equal request (or the DRA claim) and
	// the CPU and memory sized for the container.
	Resources corev1.ResourceRequirements
	// Env is the cloud's driver environment (GKE's LD_LIBRARY_PATH), which
	// the container's own env overrides.
	Env     map[string]string
	HostIPC bool
}

// PlacePod asks the cloud's workload rules where the intent runs
// (WorkloadRules.Place; an unknown cloud's rules ask for nvidia.com/gpu and
// select no node), adds the node pool's own labels and taints, and sizes
// the container. ok is false only when sizing fails on values validation
// already accepted (a bug).
func PlacePod(c Container, in clouds.GPUIntent, cloud clouds.WorkloadRules, pool *spec.PoolPolicy) (podPlacement, bool) {
	place := cloud.Place(in)
	if pool != nil {
		place.OnPool(*pool)
	}
	resources, ok := containerResources(c, in, place)
	if !ok {
		return podPlacement{}, false
	}
	// place is this call's own (Place builds a new one each time) and is
	// not used after this, so its maps go into the podPlacement uncopied.
	nodeSelector, affinity := clouds.NodeSchedulingOwned(place)
	p := podPlacement{
		NodeSelector: nodeSelector,
		Affinity:     affinity,
		Tolerations:  clouds.NormalizeTolerations(place.Tolerations),
		Resources:    resources,
		Env:          place.Env,
		HostIPC:      place.HostIPC,
	}
	if !in.DRA {
		p.ResourceName = place.ResourceName
	}
	return p, true
}
