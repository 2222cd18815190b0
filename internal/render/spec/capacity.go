package spec

import corev1 "k8s.io/api/core/v1"

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
	// DRADriver is the DRA driver whose ResourceSlices the nodes publish
	// ("gpu.nvidia.com"); "" for a pool of extended resources.
	DRADriver string `json:"dra_driver,omitempty"`
	// DRADevices are the pool's DRA devices by product, type and MIG
	// profile, summed over the nodes.
	DRADevices []DRADeviceCount `json:"dra_devices,omitempty"`
	// TopologyDomains are the domains of the pool's top topology level (GKE
	// block, AWS network node layer 1, NVLink clique), with their nodes and
	// free GPUs, sorted by value; none when no node carries a level.
	TopologyDomains []TopologyDomain `json:"topology_domains,omitempty"`
	// Nodes are the pool's nodes sorted by name, with what MatchingPools
	// needs to judge each one.
	Nodes []NodeCapacity `json:"nodes"`
}

// TopologyDomain is one domain of a pool's top topology level: the nodes
// whose NodeLabel is Value, and what their GPU resources (or DRA devices)
// have free, on nodes that take new pods.
type TopologyDomain struct {
	Level     string `json:"level"`
	NodeLabel string `json:"node_label"`
	Value     string `json:"value"`
	Nodes     int64  `json:"nodes"`
	FreeGPUs  int64  `json:"free_gpus"`
}

// NodeCapacity is one GPU node of a pool.
type NodeCapacity struct {
	Name          string             `json:"name"`
	Labels        map[string]string  `json:"labels,omitempty"`
	Taints        []corev1.Taint     `json:"taints,omitempty"`
	Unschedulable bool               `json:"unschedulable,omitempty"`
	Resources     []ResourceCapacity `json:"resources,omitempty"`
	DRADevices    []DRADeviceCount   `json:"dra_devices,omitempty"`
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

// DRADeviceCount counts the DRA devices of one kind: the devices a DRA
// driver publishes in ResourceSlices, and of those the ones allocated to a
// ResourceClaim (status.allocation). Product is the device's productName attribute,
// Type its type (gpu, mig, vfio), Profile a MIG device's profile.
type DRADeviceCount struct {
	Product   string `json:"product"`
	Type      string `json:"type"`
	Profile   string `json:"profile,omitempty"`
	Published int64  `json:"published"`
	Allocated int64  `json:"allocated"`
	// Tainted are published devices no claim holds that carry a NoSchedule
	// or NoExecute device taint (DRADeviceTaints): no claim without a
	// matching toleration, which the provider never renders, gets them.
	Tainted int64 `json:"tainted"`
	// Partitionable are published devices no claim holds (and no taint
	// blocks) that consume a ResourceSlice's shared counters
	// (DRAPartitionableDevices: NVIDIA's dynamic MIG). Whether one is
	// free depends on its siblings' use of the counters, which the provider
	// does not model, so none of them is counted as free.
	Partitionable int64 `json:"partitionable"`
}

// Free is how many published devices a claim could get now: no claim
// holds them, no taint blocks them, and they share no counters.
func (d DRADeviceCount) Free() int64 {
	return max(d.Published-d.Allocated-d.Tainted-d.Partitionable, 0)
}
