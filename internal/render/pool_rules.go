package render

import (
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	corev1 "k8s.io/api/core/v1"
)

// The parts of cloudProfile beyond workload placement, and the neutral
// answers every profile starts from. A cloud file overrides a method only
// where its cloud behaves differently, so the rules shared by several clouds
// (the GPU Operator's labels, the conventional dedicated taint) live here
// once.

// machineRules: the machine shapes a cloud sells per accelerator.
type machineRules interface {
	// machines lists the shapes of a model, smallest first; nil when the
	// catalog does not know them (any count 1..MaxGPUsPerPod is accepted).
	machines(a *Accelerator) []machineShape
	// acceleratorForMachine recognises a model from a machine type name.
	acceleratorForMachine(name string) *Accelerator
	// exactGPUCounts: a pod must ask for exactly a machine's GPU count
	// (GKE Autopilot sizes the node from gke-accelerator-count), not just
	// no more than the largest machine.
	exactGPUCounts() bool
}

// poolRules: what a node pool policy may say on the cloud, and the labels,
// taints and node-pool shape that follow.
type poolRules interface {
	// poolsUnsupported is a summary and detail when the cloud has no
	// user-managed node pools; empty otherwise. The detail ends with the
	// first allowed alternative; the caller adds the clouds that have pools.
	poolsUnsupported() (summary, detail string)
	// mechanism is who partitions and shares GPUs on the cloud.
	mechanism() gpuMechanism
	// rejectsMIGLayouts: the cloud refuses mig-manager layouts, including
	// all-balanced, whatever the strategy.
	rejectsMIGLayouts() bool
	// checkPoolPartition reports MIG partitions the cloud cannot create.
	// pi has a resolved partition; rawStrategy is mig_strategy as written.
	checkPoolPartition(pi poolIntent, rawStrategy string, diags *gpudiag.Diagnostics)
	// checkPoolSharing reports sharing the cloud cannot configure.
	checkPoolSharing(sharing string, diags *gpudiag.Diagnostics)
	// sharedClientsLimit names who caps clients per GPU at MaxMPSClients
	// for every sharing mode; empty where only MPS is capped.
	sharedClientsLimit() string
	// poolNotes warns about settings that change nothing on the cloud.
	poolNotes(p PoolPolicy, pi poolIntent, diags *gpudiag.Diagnostics)
	// reservedLabelDomains are label domains the cloud keeps for itself.
	reservedLabelDomains() []reservedDomain
	// poolLabels adds the labels someone must put on the nodes (toAdd) and
	// those the cloud sets itself (cloudSet).
	poolLabels(pi poolIntent, toAdd, cloudSet map[string]string)
	// poolTaints are the taints the pool or the cloud adds from dedicated
	// and spot.
	poolTaints(pi poolIntent) []poolTaint
	// addsGPUTaint: the cloud taints GPU nodes itself, whatever dedicated says.
	addsGPUTaint() bool
	// selectsSharedClients: a node label records the pool's replicas, so
	// workloads can select exactly this sharing.
	selectsSharedClients(pi poolIntent) bool
	// nodePoolShape fills the cloud's node-pool body in r.
	nodePoolShape(r *PoolRendered, pi poolIntent, taints []poolTaint)
}

// nodeRules: reading live nodes back (capacity).
type nodeRules interface {
	// classify recognises the cloud's own nodes and names their pool.
	classify(n *corev1.Node) (nodeClass, bool)
	// marksGPUNode: a label of the cloud says the node has GPUs.
	marksGPUNode(l map[string]string) bool
	// readPoolState reads the cloud's MIG and sharing labels, common to
	// every node of a pool, over what the GPU Operator's labels said.
	readPoolState(l map[string]string, pool *PoolCapacity)
}

// stackRules: what the GPU Operator, device plugin and Flyte chart values
// must know about the cloud's own GPU stack.
type stackRules interface {
	// driverPreinstalled: the cloud's node image carries driver and toolkit.
	driverPreinstalled() bool
	// driverInstallDir is where the cloud installs the driver, if not the
	// chart's default.
	driverInstallDir() string
	// managesDevicePlugin: the cloud runs its own device plugin, and a
	// second one would advertise every GPU twice.
	managesDevicePlugin() bool
	// checkNvidiaStack reports why the user cannot, or should not, install
	// what (e.g. "the GPU Operator") on the cloud.
	checkNvidiaStack(what string, block []any, diags *gpudiag.Diagnostics)
	// flytePartitionLabel is the node label naming a node's MIG partition,
	// when the cloud has one Flyte can select on.
	flytePartitionLabel() string
	// flyteNotes warns about placement Flyte cannot express on the cloud.
	flyteNotes(sharing string, diags *gpudiag.Diagnostics)
	// flyteV2Notes warns about what Flyte v2's chart cannot carry.
	flyteV2Notes(diags *gpudiag.Diagnostics)
}

// gpuMechanism is who partitions and shares GPUs on a cloud.
type gpuMechanism int

const (
	// mechanismNone: unknown cloud, nothing is configured.
	mechanismNone gpuMechanism = iota
	// mechanismGPUOperator: node labels select a mig-manager layout and a
	// device plugin config (NVIDIA GPU Operator).
	mechanismGPUOperator
	// mechanismCloudNative: the cloud partitions and shares GPUs from
	// node-pool settings, and its own device plugin advertises MIG
	// instances and shared slots as nvidia.com/gpu (GKE).
	mechanismCloudNative
	// mechanismCloudManaged: the cloud runs a device plugin that reads no
	// per-node config, so neither can be configured (EKS Auto Mode).
	mechanismCloudManaged
)

// reservedDomain is a label domain a pool cannot use, and who keeps it.
type reservedDomain struct{ domain, by string }

// baseProfile is the neutral answer to every rule but workload placement.
type baseProfile struct{}

func (baseProfile) checkEnv(string, string, []any, *gpudiag.Diagnostics) {}

func (baseProfile) machines(*Accelerator) []machineShape      { return nil }
func (baseProfile) acceleratorForMachine(string) *Accelerator { return nil }
func (baseProfile) exactGPUCounts() bool                      { return false }

func (baseProfile) poolsUnsupported() (summary, detail string)                  { return "", "" }
func (baseProfile) mechanism() gpuMechanism                                     { return mechanismNone }
func (baseProfile) rejectsMIGLayouts() bool                                     { return false }
func (baseProfile) checkPoolPartition(poolIntent, string, *gpudiag.Diagnostics) {}
func (baseProfile) checkPoolSharing(string, *gpudiag.Diagnostics)               {}
func (baseProfile) sharedClientsLimit() string                                  { return "" }
func (baseProfile) poolNotes(PoolPolicy, poolIntent, *gpudiag.Diagnostics)      {}
func (baseProfile) reservedLabelDomains() []reservedDomain                      { return nil }
func (baseProfile) poolLabels(poolIntent, map[string]string, map[string]string) {}
func (baseProfile) poolTaints(poolIntent) []poolTaint                           { return nil }
func (baseProfile) addsGPUTaint() bool                                          { return false }
func (baseProfile) selectsSharedClients(poolIntent) bool                        { return false }
func (baseProfile) nodePoolShape(*PoolRendered, poolIntent, []poolTaint)        {}
func (baseProfile) classify(*corev1.Node) (nodeClass, bool)                     { return nodeClass{}, false }
func (baseProfile) marksGPUNode(map[string]string) bool                         { return false }
func (baseProfile) readPoolState(map[string]string, *PoolCapacity)              {}
func (baseProfile) driverPreinstalled() bool                                    { return false }
func (baseProfile) driverInstallDir() string                                    { return "" }
func (baseProfile) managesDevicePlugin() bool                                   { return false }
func (baseProfile) checkNvidiaStack(string, []any, *gpudiag.Diagnostics)        {}
func (baseProfile) flytePartitionLabel() string                                 { return "" }
func (baseProfile) flyteNotes(string, *gpudiag.Diagnostics)                     {}
func (baseProfile) flyteV2Notes(*gpudiag.Diagnostics)                           {}

// operatorProfile is a cloud whose MIG and sharing the GPU Operator
// configures, and which has no GPU taint of its own: a dedicated pool gets
// the conventional one.
type operatorProfile struct{ baseProfile }

func (operatorProfile) mechanism() gpuMechanism { return mechanismGPUOperator }

// resource: the NVIDIA device plugin's names (nvidia.com/mig-<profile>
// under "mixed", nvidia.com/gpu.shared when shared).
func (operatorProfile) resource(in gpuIntent) corev1.ResourceName { return devicePluginResource(in) }

func (operatorProfile) poolTaints(pi poolIntent) []poolTaint { return conventionalGPUTaint(pi) }

// dedicatedGPUTaintValue: EKS node groups, Karpenter and EKS Auto Mode
// NodePools, and GPU Operator clusters have no GPU taint of their own;
// nvidia.com/gpu=true:NoSchedule is the common convention (docs/design/clouds.md,
// docs/design/nvidia.md; it matches the tolerations the GPU Operator's daemonsets carry: key
// nvidia.com/gpu, operator Exists). Workload placement already tolerates it.
const dedicatedGPUTaintValue = "true"

// conventionalGPUTaint is nvidia.com/gpu=true:NoSchedule on dedicated pools.
func conventionalGPUTaint(pi poolIntent) []poolTaint {
	if !pi.dedicated {
		return nil
	}
	return []poolTaint{gpuTaint(dedicatedGPUTaintValue, "dedicated = true", false)}
}

// gpuTaint is an nvidia.com/gpu NoSchedule taint.
func gpuTaint(value, because string, byCloud bool) poolTaint {
	return poolTaint{taint: noScheduleTaint(string(ResourceNvidiaGPU), value), byCloud: byCloud, because: because}
}
