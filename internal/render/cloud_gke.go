package render

import (
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
)

// GKE node labels (GKE cluster-autoscaler labels package; GKE GPU docs).
const (
	gkeLabelAccelerator      = "cloud.google.com/gke-accelerator"
	gkeLabelAcceleratorCount = "cloud.google.com/gke-accelerator-count"
	gkeLabelPartitionSize    = "cloud.google.com/gke-gpu-partition-size"
	gkeLabelSharingStrategy  = "cloud.google.com/gke-gpu-sharing-strategy"
	gkeLabelMaxSharedClients = "cloud.google.com/gke-max-shared-clients-per-gpu"
	gkeLabelSpot             = "cloud.google.com/gke-spot"

	// gkeMaxSharedClients is GKE's upper bound for max-shared-clients-per-gpu
	// (time-sharing and MPS).
	gkeMaxSharedClients = 48

	// gkeNvidiaLibraryPath is where GKE's device plugin mounts the host
	// driver libraries (host /home/kubernetes/bin/nvidia → /usr/local/nvidia).
	// Stock CUDA images do not search it, hence LD_LIBRARY_PATH.
	gkeNvidiaLibraryPath = "/usr/local/nvidia/lib64"
)

// gkePartitionSizes are the MIG partitions a GKE node pool can be created
// with (gpu-partition-size). GKE offers a subset of NVIDIA's profiles: none
// of the 4g shapes and not the A100 40GB 1g.10gb (GKE autoscaler GPU table).
var gkePartitionSizes = map[string][]string{
	"a100-40gb": {"1g.5gb", "2g.10gb", "3g.20gb", "7g.40gb"},
	"a100-80gb": {"1g.10gb", "2g.20gb", "3g.40gb", "7g.80gb"},
	"h100-80gb": {"1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "7g.80gb"},
	"h200":      {"1g.18gb", "1g.35gb", "2g.35gb", "3g.71gb", "7g.141gb"},
	"b200":      {"1g.23gb", "1g.45gb", "2g.45gb", "3g.90gb", "7g.180gb"},
}

// gkeProfile covers GKE Standard and Autopilot; they share labels, taints and
// GPU mechanics, Autopilot additionally selects the GPU count.
type gkeProfile struct{ autopilot bool }

func (gkeProfile) offers(a *Accelerator) bool { return len(a.GKEAccelerators) > 0 }

func (g gkeProfile) validate(in gpuIntent, strict bool) Diagnostics {
	var diags Diagnostics
	if in.partition != nil && in.migStrategy == MIGStrategyMixed {
		diags.addError(at("gpu", "mig_strategy"), "MIG strategy not available on GKE",
			"GKE does not run the NVIDIA device plugin's \"mixed\" strategy: a MIG partition is requested as nvidia.com/gpu "+
				"on nodes labelled "+gkeLabelPartitionSize+". Allowed on GKE: \"single\", or leave mig_strategy unset.")
	}
	if in.partition != nil && len(in.accelerators) == 1 {
		a := in.accelerators[0]
		if sizes := gkePartitionSizes[a.Name]; !slices.Contains(sizes, in.partition.Name) {
			diags.addError(at("gpu", "partition"), "MIG partition not offered by GKE",
				"GKE node pools cannot be created with partition "+strconv.Quote(in.partition.Name)+" on "+a.Name+
					". Partitions GKE offers for "+a.Name+": "+quoteList(sizes)+".")
		}
	}
	if in.maxSharedClients > gkeMaxSharedClients {
		diags.addError(at("gpu", "max_shared_clients"), "Too many shared clients for GKE",
			"GKE allows at most "+strconv.Itoa(gkeMaxSharedClients)+" clients per GPU, got "+
				strconv.FormatInt(in.maxSharedClients, 10)+". Allowed: 2 to "+strconv.Itoa(gkeMaxSharedClients)+".")
	}
	if g.autopilot && strict && len(in.accelerators) == 0 {
		diags.addError(at("gpu", "accelerator"), "GKE Autopilot needs an accelerator",
			"Autopilot provisions GPU nodes only for pods that select "+gkeLabelAccelerator+
				"; set accelerator or accelerators. "+offeredByMessage(CloudGKEAutopilot))
	}
	return diags
}

// resource is always nvidia.com/gpu: GKE's own device plugin advertises MIG
// instances and shared slots under that name too, and the node labels in
// place pick the right nodes.
func (gkeProfile) resource(gpuIntent) corev1.ResourceName { return ResourceNvidiaGPU }

func (g gkeProfile) place(in gpuIntent) placement {
	p := newPlacement(g.resource(in))
	p.env["LD_LIBRARY_PATH"] = gkeNvidiaLibraryPath
	// GKE taints GPU nodes nvidia.com/gpu=present:NoSchedule when the cluster
	// also has non-GPU pools. GKE's ExtendedResourceToleration admission adds
	// the toleration too; stating it keeps the manifest self-sufficient.
	p.tolerations = append(p.tolerations, tolerateGPUTaint())

	for _, a := range in.accelerators {
		p.acceleratorTerms = append(p.acceleratorTerms, []labelRequirement{{key: gkeLabelAccelerator, values: a.GKEAccelerators}})
	}
	if in.partition != nil {
		// The A100 2g.10gb rule: gke-accelerator=nvidia-tesla-a100 (above),
		// gke-gpu-partition-size=2g.10gb, and resource nvidia.com/gpu.
		p.nodeSelector[gkeLabelPartitionSize] = in.partition.Name
		p.tolerations = append(p.tolerations, tolerateEqual(gkeLabelPartitionSize, in.partition.Name))
	}
	if in.partition == nil && !in.dra {
		// Whole GPUs: keep off partitioned pools, which carry the same
		// accelerator label and taint (Flyte's "unpartitioned" rule).
		p.absentLabels = append(p.absentLabels, gkeLabelPartitionSize)
	}
	if in.sharing == "" && !in.dra {
		// Exclusive GPUs: keep off time-shared and MPS pools, whose
		// nvidia.com/gpu capacity counts shared slots, not GPUs.
		p.absentLabels = append(p.absentLabels, gkeLabelSharingStrategy)
	}
	if in.sharing != "" {
		p.nodeSelector[gkeLabelSharingStrategy] = gkeSharingStrategy(in.sharing)
		if in.maxSharedClients > 0 {
			p.nodeSelector[gkeLabelMaxSharedClients] = strconv.FormatInt(in.maxSharedClients, 10)
		}
		// GKE's MPS control daemon talks to clients over host IPC.
		p.hostIPC = in.sharing == SharingMPS
	}
	if in.spot {
		p.nodeSelector[gkeLabelSpot] = "true"
		// Spot node pools may be tainted; Autopilot adds this toleration
		// itself, stating it is harmless.
		p.tolerations = append(p.tolerations, tolerateEqual(gkeLabelSpot, "true"))
	}
	// Autopilot sizes the node from gke-accelerator-count. It counts
	// physical GPUs, so it is only meaningful for whole-GPU requests (not MIG
	// instances, shared slots or DRA claims).
	if g.autopilot && in.wholeGPUs() && !in.dra && in.count > 0 {
		p.nodeSelector[gkeLabelAcceleratorCount] = strconv.FormatInt(in.count, 10)
	}
	return p
}

// gkeSharingStrategy maps our names to GKE's label values (GKE says
// "time-sharing" where NVIDIA says "time-slicing").
func gkeSharingStrategy(sharing string) string {
	if sharing == SharingTimeSlicing {
		return "time-sharing"
	}
	return sharing
}
