package pool

import (
	"maps"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// Render validates p with every value final and derives the node
// labels, taints, cloud node-pool shape, device plugin config and workload
// placement. On error diagnostics it returns nil; warnings come back with
// the result.
func Render(p spec.PoolPolicy) (*spec.PoolRendered, gpudiag.Diagnostics) {
	pi, diags := validatePool(p, true)
	if diags.HasError() {
		return nil, diags
	}
	return buildPool(p, pi), diags
}

func buildPool(p spec.PoolPolicy, pi clouds.PoolIntent) *spec.PoolRendered {
	toAdd, cloudSet := clouds.DerivedPoolLabels(pi)
	// User labels cannot collide with derived ones (checkPoolLabels).
	maps.Copy(toAdd, pi.Labels)
	taints := clouds.PoolTaints(pi)
	r := &spec.PoolRendered{
		ID:               ID(p),
		NodeLabels:       labelsOrNil(toAdd),
		CloudSetLabels:   labelsOrNil(cloudSet),
		NodeTaints:       clouds.TaintList(taints),
		ResourcesPerNode: poolResources(pi),
		MIGConfig:        pi.MIGConfig(),
		MachineType:      pi.Machine,
	}
	if pi.Network != nil {
		r.GPUNetwork = pi.Network.Summary()
	}
	identity, choices := clouds.PoolIdentity(pi, toAdd, cloudSet)
	r.IdentityLabels, r.LabelChoices = labelsOrNil(identity), choices
	r.TopologyLevels, _ = clouds.PoolTopology(pi.Cloud, p.Topology, true) // validatePool reported its findings
	r.IdentityProblem = pi.Cloud.PoolNameProblem(pi.Name)
	r.ResourceNames = slices.Sorted(maps.Keys(r.ResourcesPerNode))
	if len(r.ResourceNames) == 1 {
		r.ResourceName = r.ResourceNames[0]
	}
	r.NodeSelector, r.Affinity, r.Tolerations = poolScheduling(pi)
	r.UnitRequests = unitRequests(pi)
	setCloudShape(r, pi, taints)
	if pi.NeedsDevicePluginConfig() {
		r.DevicePluginConfigName = pi.Name
		r.DevicePluginConfig = devicePluginConfig(pi)
	}
	if pi.DRA {
		r.GPUAllocation = spec.GPUAllocationDRA
		r.DevicesPerNode = draDevicesPerNode(pi)
		setDeviceClass(r, pi, p.Kubernetes)
	}
	return r
}

// poolScheduling is what a pod needs to land on the pool. It runs the
// workload code path itself (workload.ParseGPUIntent, then the cloud profile's
// place) on the gpu block Apply would give a one-GPU workload, so a
// pool and the workloads placed on it cannot disagree; then it adds the
// pool's own selector, taints and exclusions (Placement.OnPool, as every
// workload on the pool gets them).
func poolScheduling(pi clouds.PoolIntent) (map[string]string, *corev1.Affinity, []corev1.Toleration) {
	cloud := pi.Cloud
	if !cloud.Known() {
		return nil, nil, nil
	}
	// gpudiag.Diagnostics are dropped on purpose: validatePool has judged the pool,
	// and a shared partition (allowed for pools, warned about) is one
	// combination a workload may not ask for.
	in, _ := workload.ParseGPUIntent(pi.WorkloadGPU(), pi.Spot, cloud, false)
	place := cloud.Place(in)
	place.OnPoolIntent(pi)
	selector, affinity := clouds.NodeSchedulingOwned(place)
	return selector, affinity, clouds.NormalizeTolerations(place.Tolerations)
}

// unitRequests sizes a one-unit workload on the pool with the workload
// code's own defaults, so a queue's quota per unit and a gpu_workload's
// requests cannot disagree.
func unitRequests(pi clouds.PoolIntent) corev1.ResourceList {
	if !pi.Cloud.Known() {
		return nil
	}
	in, _ := workload.ParseGPUIntent(pi.WorkloadGPU(), pi.Spot, pi.Cloud, false)
	cpu, memory := workload.DefaultSizing(in)
	return corev1.ResourceList{corev1.ResourceCPU: cpu, corev1.ResourceMemory: memory}
}

// poolResources is what one configured node advertises, per resource
// (none on a DRA pool: its devices are in ResourceSlices).
// GKE's own device plugin advertises MIG instances and shared slots as
// nvidia.com/gpu; the NVIDIA device plugin uses nvidia.com/mig-<profile>
// (mixed) and renames shared resources with ".shared" (renameByDefault).
func poolResources(pi clouds.PoolIntent) map[string]int64 {
	out := map[string]int64{}
	if pi.DRA {
		return out // the DRA driver publishes devices; nothing advertises an extended resource
	}
	replicas := int64(1)
	if pi.Sharing != "" && pi.Replicas > 0 {
		replicas = pi.Replicas
	}
	cloudPlugin := pi.Cloud.Mechanism() == clouds.MechanismCloudNative
	if !pi.HasMIG() {
		name := string(clouds.ResourceNvidiaGPU)
		if pi.Sharing != "" && !cloudPlugin {
			name = string(clouds.ResourceNvidiaGPUShared)
		}
		out[name] = clouds.MulSat(pi.GPUs, replicas)
		return out
	}
	for _, s := range pi.Cut {
		name := string(clouds.ResourceNvidiaGPU)
		if !cloudPlugin && pi.MIGStrategy == spec.MIGStrategyMixed {
			name = s.Profile.MixedResourceName()
		}
		if pi.Sharing != "" && !cloudPlugin {
			name += sharedResourceSuffix
		}
		out[name] = clouds.AddSat(out[name], clouds.MulSat(clouds.MulSat(pi.GPUs, s.PerGPU), replicas))
	}
	return out
}

// sharedResourceSuffix is what renameByDefault appends (k8s-device-plugin
// DefaultSharedResourceNameSuffix).
const sharedResourceSuffix = ".shared"

func poolResourceNames(pi clouds.PoolIntent) []string {
	return slices.Sorted(maps.Keys(poolResources(pi)))
}

func setCloudShape(r *spec.PoolRendered, pi clouds.PoolIntent, taints []clouds.PoolTaint) {
	pi.Cloud.NodePoolShape(r, pi, taints)
}

func labelsOrNil(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return m
}

// poolRef names a pool in Details: node_pool "l4-serving" (l4 on gke).
func poolRef(pi clouds.PoolIntent) string {
	s := "node_pool " + strconv.Quote(pi.Name)
	if pi.Accel != nil {
		s += " (" + pi.Accel.Name + " on " + string(pi.Cloud.Name()) + ")"
	}
	return s
}

// ID is gpu_node_pool_policy's id: the pool's name, which is what a person
// looks for in a plan. The policy itself travels in the pool's ref.
func ID(p spec.PoolPolicy) string { return p.Name }
