// Every rule of GKE Standard and Autopilot: workloads, machine shapes,
// node pools, live nodes and its own GPU stack.
//
// Upstream sources of its labels and facts: the GKE cluster-autoscaler
// labels package (cloud.google.com/gke-* node labels); Google Cloud's "GPU
// machine types" and "Run GPUs in GKE Standard node pools" pages
// (accelerators, machine shapes, the nvidia.com/gpu=present taint, driver
// install dir); GKE's "Running multi-instance GPUs", "GPU time-sharing" and
// "NVIDIA MPS" pages (partition sizes, sharing labels, client limits); GKE
// Autopilot's "Deploy GPU workloads" page (gke-accelerator-count).

package clouds

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// GKE node labels (GKE cluster-autoscaler labels package; GKE GPU docs).
const (
	GKELabelAccelerator      = "cloud.google.com/gke-accelerator"
	GKELabelAcceleratorCount = "cloud.google.com/gke-accelerator-count"
	GKELabelPartitionSize    = "cloud.google.com/gke-gpu-partition-size"
	GKELabelSharingStrategy  = "cloud.google.com/gke-gpu-sharing-strategy"
	gkeLabelMaxSharedClients = "cloud.google.com/gke-max-shared-clients-per-gpu"
	gkeLabelSpot             = "cloud.google.com/gke-spot"

	// gkeMaxSharedClients is GKE's upper bound for max-shared-clients-per-gpu
	// (time-sharing and MPS).
	gkeMaxSharedClients = 48

	// GKENvidiaLibraryPath is where GKE's device plugin mounts the host
	// driver libraries (host /home/kubernetes/bin/nvidia → /usr/local/nvidia).
	// Stock CUDA images do not search it, hence LD_LIBRARY_PATH.
	GKENvidiaLibraryPath = "/usr/local/nvidia/lib64"

	// gkeDriverInstallDir is where GKE installs the NVIDIA driver on the
	// host (docs/design/clouds.md#gke: GKE's device plugin mounts it from there).
	gkeDriverInstallDir = "/home/kubernetes/bin/nvidia"

	// GKELabelNodePool names the node pool a node belongs to (docs/design/clouds.md).
	GKELabelNodePool = "cloud.google.com/gke-nodepool"

	// gkeGPUTaintValue: GKE itself taints GPU pools nvidia.com/gpu=present
	// when the cluster also has non-GPU pools.
	gkeGPUTaintValue = "present"

	// gkeLabelDriverVersion is the driver GKE installed; absent when the
	// node pool installs none.
	gkeLabelDriverVersion = "cloud.google.com/gke-gpu-driver-version"

	// DRA node-pool labels (GKE "Prepare GKE infrastructure for DRA
	// workloads"; ai-on-gke gpu-fungibility; dra.md §9.2): no GKE device
	// plugin, the DRA kubelet plugin's node affinity without NFD, and the
	// cluster autoscaler's sign that the pool serves claims.
	gkeLabelNoDevicePlugin = "gke-no-default-nvidia-gpu-device-plugin"
	gkeLabelDRADriver      = "cloud.google.com/gke-nvidia-gpu-dra-driver"

	// gkeDriverInstallationDisabled and gkeDriverLatest are
	// gpu_driver_installation_config.gpu_driver_version values.
	gkeDriverInstallationDisabled = "INSTALLATION_DISABLED"
	gkeDriverLatest               = "LATEST"
)

// GKEPartitionSizes are the MIG partitions a GKE node pool can be created
// with (gpu-partition-size). GKE offers a subset of NVIDIA's profiles: none
// of the 4g shapes of the 7-slice parts and not the A100 40GB 1g.10gb (GKE's
// cluster-autoscaler GPU table, partitionSizes; on the 4-slice RTX PRO 6000
// 4g.96gb is the whole GPU and is listed).
var GKEPartitionSizes = map[string][]string{
	"a100-40gb":    {"1g.5gb", "2g.10gb", "3g.20gb", "7g.40gb"},
	"a100-80gb":    {"1g.10gb", "2g.20gb", "3g.40gb", "7g.80gb"},
	"h100-80gb":    {"1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "7g.80gb"},
	"h200":         {"1g.18gb", "1g.35gb", "2g.35gb", "3g.71gb", "7g.141gb"},
	"b200":         {"1g.23gb", "1g.45gb", "2g.45gb", "3g.90gb", "7g.180gb"},
	"gb200":        {"1g.23gb", "1g.47gb", "2g.47gb", "3g.93gb", "7g.186gb"},
	"rtx-pro-6000": {"1g.24gb", "2g.48gb", "4g.96gb"},
}

// gkeProfile covers GKE Standard and Autopilot; they share labels, taints and
// GPU mechanics, Autopilot additionally selects the GPU count.
type gkeProfile struct {
	baseProfile
	autopilot bool
}

func (g gkeProfile) Offers(a *catalog.Accelerator) bool {
	if g.autopilot {
		return slices.Contains(gkeAutopilotModels, a.Name)
	}
	return len(a.GKEAccelerators) > 0
}

// gkeAutopilotModels are the catalog models Autopilot's Accelerator compute
// class provisions (GKE "Deploy GPU workloads in Autopilot",
// https://cloud.google.com/kubernetes-engine/docs/how-to/autopilot-gpus,
// supported GPUs: nvidia-gb200, nvidia-b200, nvidia-h200-141gb, nvidia-h100-mega-80gb,
// nvidia-h100-80gb, nvidia-a100-80gb, nvidia-tesla-a100, nvidia-l4,
// nvidia-tesla-t4, nvidia-rtx-pro-6000). Autopilot has no V100: Standard
// attaches it to N1 machines, which Autopilot does not use.
var gkeAutopilotModels = []string{"a100-40gb", "a100-80gb", "b200", "gb200", "h100-80gb", "h200", "l4", "rtx-pro-6000", "t4"}

func (g gkeProfile) Validate(in GPUIntent, strict bool) gpudiag.Diagnostics {
	var diags gpudiag.Diagnostics
	if in.Partition != nil && in.MIGStrategy == spec.MIGStrategyMixed {
		diags.AddError(gpudiag.At("gpu", "mig_strategy"), "MIG strategy not available on GKE",
			"GKE does not run the NVIDIA device plugin's \"mixed\" strategy: a MIG partition is requested as nvidia.com/gpu "+
				"on nodes labelled "+GKELabelPartitionSize+". Allowed on GKE: \"single\", or leave mig_strategy unset.")
	}
	if in.Partition != nil && len(in.Accelerators) == 1 {
		a := in.Accelerators[0]
		if sizes := GKEPartitionSizes[a.Name]; !slices.Contains(sizes, in.Partition.Name) {
			diags.AddError(gpudiag.At("gpu", "partition"), "MIG partition not offered by GKE",
				"GKE node pools cannot be created with partition "+strconv.Quote(in.Partition.Name)+" on "+a.Name+
					". Partitions GKE offers for "+a.Name+": "+gpudiag.QuoteList(sizes)+".")
		}
	}
	if in.MaxSharedClients > gkeMaxSharedClients {
		diags.AddError(gpudiag.At("gpu", "max_shared_clients"), "Too many shared clients for GKE",
			"GKE allows at most "+strconv.Itoa(gkeMaxSharedClients)+" clients per GPU, got "+
				strconv.FormatInt(in.MaxSharedClients, 10)+". Allowed: 2 to "+strconv.Itoa(gkeMaxSharedClients)+".")
	}
	if g.autopilot && strict && len(in.Accelerators) == 0 {
		diags.AddFinalError(gpudiag.At("gpu", "accelerator"), "GKE Autopilot needs an accelerator",
			"Autopilot provisions GPU nodes only for pods that select "+GKELabelAccelerator+
				"; set accelerator or accelerators. "+offeredByMessage(spec.CloudGKEAutopilot, g))
	}
	return diags
}

// Resource is always nvidia.com/gpu: GKE's own device plugin advertises MIG
// instances and shared slots under that name too, and the node labels in
// place pick the right nodes.
func (gkeProfile) Resource(GPUIntent) corev1.ResourceName { return ResourceNvidiaGPU }

func (g gkeProfile) Place(in GPUIntent) Placement {
	p := NewPlacement(g.Resource(in))
	p.Env["LD_LIBRARY_PATH"] = GKENvidiaLibraryPath
	// GKE taints GPU nodes nvidia.com/gpu=present:NoSchedule when the cluster
	// also has non-GPU pools. GKE's ExtendedResourceToleration admission adds
	// the toleration too; stating it keeps the manifest self-sufficient.
	p.Tolerations = append(p.Tolerations, TolerateGPUTaint())

	for _, a := range in.Accelerators {
		p.AcceleratorTerms = append(p.AcceleratorTerms, []LabelRequirement{{Key: GKELabelAccelerator, Values: a.GKEAccelerators}})
	}
	if in.Partition != nil {
		// The A100 2g.10gb rule: gke-accelerator=nvidia-tesla-a100 (above),
		// gke-gpu-partition-size=2g.10gb, and resource nvidia.com/gpu.
		p.NodeSelector[GKELabelPartitionSize] = in.Partition.Name
		p.Tolerations = append(p.Tolerations, TolerateEqual(GKELabelPartitionSize, in.Partition.Name))
	}
	if in.Partition == nil && !in.DRA {
		// Whole GPUs: keep off partitioned pools, which carry the same
		// accelerator label and taint (Flyte's "unpartitioned" rule).
		p.AbsentLabels = append(p.AbsentLabels, GKELabelPartitionSize)
	}
	if in.Sharing == "" && !in.DRA {
		// Exclusive GPUs: keep off time-shared and MPS pools, whose
		// nvidia.com/gpu capacity counts shared slots, not GPUs.
		p.AbsentLabels = append(p.AbsentLabels, GKELabelSharingStrategy)
	}
	if in.Sharing != "" {
		p.NodeSelector[GKELabelSharingStrategy] = gkeSharingStrategy(in.Sharing)
		if in.MaxSharedClients > 0 {
			p.NodeSelector[gkeLabelMaxSharedClients] = strconv.FormatInt(in.MaxSharedClients, 10)
		}
		// GKE's MPS control daemon talks to clients over host IPC.
		p.HostIPC = in.Sharing == spec.SharingMPS
	}
	if in.Spot {
		p.NodeSelector[gkeLabelSpot] = "true"
		// Spot node pools may be tainted; Autopilot adds this toleration
		// itself, stating it is harmless.
		p.Tolerations = append(p.Tolerations, TolerateEqual(gkeLabelSpot, "true"))
	}
	// Autopilot sizes the node from gke-accelerator-count. It counts
	// physical GPUs, so it is only meaningful for whole-GPU requests (not MIG
	// instances, shared slots or DRA claims).
	if g.autopilot && in.WholeGPUs() && !in.DRA && in.Count > 0 {
		p.NodeSelector[GKELabelAcceleratorCount] = strconv.FormatInt(in.Count, 10)
	}
	return p
}

// gkeSharingStrategy maps our names to GKE's label values (GKE says
// "time-sharing" where NVIDIA says "time-slicing").
func gkeSharingStrategy(sharing string) string {
	if sharing == spec.SharingTimeSlicing {
		return "time-sharing"
	}
	return sharing
}

// CheckEnv: the provider sets LD_LIBRARY_PATH to GKE's driver libraries.
func (gkeProfile) CheckEnv(name, value string, path []any, diags *gpudiag.Diagnostics) {
	if name == "LD_LIBRARY_PATH" && !strings.Contains(value, GKENvidiaLibraryPath) {
		diags.AddWarning(path, "LD_LIBRARY_PATH hides the GKE NVIDIA libraries",
			"On GKE the driver libraries are mounted at "+GKENvidiaLibraryPath+" and the provider sets LD_LIBRARY_PATH to it; "+
				"this value replaces it. Allowed: include "+GKENvidiaLibraryPath+" in the value, or leave LD_LIBRARY_PATH unset.")
	}
}

// GKEMachines lists, per cloud.google.com/gke-accelerator value, the
// machine types GKE node pools can use and their GPU count (Compute Engine
// "GPU machine types", https://cloud.google.com/compute/docs/gpus, and
// "Accelerator-optimized machine family": A2 Standard/Ultra, A3
// High/Mega/Ultra, A4, A4X, G2, G4 and the N1 attachable GPUs; GKE's
// cluster-autoscaler GPU table gives the same counts, e.g. nvidia-gb200 4,
// nvidia-rtx-pro-6000 1, 2, 4, 8). A2, A3, A4, A4X, G2 and G4 machines come
// with their GPUs, so guest_accelerator.count must equal the machine's
// count. N1 GPUs (T4, V100) attach to any N1 machine type within a vCPU
// limit, in the counts listed; name is "" there and the node pool body gets
// GKEN1Machines. G4's fractional sizes (vGPU slices of one GPU) are left out:
// the device plugin serves whole GPUs.
var GKEMachines = map[string][]MachineShape{
	"nvidia-tesla-t4":       {{"", 1}, {"", 2}, {"", 4}},
	"nvidia-tesla-v100":     {{"", 1}, {"", 2}, {"", 4}, {"", 8}},
	"nvidia-l4":             {{"g2-standard-4", 1}, {"g2-standard-8", 1}, {"g2-standard-12", 1}, {"g2-standard-16", 1}, {"g2-standard-32", 1}, {"g2-standard-24", 2}, {"g2-standard-48", 4}, {"g2-standard-96", 8}},
	"nvidia-tesla-a100":     {{"a2-highgpu-1g", 1}, {"a2-highgpu-2g", 2}, {"a2-highgpu-4g", 4}, {"a2-highgpu-8g", 8}, {"a2-megagpu-16g", 16}},
	"nvidia-a100-80gb":      {{"a2-ultragpu-1g", 1}, {"a2-ultragpu-2g", 2}, {"a2-ultragpu-4g", 4}, {"a2-ultragpu-8g", 8}},
	"nvidia-h100-80gb":      {{"a3-highgpu-1g", 1}, {"a3-highgpu-2g", 2}, {"a3-highgpu-4g", 4}, {"a3-highgpu-8g", 8}},
	"nvidia-h100-mega-80gb": {{"a3-megagpu-8g", 8}},
	"nvidia-h200-141gb":     {{"a3-ultragpu-8g", 8}},
	"nvidia-b200":           {{"a4-highgpu-8g", 8}},
	// A4X: four GB200 GPUs per machine. G4: RTX PRO 6000 in 1, 2, 4 or 8.
	"nvidia-gb200":        {{"a4x-highgpu-4g", 4}},
	"nvidia-rtx-pro-6000": {{"g4-standard-48", 1}, {"g4-standard-96", 2}, {"g4-standard-192", 4}, {"g4-standard-384", 8}},
}

// GKEN1Machines is the N1 machine type a node pool gets for attached T4 or
// V100 GPUs: 8 vCPUs per GPU, a standard N1 shape within the vCPU limit
// Compute Engine sets per GPU count (GPU machine types page, N1 table,
// https://cloud.google.com/compute/docs/gpus: T4 with 1 or 2 GPUs up to 48
// vCPUs, 4 up to 96; V100 with 1 GPU up to 12, 2 up to 24, 4 up to 48, 8 up
// to 96; gke_catalog_test.go holds the table to those limits). Without a machine type
// GKE picks its default (e2-medium), which cannot take a GPU. Users who want
// another N1 shape change machine_type on their node pool resource.
var GKEN1Machines = map[string]map[int64]string{
	"nvidia-tesla-t4":   {1: "n1-standard-8", 2: "n1-standard-16", 4: "n1-standard-32"},
	"nvidia-tesla-v100": {1: "n1-standard-8", 2: "n1-standard-16", 4: "n1-standard-32", 8: "n1-standard-64"},
}

// gkeMachineType is the machine type of a node pool with gpus GPUs of a: the
// accelerator-optimized machine that comes with them, or for attached GPUs
// the N1 machine above.
func gkeMachineType(a *catalog.Accelerator, gpus int64) string {
	accelerator := gkePoolAccelerator(a)
	if name := firstValue(MachinesWithGPUs(GKEMachines[accelerator], gpus)); name != "" {
		return name
	}
	return GKEN1Machines[accelerator][gpus]
}

func (gkeProfile) Machines(a *catalog.Accelerator) []MachineShape {
	if a == nil {
		return nil
	}
	return GKEMachines[gkePoolAccelerator(a)]
}

// ExactGPUCounts: Autopilot picks the node from the pod's
// cloud.google.com/gke-accelerator-count selector and accepts only the GPU
// counts its GPU table lists per accelerator (GKE "Deploy GPU workloads in
// Autopilot": e.g. nvidia-tesla-t4 1, 2, 4; nvidia-l4 1, 2, 4, 8), which are
// the counts of the machines above. Standard pools take any count up to a
// machine's.
func (g gkeProfile) ExactGPUCounts() bool { return g.autopilot }

func (gkeProfile) acceleratorForMachine(name string) *catalog.Accelerator {
	for gkeAccel, shapes := range GKEMachines {
		if shapesInclude(shapes, name) {
			return AcceleratorForGKE(gkeAccel)
		}
	}
	return nil
}

// gkePoolAccelerator is the gke-accelerator value a node pool is created
// with: the model's first one. (H100 80GB's second value, the A3 Mega
// variant, only exists as 8-GPU machines; workloads accept both.)
func gkePoolAccelerator(a *catalog.Accelerator) string {
	if a == nil || len(a.GKEAccelerators) == 0 {
		return ""
	}
	return a.GKEAccelerators[0]
}

// AcceleratorForGKE maps a cloud.google.com/gke-accelerator value back to
// the catalog.
func AcceleratorForGKE(value string) *catalog.Accelerator {
	for i := range catalog.Table {
		if slices.Contains(catalog.Table[i].GKEAccelerators, value) {
			return &catalog.Table[i]
		}
	}
	return nil
}

// PoolsUnsupported: Autopilot creates nodes per pod.
func (g gkeProfile) PoolsUnsupported() (summary, detail string) {
	if !g.autopilot {
		return "", ""
	}
	return "GKE Autopilot has no node pools",
		"Autopilot creates nodes per pod from the pod's own GPU request, so there is no pool to describe. " +
			"Allowed: use gpu_workload with cloud = \"gke-autopilot\" directly"
}

// Mechanism: GKE partitions and shares GPUs from node-pool settings.
func (gkeProfile) Mechanism() gpuMechanism { return MechanismCloudNative }

// RejectsMIGLayouts: a GKE node pool has one gpu_partition_size. (Autopilot
// has no pools; the NVIDIA chart values refuse it as a whole.)
func (g gkeProfile) RejectsMIGLayouts() bool { return !g.autopilot }

func (gkeProfile) CheckPoolPartition(pi PoolIntent, rawStrategy string, diags *gpudiag.Diagnostics) {
	a := pi.Accel
	if rawStrategy == spec.MIGStrategyMixed {
		diags.AddError(gpudiag.At("mig_strategy"), "MIG strategy not available on GKE",
			"GKE does not run the NVIDIA device plugin's \"mixed\" strategy: a node pool has one gpu_partition_size and "+
				"partitions are requested as nvidia.com/gpu. Allowed on GKE: \"single\", or leave mig_strategy unset.")
	}
	sizes := GKEPartitionSizes[a.Name]
	if pi.Layout == spec.PartitionAllBalanced || !slices.Contains(sizes, pi.Cut[0].Profile.Name) {
		diags.AddError(gpudiag.At("partition"), "MIG partition not offered by GKE",
			"GKE node pools are created with one gpu_partition_size, and cannot use "+strconv.Quote(pi.Layout)+
				" on "+a.Name+". Allowed on GKE for "+a.Name+": "+gpudiag.QuoteList(sizes)+".")
	}
}

func (gkeProfile) SharedClientsLimit() string {
	return "GKE allows at most " + strconv.Itoa(MaxMPSClients) + " clients per GPU (max_shared_clients_per_gpu)"
}

func (gkeProfile) PoolNotes(p spec.PoolPolicy, _ PoolIntent, diags *gpudiag.Diagnostics) {
	if p.Dedicated != nil && !*p.Dedicated {
		diags.AddWarning(gpudiag.At("dedicated"), "GKE taints GPU nodes itself",
			"GKE adds nvidia.com/gpu=present:NoSchedule to GPU node pools whenever the cluster also has non-GPU pools, "+
				"and dedicated = false cannot remove it. Allowed: leave dedicated unset (true) on GKE.")
	}
}

// poolLabels: GKE labels GPU nodes from the node pool's guest_accelerator,
// spot and driver settings; nothing needs adding.
func (gkeProfile) poolLabels(pi PoolIntent, _, set map[string]string) {
	if v := gkeIntentAccelerator(pi); v != "" {
		set[GKELabelAccelerator] = v
	}
	// gke-accelerator-count is left out: only Autopilot nodes are documented
	// to carry it (docs/design/clouds.md#gke), and Standard placement never needs it.
	// A DRA pool installs no driver through GKE (NodePoolShape), and Google's
	// manual installer runs only where this label is absent (dra.md §9.2).
	if !pi.DRA {
		set[gkeLabelDriverVersion] = "latest"
	}
	if pi.HasMIG() {
		set[GKELabelPartitionSize] = pi.Cut[0].Profile.Name
	}
	if pi.Sharing != "" {
		set[GKELabelSharingStrategy] = gkeSharingStrategy(pi.Sharing)
		if pi.Replicas > 0 {
			set[gkeLabelMaxSharedClients] = strconv.FormatInt(pi.Replicas, 10)
		}
	}
	if pi.Spot {
		set[gkeLabelSpot] = "true"
	}
}

// GKE's topology labels (docs/design/topology.md §1; Google Cloud, "Schedule
// GKE workloads with Topology Aware Scheduling"): block > sub-block > physical
// host, on A4X, A4, A3 Ultra, A3 Mega and A3 High nodes of reserved or
// compact-placed capacity.
const (
	gkeLabelTopologyBlock    = "cloud.google.com/gce-topology-block"
	gkeLabelTopologySubblock = "cloud.google.com/gce-topology-subblock"
	gkeLabelTopologyHost     = "cloud.google.com/gce-topology-host"
)

// topologyLevels: GKE's three levels, all of them by default, as in
// Google's own Kueue Topology.
func (gkeProfile) topologyLevels() []TopologyLevel {
	return []TopologyLevel{
		{Name: "block", NodeLabel: gkeLabelTopologyBlock, Default: true},
		{Name: "subblock", NodeLabel: gkeLabelTopologySubblock, Default: true},
		{Name: "host", NodeLabel: gkeLabelTopologyHost, Default: true},
	}
}

// PoolNameLabel: GKE labels every node with its node pool's name.
func (gkeProfile) PoolNameLabel() string { return GKELabelNodePool }

func (g gkeProfile) poolIdentity(pi PoolIntent, _, _ map[string]string) map[string]string {
	return poolNameIdentity(g.PoolNameLabel(), pi.Name)
}

// poolTaints: present whatever dedicated says: GKE adds it on its own (only
// tolerating pods land), and rejects a second nvidia.com/gpu taint.
func (gkeProfile) poolTaints(PoolIntent) []PoolTaint {
	return []PoolTaint{gpuTaint(gkeGPUTaintValue, "GKE adds it to GPU node pools", true)}
}

func (gkeProfile) AddsGPUTaint() bool { return true }

// selectsSharedClients: gke-max-shared-clients-per-gpu records replicas.
func (gkeProfile) selectsSharedClients(PoolIntent) bool { return true }

func (gkeProfile) NodePoolShape(r *spec.PoolRendered, pi PoolIntent, taints []PoolTaint) {
	np := &spec.GKENodePool{
		MachineType: gkeMachineType(pi.Accel, pi.GPUs),
		// The GPU NICs' networks (gke_network.go).
		AdditionalNodeNetworks: gkeNodeNetworks(pi.Network),
		Spot:                   pi.Spot,
		Labels:                 maps.Clone(r.NodeLabels),
		Taints:                 cloudTaints(taints),
		GuestAccelerator: spec.GKEGuestAccelerator{
			Type: gkeIntentAccelerator(pi), Count: pi.GPUs, GPUDriverVersion: gkeDriverLatest,
		},
	}
	if pi.MachineSet {
		np.MachineType = pi.Machine
	}
	if pi.DRA {
		// GKE's driver installation is unsupported with DRA: the driver
		// comes from Google's installer DaemonSet or the GPU Operator.
		np.GuestAccelerator.GPUDriverVersion = gkeDriverInstallationDisabled
	}
	if pi.HasMIG() {
		np.GuestAccelerator.GPUPartitionSize = pi.Cut[0].Profile.Name
	}
	if pi.Sharing != "" {
		np.GuestAccelerator.GPUSharingStrategy = "TIME_SHARING"
		if pi.Sharing == spec.SharingMPS {
			np.GuestAccelerator.GPUSharingStrategy = "MPS"
		}
		np.GuestAccelerator.MaxSharedClientsPerGPU = pi.Replicas
	}
	r.GKE = np
}

// draPoolLabels: GKE's own device plugin off, the kubelet plugin placed,
// and the autoscaler told the pool serves claims (dra.md §9.2). The
// nvidia.com/gpu=present taint stays: GKE adds it, Google's DRA pods
// tolerate it, and so do the workloads placed here.
func (gkeProfile) draPoolLabels(_ PoolIntent, toAdd, _ map[string]string) {
	toAdd[gkeLabelNoDevicePlugin] = "true"
	toAdd[LabelGPUPresent] = "true"
	toAdd[gkeLabelDRADriver] = "true"
}

// CheckPoolDRA: what Google's DRA page lists as unsupported (dra.md §9.2):
// Autopilot, and GKE's own multi-instance and shared GPUs (the node pool's
// gpu_partition_size and gpu_sharing_config). No copy names a version that
// lifts them; the DRA driver's own MIG and time-slicing (claim config) are
// the way on a whole-GPU pool.
func (g gkeProfile) CheckPoolDRA(p spec.PoolPolicy, _ PoolIntent, diags *gpudiag.Diagnostics) {
	if g.autopilot {
		draNotOnCloud(diags, "GKE Autopilot does not support DRA",
			"Google's DRA set-up page lists Autopilot as unsupported (as are node auto-provisioning and automatic "+
				"driver installation), and names no version that lifts it.")
		return
	}
	if p.Partition != "" {
		diags.AddError(gpudiag.At("partition"), "GKE does not partition DRA node pools",
			"GKE does not support its multi-instance GPUs (gpu_partition_size) on node pools that hand out GPUs through "+
				"DRA, and names no version that lifts it. The DRA driver's own dynamic MIG cuts whole GPUs per claim "+
				"(Kubernetes 1.36, or the DRAPartitionableDevices gate on 1.34/1.35). Allowed: remove partition, or "+
				"gpu_allocation = \""+spec.GPUAllocationDevicePlugin+"\" for a partitioned pool.")
	}
	if p.Sharing != "" {
		diags.AddError(gpudiag.At("sharing"), "GKE does not share GPUs of DRA node pools",
			"GKE does not support its time-sharing or MPS GPUs (gpu_sharing_config) on node pools that hand out GPUs "+
				"through DRA, and names no version that lifts it; the DRA driver shares a GPU through the claim's own "+
				"config instead. Allowed: remove sharing and replicas, or gpu_allocation = \""+spec.GPUAllocationDevicePlugin+
				"\" for a shared pool.")
	}
}

// Classify: Autopilot nodes are named gk3-... and live in auto-provisioned
// (nap-...) pools; NAP on Standard looks the same.
func (gkeProfile) Classify(n *corev1.Node) (NodeClass, bool) {
	l := n.Labels
	if l[GKELabelAccelerator] == "" {
		return NodeClass{}, false
	}
	cloud := spec.CloudGKE
	pool := l[GKELabelNodePool]
	if strings.HasPrefix(n.Name, "gk3-") || strings.HasPrefix(pool, "nap-") {
		cloud = spec.CloudGKEAutopilot
	}
	if pool == "" {
		pool = l[GKELabelAccelerator]
	}
	return NodeClass{Cloud: cloud, Key: string(cloud) + "/" + pool, Product: l[GKELabelAccelerator],
		Accel: AcceleratorForGKE(l[GKELabelAccelerator])}, true
}

func (gkeProfile) MarksGPUNode(l map[string]string) bool { return l[GKELabelAccelerator] != "" }

// ReadPoolState: GKE's partition and sharing labels win over the GPU
// Operator's.
func (gkeProfile) ReadPoolState(l map[string]string, pool *spec.PoolCapacity) {
	pool.MIGPartition = l[GKELabelPartitionSize]
	if gke := l[GKELabelSharingStrategy]; gke != "" {
		pool.Sharing = spec.SharingTimeSlicing // GKE's "time-sharing"
		if gke != "time-sharing" {
			pool.Sharing = gke
		}
		pool.SharedClients = ParseCount(l[gkeLabelMaxSharedClients])
	}
}

// DriverPreinstalled: GKE installs the driver on GPU nodes itself, and its
// device plugin mounts it from /home/kubernetes/bin/nvidia (docs/design/clouds.md#gke),
// which is why driverInstallDir points there.
func (g gkeProfile) DriverPreinstalled() bool { return !g.autopilot }

func (g gkeProfile) DriverInstallDir() string {
	if g.autopilot {
		return ""
	}
	return gkeDriverInstallDir
}

// PartitionLabel: GKE labels MIG nodes with their gpu-partition-size.
func (gkeProfile) PartitionLabel() string { return GKELabelPartitionSize }

// GKEMPSHostIPC says, once for every place that must say it, why a pod
// sharing GPUs through MPS on GKE needs hostIPC: GKE's MPS control daemon
// serves its clients over host IPC (Place sets HostIPC for it). cannotSet
// names what cannot set hostIPC on its pods ("the FiftyOne chart", "a
// Numaflow vertex"); "" is for a pod that had it and would lose it (a
// patch). The text ends with a space, ready for the "Allowed: ..." part.
func GKEMPSHostIPC(cannotSet string) string {
	if cannotSet == "" {
		return "GKE's MPS daemon needs hostIPC: true on the pod. "
	}
	return "GKE's MPS daemon serves clients over host IPC, and " + cannotSet + " cannot set hostIPC on its pods. "
}
