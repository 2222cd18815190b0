package spec

import (
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/kubever"
)

// PoolPolicy describes one GPU node pool once; node labels and taints, the
// cloud node-pool shape, the device plugin config and the placement that
// workloads need are all derived from it (pool.Render), so the pool and the
// workloads placed on it cannot drift apart.
//
// Field names map 1:1 to the gpu_node_pool_policy attributes (snake_case in
// gpudiag.Diagnostic paths and in the JSON inside pool ids). As with Workload, zero
// values mean "unset OR unknown": pool.Validate skips rules that need them,
// pool.Render (values final) reports missing required ones.
type PoolPolicy struct {
	Name        string `json:"name,omitempty"`          // name: DNS-1123 label, used in derived names
	Cloud       string `json:"cloud,omitempty"`         // cloud: one of PoolCloudNames()
	Accelerator string `json:"accelerator,omitempty"`   // accelerator: catalog id
	GPUsPerNode int64  `json:"gpus_per_node,omitempty"` // gpus_per_node

	// Partition is a MIG profile of Accelerator ("2g.10gb": every GPU is cut
	// into that profile) or a mig-manager layout ("all-2g.10gb", the same
	// thing spelled the GPU Operator's way, or PartitionAllBalanced).
	Partition string `json:"partition,omitempty"` // partition
	// MIGStrategy is MIGStrategyNames(); "" means single.
	MIGStrategy string `json:"mig_strategy,omitempty"` // mig_strategy

	// Sharing is SharingNames(); Replicas is the time-slicing replicas or MPS
	// clients per GPU (at least 2, required with Sharing).
	Sharing  string `json:"sharing,omitempty"`  // sharing
	Replicas int64  `json:"replicas,omitempty"` // replicas

	Spot   bool              `json:"spot,omitempty"`   // spot
	Labels map[string]string `json:"labels,omitempty"` // labels: extra node labels
	Taints []Taint           `json:"taints,omitempty"` // taints: extra node taints
	// Dedicated taints the pool with the cloud's conventional GPU taint so
	// only pods that tolerate it (GPU workloads) land there. nil means true.
	Dedicated *bool `json:"dedicated,omitempty"` // dedicated

	// GPUAllocation is GPUAllocationNames(): how the nodes hand out GPUs.
	// "" means GPUAllocationDevicePlugin (pool.CanonicalPool drops it, so
	// ids of device-plugin pools are what they were before the field).
	GPUAllocation string `json:"gpu_allocation,omitempty"` // gpu_allocation

	// Topology is the pool's network topology for topology-aware placement
	// (the topology block); nil means none: the queue renders no Kueue
	// Topology and workloads cannot ask for a domain. omitempty keeps the
	// ids of pools without it what earlier releases produced.
	Topology *PoolTopology `json:"topology,omitempty"` // topology

	// MachineType is one machine type of the cloud with GPUsPerNode GPUs
	// of Accelerator; "" takes the first (smallest) the cloud lists. It
	// decides the pool's GPU network (A3 High and A3 Mega share a model and
	// a GPU count, not a network). omitempty keeps earlier ids.
	MachineType string `json:"machine_type,omitempty"` // machine_type
	// GPUNetwork turns the machine type's GPU network off, or names the
	// RDMA resource of AKS and generic clusters (gpu_network block); nil
	// takes the machine type's network as it is.
	GPUNetwork *PoolGPUNetwork `json:"gpu_network,omitempty"` // gpu_network

	// Kubernetes is the version the pool's cluster is judged by (the
	// cluster's, the provider's kubernetes_version, or the floor assumed),
	// for the rules that depend on it (a DRA pool's DeviceClass). It is not
	// configuration: never in the ref or the id; the provider sets it after
	// decoding a policy. The zero value judges by the floor, 1.34.
	Kubernetes kubever.Version `json:"-"`
}

// PoolGPUNetwork is the gpu_network block of a pool.
type PoolGPUNetwork struct {
	// Enabled nil means on where the machine type has a GPU network.
	Enabled *bool `json:"enabled,omitempty"` // enabled
	// RDMAResource is the extended resource the cluster's RDMA device
	// plugin advertises (AKS, generic): the NVIDIA Network Operator's
	// NicClusterPolicy names it. RDMADevices is how many of it a pod asking
	// every GPU of a node requests: the NIC count with the SR-IOV device
	// plugin, 1 with the shared one.
	RDMAResource string `json:"rdma_resource,omitempty"` // rdma_resource
	RDMADevices  int64  `json:"rdma_devices,omitempty"`  // rdma_devices
}

// Off reports whether the block turns the network off.
func (n *PoolGPUNetwork) Off() bool { return n != nil && n.Enabled != nil && !*n.Enabled }

// PoolTopology is what a pool says of its nodes' network topology. Levels
// are in the user's words (a level name of the cloud, such as "block", or a
// node label key), outermost first; nil takes the cloud's levels
// (clouds.Cloud.TopologyLevels). NodesPerDomain is the pool's shape where
// known: nodes in one domain of a level, keyed by level name.
type PoolTopology struct {
	Levels         []string         `json:"levels,omitempty"`           // levels
	NodesPerDomain map[string]int64 `json:"nodes_per_domain,omitempty"` // nodes_per_domain
}

// How a pool's nodes hand out GPUs. One node, one way: NVIDIA's DRA driver
// refuses to run beside the device plugin, which would advertise the same
// GPUs a second time (docs/design/dra.md §1.4).
const (
	// GPUAllocationDevicePlugin: the NVIDIA device plugin (or the cloud's
	// own) advertises extended resources such as nvidia.com/gpu.
	GPUAllocationDevicePlugin = "device-plugin"
	// GPUAllocationDRA: NVIDIA's DRA driver publishes the GPUs as
	// ResourceSlices, and pods ask for them through ResourceClaims.
	GPUAllocationDRA = "dra"
)

// GPUAllocationNames lists the accepted gpu_allocation values, the default first.
func GPUAllocationNames() []string { return []string{GPUAllocationDevicePlugin, GPUAllocationDRA} }

// UsesDRA reports whether the pool's nodes hand out GPUs through DRA.
func (p PoolPolicy) UsesDRA() bool { return p.GPUAllocation == GPUAllocationDRA }

// Taint is one extra node taint of a pool. Effect is a Kubernetes taint
// effect: NoSchedule, PreferNoSchedule or NoExecute.
type Taint struct {
	Key    string `json:"key"`
	Value  string `json:"value,omitempty"`
	Effect string `json:"effect"`
}

// PartitionAllBalanced is the GPU Operator's mig-manager layout that cuts
// every GPU into several profiles (e.g. A100 40GB: 2x 1g.5gb, 1x 2g.10gb,
// 1x 3g.20gb). Each profile is its own resource, so it needs the mixed
// strategy.
const PartitionAllBalanced = "all-balanced"

// Node labels the GPU Operator reads to configure a node. They are per-node
// overrides of the cluster-wide ClusterPolicy settings.
const (
	// LabelDevicePluginConfig selects the entry of the device plugin's
	// ConfigMap (devicePlugin.config.name) that configures this node.
	LabelDevicePluginConfig = "nvidia.com/device-plugin.config"
	// LabelMIGConfig selects the mig-manager layout, e.g. "all-2g.10gb".
	LabelMIGConfig = "nvidia.com/mig.config"
	// MIGConfigDisabled is mig-manager's "MIG off" layout.
	MIGConfigDisabled = "all-disabled"
	// LabelDeployDevicePlugin "false" keeps the GPU Operator's device plugin
	// off a node (it only sets its deploy labels where absent); DRA nodes
	// carry it, because the device plugin and the DRA driver on one node
	// over-admit GPUs (docs/design/dra.md §1.4, §9.7).
	LabelDeployDevicePlugin = "nvidia.com/gpu.deploy.device-plugin"
)

// Taint effects as the Kubernetes API spells them.
const (
	TaintNoSchedule       = string(corev1.TaintEffectNoSchedule)
	TaintPreferNoSchedule = string(corev1.TaintEffectPreferNoSchedule)
	TaintNoExecute        = string(corev1.TaintEffectNoExecute)
)

// TaintEffectNames lists the accepted taints[*].effect values.
func TaintEffectNames() []string {
	return []string{TaintNoSchedule, TaintPreferNoSchedule, TaintNoExecute}
}

// PoolRendered is everything derived from a PoolPolicy. JSON names are the
// snake_case computed-attribute names; golden files print this struct.
// TopologyLevel is one level of a pool's resolved topology: its name (a
// label key given as a level is its own name), its node label, and the
// nodes of one domain where the pool's shape says it (0: unknown; 1 for the
// node level).
type TopologyLevel struct {
	Name      string `json:"name"`
	NodeLabel string `json:"node_label"`
	Nodes     int64  `json:"nodes,omitempty"`
}

type PoolRendered struct {
	// ID is the pool's name: gpu_node_pool_policy's id. The policy itself
	// travels in the ref (internal/provider/refs).
	ID string `json:"id"`

	// TopologyLevels are the pool's network topology levels, outermost
	// first, ending with the node level (kubernetes.io/hostname); nil when
	// the pool has no topology block. gpu_queue renders them as the pool's
	// Kueue Topology.
	TopologyLevels []TopologyLevel `json:"topology_levels,omitempty"`

	// NodeLabels must be added to the pool's nodes by whoever creates them
	// (the cloud shapes below already contain them): the user's labels, the
	// GPU Operator selectors (nvidia.com/mig.config,
	// nvidia.com/device-plugin.config) and, on EKS managed node groups, the
	// k8s.amazonaws.com/accelerator label that nothing else sets.
	NodeLabels map[string]string `json:"node_labels,omitempty"`
	// CloudSetLabels are put on the nodes by the cloud itself (GKE, AKS,
	// Karpenter, EKS) or by the GPU Operator / GPU Feature Discovery. They
	// are listed so the placement can be checked, and must not be set by
	// hand (several clouds reject it). Where a label can take several values
	// (GFD's SXM or PCIe product name, one of several instance types) the
	// first the catalog lists is shown.
	CloudSetLabels map[string]string `json:"cloud_set_labels,omitempty"`
	// IdentityLabels tell the pool's nodes apart from the cloud's other
	// pools: the cloud's pool-name label (GKE node pool, AKS agent pool, EKS
	// node group, Karpenter NodePool, which must be named after the policy),
	// or on generic clusters the GPU Feature Discovery labels the pool is
	// defined by. A gpu_queue's ResourceFlavor selects the pool by them.
	IdentityLabels map[string]string `json:"identity_labels,omitempty"`
	// IdentityProblem says why no node can carry IdentityLabels (the name
	// cannot be the cloud's node pool name); "" otherwise.
	IdentityProblem string `json:"identity_problem,omitempty"`
	// LabelChoices are the labels above (or of CloudSetLabels) whose value
	// is one of several: the first is shown, a node may carry another.
	LabelChoices map[string][]string `json:"label_choices,omitempty"`
	// NodeTaints are every taint the nodes carry, whoever sets it (GKE sets
	// its GPU taint itself; the cloud shapes list only the ones to configure).
	NodeTaints []corev1.Taint `json:"node_taints,omitempty"`

	// Cloud node-pool shapes; only the one for the pool's cloud is set.
	// Karpenter and EKS Auto Mode get KarpenterNodePool; generic clusters get
	// none (apply NodeLabels/NodeTaints however the nodes are provisioned).
	GKE               *GKENodePool  `json:"gke,omitempty"`
	AKS               *AKSNodePool  `json:"aks,omitempty"`
	EKS               *EKSNodeGroup `json:"eks,omitempty"`
	KarpenterNodePool string        `json:"karpenter_node_pool,omitempty"`

	// What a pod needs to land on the pool: the same answer Render gives a
	// workload placed with pool.Apply, plus selectors for the pool's extra
	// labels and tolerations for its extra taints (PoolPlacementExtras).
	NodeSelector map[string]string   `json:"node_selector,omitempty"`
	Affinity     *corev1.Affinity    `json:"affinity,omitempty"`
	Tolerations  []corev1.Toleration `json:"tolerations,omitempty"`
	// ResourceName is the extended resource a pod requests, e.g.
	// nvidia.com/gpu, nvidia.com/gpu.shared, nvidia.com/mig-1g.5gb; empty
	// when the pool offers several (all-balanced): see ResourceNames.
	ResourceName  string   `json:"resource_name,omitempty"`
	ResourceNames []string `json:"resource_names"`
	// ResourcesPerNode is what one node advertises once configured, per
	// resource name (GPUs x MIG instances per GPU x sharing replicas).
	ResourcesPerNode map[string]int64 `json:"resources_per_node"`

	// UnitRequests is the CPU and memory a default-sized workload asking for
	// one unit of ResourceName (a GPU, MIG instance or shared slot)
	// requests: a queue's quota per unit.
	UnitRequests corev1.ResourceList `json:"unit_requests,omitempty"`

	// DevicePluginConfig is one entry of the NVIDIA device plugin's config
	// ConfigMap (gpu-operator devicePlugin.config.data), keyed by
	// DevicePluginConfigName, which nodes select with the
	// nvidia.com/device-plugin.config label. Empty when the pool needs none:
	// whole GPUs, or GKE, which shares and partitions GPUs natively.
	DevicePluginConfigName string `json:"device_plugin_config_name,omitempty"`
	DevicePluginConfig     string `json:"device_plugin_config,omitempty"`
	// MIGConfig is the nvidia.com/mig.config layout ("" on GKE and for GPUs
	// without MIG).
	MIGConfig string `json:"mig_config,omitempty"`

	// GPUAllocation is GPUAllocationDRA for a DRA pool, "" for a
	// device-plugin pool (whose rendering predates the attribute).
	GPUAllocation string `json:"gpu_allocation,omitempty"`
	// DeviceClassName is a DRA pool's DeviceClass (dra.PoolDeviceClass),
	// which its workloads' claims and Kueue's deviceClassMappings name;
	// "" for device-plugin pools. DeviceClass is that object as YAML, and
	// DeviceClassObject the same, typed, for the resource that applies it.
	DeviceClassName   string                  `json:"device_class_name,omitempty"`
	DeviceClass       string                  `json:"device_class,omitempty"`
	DeviceClassObject *resourcev1.DeviceClass `json:"-"`
	// ExtendedResourceName is the extended resource the DeviceClass
	// answers to (dra.PoolExtendedResourceName), set only where the
	// cluster's version has DRAExtendedResource on by default: what pods
	// the provider does not own (charts' GPU pods) ask for on the pool.
	ExtendedResourceName string `json:"extended_resource_name,omitempty"`
	// DevicesPerNode is what the DRA driver publishes on one of a DRA
	// pool's nodes: a device per GPU, or per MIG instance of the pool's one
	// profile. 0 for device-plugin pools (see ResourcesPerNode).
	DevicesPerNode int64 `json:"devices_per_node,omitempty"`

	// MachineType is the machine type the pool's shapes use (machine_type,
	// or the cloud's first with GPUsPerNode GPUs); "" where the cloud's
	// machines are not known (generic).
	MachineType string `json:"machine_type,omitempty"`
	// GPUNetwork is the machine type's GPU-to-GPU network as the pool's
	// workloads get it; nil when the machine has none or the pool turns it
	// off.
	GPUNetwork *PoolNetwork `json:"gpu_network,omitempty"`
}

// PoolNetwork summarises a pool's GPU network: its kind
// (clouds.NetworkKindNames), the NICs of one machine and what a pod asking
// every GPU of a node requests for it.
type PoolNetwork struct {
	Kind string `json:"kind"`
	NICs int64  `json:"nics"`
	// ResourcesPerPod are the extended resources (and huge pages) of a pod
	// asking every GPU of a node, beside its GPUs.
	ResourcesPerPod map[string]string `json:"resources_per_pod,omitempty"`
}

// CloudTaint is a taint in the enum form of the GKE and EKS APIs
// (google_container_node_pool node_config.taint, aws_eks_node_group taint):
// Effect is NO_SCHEDULE, PREFER_NO_SCHEDULE or NO_EXECUTE.
type CloudTaint struct {
	Key    string `json:"key"`
	Value  string `json:"value,omitempty"`
	Effect string `json:"effect"`
}

// GKENodePool is the GPU part of a google_container_node_pool.
type GKENodePool struct {
	// MachineType is a suggestion: the first machine type carrying exactly
	// GPUsPerNode GPUs of the model. Empty for N1 GPUs (T4, V100), which
	// attach to any N1 machine type.
	MachineType string `json:"machine_type,omitempty"`
	Spot        bool   `json:"spot,omitempty"`
	// Labels holds only labels GKE does not set itself.
	Labels map[string]string `json:"labels,omitempty"`
	// Taints leaves out nvidia.com/gpu: GKE adds it to GPU pools and rejects
	// a second taint with that key ("Found more than one taint with key
	// nvidia.com/gpu and effect NO_SCHEDULE", hashicorp/terraform-provider-google#7928).
	Taints           []CloudTaint        `json:"taints,omitempty"`
	GuestAccelerator GKEGuestAccelerator `json:"guest_accelerator"`
	// AdditionalNodeNetworks are the VPC networks of the machine's GPU NICs,
	// in the order the pods' interfaces use them (network_config
	// additional_node_network_configs; GKE Network objects of the same
	// names): vpc1..vpc8 on A3 Mega, rdma-0..rdma-7 on A3 Ultra and A4.
	// Empty without a GPU network.
	AdditionalNodeNetworks []string `json:"additional_node_networks,omitempty"`
}

// GKEGuestAccelerator is node_config.guest_accelerator.
type GKEGuestAccelerator struct {
	Type                   string `json:"type"` // a cloud.google.com/gke-accelerator value
	Count                  int64  `json:"count"`
	GPUPartitionSize       string `json:"gpu_partition_size,omitempty"`
	GPUSharingStrategy     string `json:"gpu_sharing_strategy,omitempty"` // TIME_SHARING or MPS
	MaxSharedClientsPerGPU int64  `json:"max_shared_clients_per_gpu,omitempty"`
	// GPUDriverVersion is gpu_driver_installation_config: LATEST lets GKE
	// install the driver (the node label reads gke-gpu-driver-version=latest).
	GPUDriverVersion string `json:"gpu_driver_version"`
}

// AKSNodePool is the GPU part of an azurerm_kubernetes_cluster_node_pool.
type AKSNodePool struct {
	// VMSize is a suggestion: the smallest VM size carrying GPUsPerNode GPUs.
	VMSize string `json:"vm_size"`
	// Priority is "Spot" or "Regular".
	Priority   string            `json:"priority"`
	NodeLabels map[string]string `json:"node_labels,omitempty"`
	// NodeTaints are in AKS "key=value:Effect" form.
	NodeTaints []string `json:"node_taints,omitempty"`
	// GPUDriver is gpuProfile.driver (azurerm gpu_driver): "None" on DRA
	// pools, whose driver the GPU Operator installs; "" leaves AKS's default
	// (Install). GPUManagementMode is gpuProfile.nvidia.managementMode:
	// "Unmanaged" on DRA pools, so AKS installs no device plugin.
	GPUDriver         string `json:"gpu_driver,omitempty"`
	GPUManagementMode string `json:"gpu_management_mode,omitempty"`
	// InfiniBand is true when the VM size's InfiniBand NICs carry the GPU
	// network: the subscription needs the AKSInfinibandSupport feature, and
	// only VMs of one scale set (one agent pool) share a fabric.
	InfiniBand bool `json:"infiniband,omitempty"`
}

// EKSNodeGroup is the GPU part of an aws_eks_node_group.
type EKSNodeGroup struct {
	// InstanceTypes are the EC2 types carrying GPUsPerNode GPUs of the model.
	InstanceTypes []string `json:"instance_types"`
	// CapacityType is ON_DEMAND or SPOT.
	CapacityType string `json:"capacity_type"`
	// AMIType is the EKS-optimized accelerated AMI (NVIDIA driver and
	// container toolkit preinstalled).
	AMIType string            `json:"ami_type"`
	Labels  map[string]string `json:"labels,omitempty"`
	Taints  []CloudTaint      `json:"taints,omitempty"`
	// EFAInterfaces is how many EFA interfaces the launch template gives
	// each instance (network_interfaces with interface_type "efa" on card
	// 0 and "efa-only" on the others); 0 without a GPU network.
	EFAInterfaces int64 `json:"efa_interfaces,omitempty"`
	// PlacementGroupStrategy is the EC2 placement group the launch template
	// should name ("cluster"), so EFA traffic stays in one spine.
	PlacementGroupStrategy string `json:"placement_group_strategy,omitempty"`
}
