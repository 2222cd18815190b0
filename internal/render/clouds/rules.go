package clouds

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// The parts of Profile beyond workload placement, and the neutral
// answers every profile starts from. A cloud file overrides a method only
// where its cloud behaves differently, so the rules shared by several clouds
// (the GPU Operator's labels, the conventional dedicated taint) live here
// once.

// MachineRules: the machine shapes a cloud sells per accelerator.
type MachineRules interface {
	// Machines lists the shapes of a model, smallest first; nil when the
	// catalog does not know them (any count 1..MaxGPUsPerPod is accepted).
	Machines(a *catalog.Accelerator) []MachineShape
	// acceleratorForMachine recognises a model from a machine type name.
	acceleratorForMachine(name string) *catalog.Accelerator
	// ExactGPUCounts: a pod must ask for exactly a machine's GPU count
	// (GKE Autopilot sizes the node from gke-accelerator-count), not just
	// no more than the largest machine.
	ExactGPUCounts() bool
}

// PoolRules: what a node pool policy may say on the cloud, and the labels,
// taints and node-pool shape that follow.
type PoolRules interface {
	// PoolsUnsupported is a summary and detail when the cloud has no
	// user-managed node pools; empty otherwise. The detail ends with the
	// first allowed alternative; the caller adds the clouds that have pools.
	PoolsUnsupported() (summary, detail string)
	// Mechanism is who partitions and shares GPUs on the cloud.
	Mechanism() gpuMechanism
	// RejectsMIGLayouts: the cloud refuses mig-manager layouts, including
	// all-balanced, whatever the strategy.
	RejectsMIGLayouts() bool
	// CheckPoolPartition reports MIG partitions the cloud cannot create.
	// pi has a resolved partition; rawStrategy is mig_strategy as written.
	CheckPoolPartition(pi PoolIntent, rawStrategy string, diags *gpudiag.Diagnostics)
	// CheckPoolSharing reports sharing the cloud cannot configure.
	CheckPoolSharing(sharing string, diags *gpudiag.Diagnostics)
	// SharedClientsLimit names who caps clients per GPU at MaxMPSClients
	// for every sharing mode; empty where only MPS is capped.
	SharedClientsLimit() string
	// PoolNotes warns about settings that change nothing on the cloud.
	PoolNotes(p spec.PoolPolicy, pi PoolIntent, diags *gpudiag.Diagnostics)
	// ReservedLabelDomains are label domains the cloud keeps for itself.
	ReservedLabelDomains() []ReservedDomain
	// poolLabels adds the labels someone must put on the nodes (toAdd) and
	// those the cloud sets itself (cloudSet).
	poolLabels(pi PoolIntent, toAdd, cloudSet map[string]string)
	// PoolTaints are the taints the pool or the cloud adds from dedicated
	// and spot.
	poolTaints(pi PoolIntent) []PoolTaint
	// AddsGPUTaint: the cloud taints GPU nodes itself, whatever dedicated says.
	AddsGPUTaint() bool
	// selectsSharedClients: a node label records the pool's replicas, so
	// workloads can select exactly this sharing.
	selectsSharedClients(pi PoolIntent) bool
	// NodePoolShape fills the cloud's node-pool body in r.
	NodePoolShape(r *spec.PoolRendered, pi PoolIntent, taints []PoolTaint)
	// PoolNameProblem says why the cloud's node pool cannot carry this
	// name (so PoolNameLabel would select no node); "" when it can.
	PoolNameProblem(name string) string
	// PoolNameLabel is the node label in which the cloud names a node's
	// pool (GKE node pool, AKS agent pool, EKS node group, Karpenter
	// NodePool); "" where none exists.
	PoolNameLabel() string
	// poolIdentity: the labels that tell the pool's nodes apart from the
	// cloud's other pools (pool_identity.go).
	poolIdentity(pi PoolIntent, toAdd, cloudSet map[string]string) map[string]string
	// labelChoices: labels of cloudSet whose value is one of several.
	labelChoices(pi PoolIntent) map[string][]string
	// CheckPoolDRA reports what the cloud refuses of a DRA pool
	// (docs/design/dra.md §9), with the cloud's reason and the version
	// that lifts it, if any.
	CheckPoolDRA(p spec.PoolPolicy, pi PoolIntent, diags *gpudiag.Diagnostics)
	// draPoolLabels adds the labels a DRA pool's nodes need on the cloud
	// beyond spec.LabelDeployDevicePlugin (draLabels).
	draPoolLabels(pi PoolIntent, toAdd, cloudSet map[string]string)
	// topologyLevels are the network topology levels the cloud's nodes
	// carry as labels, outermost first, without the node level
	// (topology.go); Default marks those a pool has unless it lists its own.
	topologyLevels() []TopologyLevel
	// machineNetwork is the GPU network of a machine type (network.go;
	// each cloud's <cloud>_network.go). settings is the pool's gpu_network
	// block, nil when absent; ok is false for machines without one.
	machineNetwork(machine string, settings *spec.PoolGPUNetwork) (GPUNetwork, bool)
}

// NodeRules: reading live nodes back (capacity).
type NodeRules interface {
	// Classify recognises the cloud's own nodes and names their pool.
	Classify(n *corev1.Node) (NodeClass, bool)
	// MarksGPUNode: a label of the cloud says the node has GPUs.
	MarksGPUNode(l map[string]string) bool
	// ReadPoolState reads the cloud's MIG and sharing labels, common to
	// every node of a pool, over what the GPU Operator's labels said.
	ReadPoolState(l map[string]string, pool *spec.PoolCapacity)
}

// StackRules: what the cloud's own GPU stack does on GPU nodes, for
// whatever installs or configures NVIDIA's (the chart values packages,
// which keep their own chart-specific notes per cloud).
type StackRules interface {
	// DriverPreinstalled: the cloud's node image carries driver and toolkit.
	DriverPreinstalled() bool
	// DriverInstallDir is where the cloud installs the driver on the host,
	// "" when the cloud does not (or the location is the stack's default).
	DriverInstallDir() string
	// ManagesDevicePlugin: the cloud runs its own device plugin, and a
	// second one would advertise every GPU twice.
	ManagesDevicePlugin() bool
	// PartitionLabel is the node label in which the cloud itself names a
	// node's MIG partition, "" where no such label exists (the GPU
	// Operator's clusters say it through GFD's product and resource names).
	PartitionLabel() string
}

// gpuMechanism is who partitions and shares GPUs on a cloud.
type gpuMechanism int

const (
	// mechanismNone: unknown cloud, nothing is configured.
	mechanismNone gpuMechanism = iota
	// MechanismGPUOperator: node labels select a mig-manager layout and a
	// device plugin config (NVIDIA GPU Operator).
	MechanismGPUOperator
	// MechanismCloudNative: the cloud partitions and shares GPUs from
	// node-pool settings, and its own device plugin advertises MIG
	// instances and shared slots as nvidia.com/gpu (GKE).
	MechanismCloudNative
	// mechanismCloudManaged: the cloud runs a device plugin that reads no
	// per-node config, so neither can be configured (EKS Auto Mode).
	mechanismCloudManaged
)

// ReservedDomain is a label domain a pool cannot use, and who keeps it.
type ReservedDomain struct{ Domain, By string }

// baseProfile is the neutral answer to every rule but workload placement.
type baseProfile struct{}

func (baseProfile) CheckEnv(string, string, []any, *gpudiag.Diagnostics) {}

func (baseProfile) Machines(*catalog.Accelerator) []MachineShape      { return nil }
func (baseProfile) acceleratorForMachine(string) *catalog.Accelerator { return nil }
func (baseProfile) ExactGPUCounts() bool                              { return false }

func (baseProfile) PoolsUnsupported() (summary, detail string)                     { return "", "" }
func (baseProfile) Mechanism() gpuMechanism                                        { return mechanismNone }
func (baseProfile) RejectsMIGLayouts() bool                                        { return false }
func (baseProfile) CheckPoolPartition(PoolIntent, string, *gpudiag.Diagnostics)    {}
func (baseProfile) CheckPoolSharing(string, *gpudiag.Diagnostics)                  {}
func (baseProfile) SharedClientsLimit() string                                     { return "" }
func (baseProfile) PoolNotes(spec.PoolPolicy, PoolIntent, *gpudiag.Diagnostics)    {}
func (baseProfile) ReservedLabelDomains() []ReservedDomain                         { return nil }
func (baseProfile) poolLabels(PoolIntent, map[string]string, map[string]string)    {}
func (baseProfile) poolTaints(PoolIntent) []PoolTaint                              { return nil }
func (baseProfile) AddsGPUTaint() bool                                             { return false }
func (baseProfile) selectsSharedClients(PoolIntent) bool                           { return false }
func (baseProfile) NodePoolShape(*spec.PoolRendered, PoolIntent, []PoolTaint)      {}
func (baseProfile) PoolNameLabel() string                                          { return "" }
func (baseProfile) PoolNameProblem(string) string                                  { return "" }
func (baseProfile) labelChoices(PoolIntent) map[string][]string                    { return nil }
func (baseProfile) CheckPoolDRA(spec.PoolPolicy, PoolIntent, *gpudiag.Diagnostics) {}
func (baseProfile) draPoolLabels(PoolIntent, map[string]string, map[string]string) {}
func (baseProfile) topologyLevels() []TopologyLevel                                { return nil }
func (baseProfile) machineNetwork(string, *spec.PoolGPUNetwork) (GPUNetwork, bool) {
	return GPUNetwork{}, false
}

func (baseProfile) poolIdentity(PoolIntent, map[string]string, map[string]string) map[string]string {
	return nil
}
func (baseProfile) Classify(*corev1.Node) (NodeClass, bool)             { return NodeClass{}, false }
func (baseProfile) MarksGPUNode(map[string]string) bool                 { return false }
func (baseProfile) ReadPoolState(map[string]string, *spec.PoolCapacity) {}
func (baseProfile) DriverPreinstalled() bool                            { return false }
func (baseProfile) DriverInstallDir() string                            { return "" }
func (baseProfile) ManagesDevicePlugin() bool                           { return false }
func (baseProfile) PartitionLabel() string                              { return "" }

// operatorProfile is a cloud whose MIG and sharing the GPU Operator
// configures, and which has no GPU taint of its own: a dedicated pool gets
// the conventional one.
type operatorProfile struct{ baseProfile }

func (operatorProfile) Mechanism() gpuMechanism { return MechanismGPUOperator }

// Resource: the NVIDIA device plugin's names (nvidia.com/mig-<profile>
// under "mixed", nvidia.com/gpu.shared when shared).
func (operatorProfile) Resource(in GPUIntent) corev1.ResourceName { return DevicePluginResource(in) }

func (operatorProfile) poolTaints(pi PoolIntent) []PoolTaint { return conventionalGPUTaint(pi) }

// DedicatedGPUTaintValue: EKS node groups, Karpenter and EKS Auto Mode
// NodePools, and GPU Operator clusters have no GPU taint of their own;
// nvidia.com/gpu=true:NoSchedule is the common convention (docs/design/clouds.md,
// docs/design/nvidia.md; it matches the tolerations the GPU Operator's daemonsets carry: key
// nvidia.com/gpu, operator Exists). Workload placement already tolerates it.
const DedicatedGPUTaintValue = "true"

// conventionalGPUTaint is nvidia.com/gpu=true:NoSchedule on dedicated pools.
func conventionalGPUTaint(pi PoolIntent) []PoolTaint {
	if !pi.Dedicated {
		return nil
	}
	return []PoolTaint{gpuTaint(DedicatedGPUTaintValue, "dedicated = true", false)}
}

// gpuTaint is an nvidia.com/gpu NoSchedule taint.
func gpuTaint(value, because string, byCloud bool) PoolTaint {
	return PoolTaint{Taint: noScheduleTaint(string(ResourceNvidiaGPU), value), byCloud: byCloud, Because: because}
}
