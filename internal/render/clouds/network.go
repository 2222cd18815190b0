package clouds

import (
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// The GPU-to-GPU network of a pool's machine type (issue #42): what a pod
// must ask for so NCCL uses the machines' GPU NICs instead of falling back
// to TCP sockets. Each cloud's file (eks_network.go, gke_network.go,
// aks_network.go, generic_network.go) holds its table of machine types and
// how a pod gets the NICs; this file holds what they share. The facts and
// their sources are in docs/design/gpu-networks.md.

// Network kinds, one per mechanism a pod gets the NICs through.
const (
	// NetworkEFA: AWS Elastic Fabric Adapter, an extended resource of the
	// EFA device plugin plus huge pages.
	NetworkEFA = "efa"
	// NetworkTCPX and NetworkTCPXO: GKE GPUDirect-TCPX (A3 High) and -TCPXO
	// (A3 Mega): multi-network annotations and a receive daemon beside the
	// workload.
	NetworkTCPX  = "gpudirect-tcpx"
	NetworkTCPXO = "gpudirect-tcpxo"
	// NetworkGKERDMA: GKE GPUDirect RDMA (A3 Ultra, A4, A4X): RDMA
	// networks by annotation and Google's NCCL plugin from the host.
	NetworkGKERDMA = "gpudirect-rdma"
	// NetworkInfiniBand: AKS ND-series InfiniBand through the Network
	// Operator's RDMA device plugin.
	NetworkInfiniBand = "infiniband"
	// NetworkRDMA: any cluster's RDMA device plugin (Network Operator).
	NetworkRDMA = "rdma"
)

// NetworkKindNames lists the network kinds, for documentation.
func NetworkKindNames() []string {
	return []string{NetworkEFA, NetworkTCPX, NetworkTCPXO, NetworkGKERDMA, NetworkInfiniBand, NetworkRDMA}
}

// GPUNetwork is one machine type's GPU network.
type GPUNetwork struct {
	Kind    string
	Machine string
	// GPUs and NICs of one machine.
	GPUs, NICs int64
	// Resource is the extended resource that hands out the NICs
	// (vpc.amazonaws.com/efa, rdma/ib); "" where pods get them through
	// interface annotations (GKE), which cannot be split between pods.
	Resource corev1.ResourceName
	// Devices is how many of Resource a pod asking every GPU requests:
	// NICs, or 1 for a shared device plugin (each unit opens every NIC).
	Devices int64
	// HugePagesMi is the 2 MiB huge pages (in MiB) a pod asking every GPU
	// requests (EFA's libfabric allocates from them).
	HugePagesMi int64
	// Advertiser is what puts Resource (and the huge pages) on the nodes,
	// named when a pool's nodes lack them.
	Advertiser string
	// Unknown says why the pods cannot get the network (NetworkUnknown).
	Unknown string
	// pod gives the pod pieces for a pod with devices of Resource (all of
	// them for networks without one).
	pod func(n GPUNetwork, devices int64) NetworkPod
}

// NetworkPod is what a pod needs for its share of a GPU network, beside
// its GPUs. The workload merges it into the pod it renders; pod_placement
// hands it out for pods the provider does not own.
type NetworkPod struct {
	// Resources are added to the GPU container's requests and limits
	// (extended resources and huge pages must have them equal).
	Resources corev1.ResourceList
	// Annotations go on the pod (GKE's network interfaces and device
	// injection).
	Annotations map[string]string
	// Sidecars are native sidecars: init containers with restartPolicy
	// Always, so a Job completes when its main container does.
	Sidecars []corev1.Container
	Volumes  []corev1.Volume
	// Mounts and Env are the GPU container's (the user's env wins).
	Mounts []corev1.VolumeMount
	Env    map[string]string
	// IPCLock adds IPC_LOCK to the GPU container: RDMA pins host memory,
	// and without it the locked-memory limit is 64 KiB.
	IPCLock bool
	// Advertiser is what puts Resources on the nodes (GPUNetwork.Advertiser).
	Advertiser string
}

// Share is how many of Resource a pod with gpus GPUs gets: every device
// when it asks every GPU, else the devices in proportion when that is a
// whole number (p5.48xlarge: 4 EFA per GPU) or one unit of a shared
// device plugin. ok is false when the pod's GPUs match no whole share, or
// the network goes to whole machines only (GKE).
func (n GPUNetwork) Share(gpus int64) (int64, bool) {
	switch {
	case gpus == n.GPUs:
		return n.Devices, true
	case gpus <= 0 || gpus > n.GPUs || n.Resource == "":
		return 0, false
	case n.Devices == 1:
		return 1, true
	case n.Devices*gpus%n.GPUs != 0:
		return 0, false
	}
	return n.Devices * gpus / n.GPUs, true
}

// PodFor is the pod pieces of a pod with gpus GPUs; ok as for Share.
func (n GPUNetwork) PodFor(gpus int64) (NetworkPod, bool) {
	devices, ok := n.Share(gpus)
	if !ok || n.pod == nil {
		return NetworkPod{}, false
	}
	pod := n.pod(n, devices)
	if n.HugePagesMi > 0 {
		if pod.Resources == nil {
			pod.Resources = corev1.ResourceList{}
		}
		// Huge pages in proportion too: two pods on one node must fit the
		// pages the node pre-allocated.
		pages := n.HugePagesMi * gpus / n.GPUs
		pod.Resources[ResourceHugePages2Mi] = resource.MustParse(strconv.FormatInt(pages, 10) + "Mi")
	}
	return pod, true
}

// ShareCounts lists the GPU counts that get a whole share, ascending, for
// findings.
func (n GPUNetwork) ShareCounts() []int64 {
	var out []int64
	for g := int64(1); g <= n.GPUs; g++ {
		if _, ok := n.Share(g); ok {
			out = append(out, g)
		}
	}
	return out
}

// Summary is the network as the pool's outputs describe it.
func (n GPUNetwork) Summary() *spec.PoolNetwork {
	s := &spec.PoolNetwork{Kind: n.Kind, NICs: n.NICs}
	if pod, ok := n.PodFor(n.GPUs); ok && len(pod.Resources) > 0 {
		s.ResourcesPerPod = map[string]string{}
		for name, q := range pod.Resources {
			s.ResourcesPerPod[string(name)] = q.String()
		}
	}
	return s
}

// ResourceHugePages2Mi is the 2 MiB huge pages resource.
const ResourceHugePages2Mi corev1.ResourceName = "hugepages-2Mi"

// resourcePod is the pod of a network handed out as an extended resource.
func resourcePod(n GPUNetwork, devices int64) NetworkPod {
	return NetworkPod{Resources: corev1.ResourceList{n.Resource: *resource.NewQuantity(devices, resource.DecimalSI)},
		Advertiser: n.Advertiser}
}

// rdmaSettings is implemented by clouds whose RDMA resource is the
// cluster's choice (AKS, generic): the default name, "" when there is
// none and the pool must name it.
type rdmaSettings interface {
	defaultRDMAResource() string
}

// NetworkState says whether a pool's machines have a GPU network and
// whether its workloads get it.
type NetworkState int

const (
	// NetworkNone: the machine type has no GPU network (or the pool is
	// not resolved far enough to say).
	NetworkNone NetworkState = iota
	// NetworkOn: workloads on the pool get it.
	NetworkOn
	// NetworkOff: the machines have one; the pool turns it off.
	NetworkOff
	// NetworkUnknown: the machines have one the provider cannot give the
	// pods: its device count is not known here, or the machine types the
	// pool may launch have different counts. GPUNetwork.Unknown says which.
	NetworkUnknown
)

// uncountedNetworks is implemented by clouds with machine types known to
// have a GPU network the provider cannot give the pods (a device count not
// checked at a source yet): the network's kind and why, "" for other
// machine types.
type uncountedNetworks interface {
	uncountedNetwork(machine string) (kind, why string)
}

// NetworkOf is the GPU network of a resolved pool intent: the machine
// type's, unless the pool turns it off.
func NetworkOf(pi PoolIntent, settings *spec.PoolGPUNetwork) (GPUNetwork, NetworkState) {
	if !pi.Cloud.Known() || (pi.Machine == "" && pi.Cloud.Name() != spec.CloudGeneric) {
		return GPUNetwork{}, NetworkNone
	}
	n, ok := pi.Cloud.machineNetwork(pi.Machine, settings)
	if !ok {
		return uncounted(pi, settings)
	}
	if !sameNetworkOnEveryMachine(pi, n, settings) {
		n = GPUNetwork{Kind: n.Kind, Machine: pi.Machine, Unknown: "the machine types the pool may launch (" +
			strings.Join(pi.LaunchedMachines(), ", ") + ") have different " + n.Kind + " device counts, and a pod's " +
			"count must fit every node: set machine_type"}
		return n, stateOf(settings, NetworkUnknown)
	}
	if n.GPUs == 0 {
		n.GPUs = pi.GPUs // generic: the pool's count is the machine's
	}
	return n, stateOf(settings, NetworkOn)
}

// stateOf is state unless the pool turns its network off.
func stateOf(settings *spec.PoolGPUNetwork, state NetworkState) NetworkState {
	if settings.Off() {
		return NetworkOff
	}
	return state
}

// uncounted is the network of a machine type the cloud knows has one
// whose device count is not known here; NetworkNone for the others.
func uncounted(pi PoolIntent, settings *spec.PoolGPUNetwork) (GPUNetwork, NetworkState) {
	cloud, ok := pi.Cloud.Profile.(uncountedNetworks)
	if !ok {
		return GPUNetwork{}, NetworkNone
	}
	kind, why := cloud.uncountedNetwork(pi.Machine)
	if kind == "" {
		return GPUNetwork{}, NetworkNone
	}
	return GPUNetwork{Kind: kind, Machine: pi.Machine, Unknown: why}, stateOf(settings, NetworkUnknown)
}

// sameNetworkOnEveryMachine: a pool whose shape may launch several machine
// types (an EKS node group's instance_types) has a network only when each
// has the same one, since the pods' NIC count must fit every node
// (p5e.48xlarge has 32 EFA, p5en.48xlarge 16: set machine_type).
func sameNetworkOnEveryMachine(pi PoolIntent, n GPUNetwork, settings *spec.PoolGPUNetwork) bool {
	for _, m := range pi.LaunchedMachines() {
		other, ok := pi.Cloud.machineNetwork(m, settings)
		if !ok || other.Kind != n.Kind || other.NICs != n.NICs || other.Devices != n.Devices {
			return false
		}
	}
	return true
}

// PoolNetwork is NetworkOf for a pool policy as a workload sees it (after
// pool.Apply validated it): its cloud, model, GPU count and machine type.
func PoolNetwork(p spec.PoolPolicy) (GPUNetwork, NetworkState) {
	pi := placementIntent(p)
	pi.GPUs = p.GPUsPerNode
	pi.Machine = ResolveMachine(pi.Cloud, pi.Accel, p.GPUsPerNode, p.MachineType)
	return NetworkOf(pi, p.GPUNetwork)
}

// CheckPoolNetwork reports gpu_network settings the pool's machine type
// cannot take. pi has its machine resolved.
func CheckPoolNetwork(pi PoolIntent, settings *spec.PoolGPUNetwork, diags *gpudiag.Diagnostics) {
	if settings == nil || !pi.Cloud.Known() {
		return
	}
	checkRDMASettings(pi, settings, diags)
	n, state := NetworkOf(pi, settings)
	if settings.Enabled != nil && *settings.Enabled && state == NetworkNone && pi.Machine != "" {
		diags.AddError(gpudiag.At("gpu_network", "enabled"), "The machine type has no GPU network",
			strconv.Quote(pi.Machine)+" has no GPU-to-GPU network the provider knows on "+string(pi.Cloud.Name())+
				". Allowed: remove gpu_network, or a machine_type with one: "+gpudiag.QuoteList(NetworkMachines(pi.Cloud, pi.Accel))+".")
	}
	if settings.Enabled != nil && *settings.Enabled && state == NetworkUnknown {
		diags.AddError(gpudiag.At("gpu_network", "enabled"), "The GPU network cannot be given",
			strconv.Quote(pi.Machine)+" has a "+n.Kind+" network, but "+n.Unknown+". Allowed: remove enabled = true, "+
				"or a machine_type whose network the provider knows: "+gpudiag.QuoteList(NetworkMachines(pi.Cloud, pi.Accel))+".")
	}
	if state == NetworkOn && settings.RDMADevices > 0 && settings.RDMADevices != 1 && settings.RDMADevices != n.NICs && n.NICs > 0 {
		diags.AddError(gpudiag.At("gpu_network", "rdma_devices"), "RDMA devices do not match the NICs",
			"rdma_devices is "+strconv.FormatInt(settings.RDMADevices, 10)+" but "+strconv.Quote(pi.Machine)+" has "+
				strconv.FormatInt(n.NICs, 10)+" NICs for "+strconv.FormatInt(n.GPUs, 10)+" GPUs. Allowed: "+
				strconv.FormatInt(n.NICs, 10)+" (one per NIC: the SR-IOV device plugin) or 1 (the shared device plugin).")
	}
}

// checkRDMASettings: only clouds whose RDMA resource is the cluster's
// choice take rdma_resource and rdma_devices; generic needs the name.
func checkRDMASettings(pi PoolIntent, settings *spec.PoolGPUNetwork, diags *gpudiag.Diagnostics) {
	rdma, takes := pi.Cloud.Profile.(rdmaSettings)
	if !takes {
		for _, attr := range []struct {
			name string
			set  bool
		}{{"rdma_resource", settings.RDMAResource != ""}, {"rdma_devices", settings.RDMADevices != 0}} {
			if attr.set {
				diags.AddError(gpudiag.At("gpu_network", attr.name), "No RDMA resource on "+string(pi.Cloud.Name()),
					"The GPU network of "+string(pi.Cloud.Name())+" is not an RDMA device plugin's resource, so "+attr.name+
						" has nothing to set. Allowed: remove "+attr.name+"; it applies on \"aks\" and \"generic\".")
			}
		}
		return
	}
	if rdma.defaultRDMAResource() == "" && settings.RDMAResource == "" && !settings.Off() {
		diags.AddError(gpudiag.At("gpu_network", "rdma_resource"), "Name the RDMA resource",
			"On "+string(pi.Cloud.Name())+" the GPU network is the resource the cluster's RDMA device plugin advertises, "+
				"which its NicClusterPolicy names. Allowed: e.g. \"rdma/rdma_shared_device_a\" (the Network Operator's "+
				"shared device plugin) or \"nvidia.com/hostdev\" (SR-IOV), or enabled = false.")
	}
}

// NetworkMachines lists the cloud's machine types of a model that have a
// GPU network, for findings.
func NetworkMachines(c Cloud, a *catalog.Accelerator) []string {
	var out []string
	for _, s := range poolMachineShapes(c, a) {
		if _, ok := c.machineNetwork(s.Name, nil); ok && s.Name != "" && !slices.Contains(out, s.Name) {
			out = append(out, s.Name)
		}
	}
	return out
}
