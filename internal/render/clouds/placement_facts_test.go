package clouds_test

import (
	"cmp"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// Independent fact tables for the placement matrix (placement_matrix_test.go).
//
// Everything here is written from the upstream sources named in the comments
// (and docs/design/nvidia.md and docs/design/clouds.md), NOT from the provider's own
// tables: the matrix builds nodes from these facts and asks the Kubernetes
// scheduler's predicates whether the rendered pod fits, so a wrong rule in the
// provider cannot hide behind the same wrong fact. The consistency tests in
// placement_nodes_test.go compare these tables with the catalog and with
// pool.Render's CloudSetLabels, so the two cannot drift apart silently.

// matrixAccel is what the ecosystem says about one GPU model.
type matrixAccel struct {
	// gke is the cloud.google.com/gke-accelerator value (GKE "GPU platforms"
	// and "Run GPUs in Standard node pools" docs).
	gke string
	// gkeCounts are the GPUs per machine GKE offers: N1 attachable GPUs
	// (T4: 1, 2, 4) or the fixed A2/A3/G2 machine shapes (Compute Engine
	// "GPU machine types"). Autopilot offers the same counts (GKE "Deploy
	// GPU workloads in Autopilot", gke-accelerator-count values).
	gkeCounts []int64
	// gkePartitions are the gpu_partition_size values a GKE node pool
	// accepts (GKE "Running multi-instance GPUs": no 4g shapes, no A100
	// 40GB 1g.10gb).
	gkePartitions []string

	// awsName is EC2's lower-case GPU name that Karpenter
	// (karpenter.k8s.aws/instance-gpu-name, aws/karpenter-provider-aws
	// pkg/apis/v1/labels.go) and EKS Auto Mode
	// (eks.amazonaws.com/instance-gpu-name, EKS user guide
	// automode/create-node-pool) put on nodes.
	awsName string
	// awsMemMiB is EC2's per-GPU memory (instance-gpu-memory label, MiB).
	// Only filled where it is verified and needed (a100 is both p4d and
	// p4de); 0 leaves the label off the node.
	awsMemMiB int64
	// eksLabel is the k8s.amazonaws.com/accelerator value: the
	// cluster-autoscaler AWS provider's GPULabel convention (flytekit device
	// names), which a managed node group must be given.
	eksLabel string
	// clouds.AWSMachines maps GPUs per instance to one EC2 instance type (EC2
	// "Accelerated computing" specifications: g4dn, g6, g6e, p4d, p4de, p5).
	awsMachines map[int64]string

	// clouds.AKSMachines maps GPUs per VM to one Azure VM size (Azure "GPU
	// optimized VM sizes": NCasT4_v3, NC A100 v4, ND H100 v5).
	aksMachines map[int64]string

	// gfdProduct is GPU Feature Discovery's nvidia.com/gpu.product (NVML
	// name, spaces to dashes; GFD README "Generated labels"); gfdProductAKS
	// overrides it where the AKS VM carries the PCIe part.
	gfdProduct    string
	gfdProductAKS string

	// mig maps each MIG profile to instances per GPU (NVIDIA MIG user guide
	// "Supported MIG profiles"); balanced is mig-manager's all-balanced
	// layout (GPU Operator default-mig-parted-config).
	mig      map[string]int64
	balanced map[string]int64
}

var (
	matrixMIGA100x40 = map[string]int64{"1g.5gb": 7, "1g.10gb": 4, "2g.10gb": 3, "3g.20gb": 2, "4g.20gb": 1, "7g.40gb": 1}
	matrixMIGx80     = map[string]int64{"1g.10gb": 7, "1g.20gb": 4, "2g.20gb": 3, "3g.40gb": 2, "4g.40gb": 1, "7g.80gb": 1}
)

// matrixAccels are the models the matrix uses; each cloud picks the ones it
// offers (matrixCloudAccels).
var matrixAccels = map[string]matrixAccel{
	"t4": {
		gke: "nvidia-tesla-t4", gkeCounts: []int64{1, 2, 4},
		awsName: "t4", eksLabel: "nvidia-tesla-t4",
		awsMachines: map[int64]string{1: "g4dn.xlarge", 4: "g4dn.12xlarge", 8: "g4dn.metal"},
		aksMachines: map[int64]string{1: "Standard_NC4as_T4_v3", 4: "Standard_NC64as_T4_v3"},
		gfdProduct:  "Tesla-T4",
	},
	"l4": {
		gke: "nvidia-l4", gkeCounts: []int64{1, 2, 4, 8},
		awsName: "l4", eksLabel: "nvidia-l4",
		awsMachines: map[int64]string{1: "g6.xlarge", 4: "g6.12xlarge", 8: "g6.48xlarge"},
		gfdProduct:  "NVIDIA-L4",
	},
	"l40s": {
		awsName: "l40s", eksLabel: "nvidia-l40s",
		awsMachines: map[int64]string{1: "g6e.xlarge", 4: "g6e.12xlarge", 8: "g6e.48xlarge"},
		gfdProduct:  "NVIDIA-L40S",
	},
	"a100-40gb": {
		gke: "nvidia-tesla-a100", gkeCounts: []int64{1, 2, 4, 8, 16},
		gkePartitions: []string{"1g.5gb", "2g.10gb", "3g.20gb", "7g.40gb"},
		awsName:       "a100", awsMemMiB: 40960, eksLabel: "nvidia-tesla-a100",
		awsMachines: map[int64]string{8: "p4d.24xlarge"},
		aksMachines: map[int64]string{8: "Standard_ND96asr_v4"},
		gfdProduct:  "NVIDIA-A100-SXM4-40GB",
		mig:         matrixMIGA100x40,
		balanced:    map[string]int64{"1g.5gb": 2, "2g.10gb": 1, "3g.20gb": 1},
	},
	"a100-80gb": {
		gke: "nvidia-a100-80gb", gkeCounts: []int64{1, 2, 4, 8},
		gkePartitions: []string{"1g.10gb", "2g.20gb", "3g.40gb", "7g.80gb"},
		awsName:       "a100", awsMemMiB: 81920, eksLabel: "nvidia-a100-80gb",
		awsMachines: map[int64]string{8: "p4de.24xlarge"},
		aksMachines: map[int64]string{1: "Standard_NC24ads_A100_v4", 2: "Standard_NC48ads_A100_v4", 4: "Standard_NC96ads_A100_v4", 8: "Standard_ND96amsr_A100_v4"},
		gfdProduct:  "NVIDIA-A100-SXM4-80GB", gfdProductAKS: "NVIDIA-A100-80GB-PCIe",
		mig:      matrixMIGx80,
		balanced: map[string]int64{"1g.10gb": 2, "2g.20gb": 1, "3g.40gb": 1},
	},
	"h100-80gb": {
		gke: "nvidia-h100-80gb", gkeCounts: []int64{1, 2, 4, 8},
		gkePartitions: []string{"1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "7g.80gb"},
		awsName:       "h100", eksLabel: "nvidia-h100",
		awsMachines: map[int64]string{1: "p5.4xlarge", 8: "p5.48xlarge"},
		aksMachines: map[int64]string{8: "Standard_ND96isr_H100_v5"},
		gfdProduct:  "NVIDIA-H100-80GB-HBM3",
		mig:         matrixMIGx80,
		balanced:    map[string]int64{"1g.10gb": 2, "2g.20gb": 1, "3g.40gb": 1},
	},
	// RTX PRO 6000 Blackwell Server Edition: GKE G4 (Compute Engine "GPU
	// machine types"; GKE autoscaler GPU table: 1, 2, 4, 8 GPUs and
	// partitions 1g.24gb, 2g.48gb, 4g.96gb), EC2 G7e (accelerated computing
	// specifications), MIG from the GPU Operator's default-mig-parted-config
	// (four slices at most).
	"rtx-pro-6000": {
		gke: "nvidia-rtx-pro-6000", gkeCounts: []int64{1, 2, 4, 8},
		gkePartitions: []string{"1g.24gb", "2g.48gb", "4g.96gb"},
		eksLabel:      "nvidia-rtx-pro-6000",
		awsMachines:   map[int64]string{1: "g7e.2xlarge", 2: "g7e.12xlarge", 4: "g7e.24xlarge", 8: "g7e.48xlarge"},
		gfdProduct:    "NVIDIA-RTX-PRO-6000-Blackwell-Server-Edition",
		mig:           map[string]int64{"1g.24gb": 4, "2g.48gb": 2, "4g.96gb": 1},
		balanced:      map[string]int64{"1g.24gb": 2, "2g.48gb": 1},
	},
	// H100 NVL (94 GB): Azure NC H100 v5 (NC40ads 1 GPU, NC80adis 2), MIG
	// from the GPU Operator's default-mig-parted-config "H100 NVL" layouts.
	"h100-nvl": {
		aksMachines: map[int64]string{1: "Standard_NC40ads_H100_v5", 2: "Standard_NC80adis_H100_v5"},
		gfdProduct:  "NVIDIA-H100-NVL",
		mig:         map[string]int64{"1g.12gb": 7, "1g.24gb": 4, "2g.24gb": 3, "3g.47gb": 2, "4g.47gb": 1, "7g.94gb": 1},
		balanced:    map[string]int64{"1g.12gb": 2, "2g.24gb": 1, "3g.47gb": 1},
	},
}

// matrixCloudAccels are the models each cloud's rows and pools use: one or
// two whole-GPU models, and MIG models where the cloud can partition.
var matrixCloudAccels = map[spec.Cloud][]string{
	spec.CloudGKE:          {"t4", "l4", "a100-40gb", "h100-80gb", "rtx-pro-6000"},
	spec.CloudGKEAutopilot: {"t4", "l4", "a100-40gb", "rtx-pro-6000"},
	spec.CloudAKS:          {"t4", "a100-80gb", "h100-80gb", "h100-nvl"},
	spec.CloudEKS:          {"t4", "l40s", "a100-40gb", "a100-80gb", "rtx-pro-6000"},
	spec.CloudEKSAuto:      {"t4", "l40s", "a100-40gb", "a100-80gb"},
	spec.CloudKarpenter:    {"l4", "l40s", "a100-40gb", "a100-80gb"},
	spec.CloudGeneric:      {"t4", "l4", "a100-40gb", "h100-80gb"},
}

// machineCounts are the GPUs per machine a cloud offers for a model; nil on
// generic clusters (any machine, up to MaxGPUsPerPod).
func (a matrixAccel) machineCounts(c spec.Cloud) []int64 {
	switch c {
	case spec.CloudGKE, spec.CloudGKEAutopilot:
		return a.gkeCounts
	case spec.CloudAKS:
		return machineCountsOf(a.aksMachines)
	case spec.CloudEKS, spec.CloudEKSAuto, spec.CloudKarpenter:
		return machineCountsOf(a.awsMachines)
	}
	return nil
}

func machineCountsOf(m map[int64]string) []int64 { return slices.Sorted(maps.Keys(m)) }

// Node label keys, by who sets them.
const (
	// GKE (GKE GPU, MIG, time-sharing, MPS and Spot VM docs).
	factGKEAccelerator      = "cloud.google.com/gke-accelerator"
	factGKEAcceleratorCount = "cloud.google.com/gke-accelerator-count" // Autopilot nodes
	factGKEDriverVersion    = "cloud.google.com/gke-gpu-driver-version"
	factGKEPartitionSize    = "cloud.google.com/gke-gpu-partition-size"
	factGKESharingStrategy  = "cloud.google.com/gke-gpu-sharing-strategy"
	factGKEMaxShared        = "cloud.google.com/gke-max-shared-clients-per-gpu"
	factGKESpot             = "cloud.google.com/gke-spot"
	factGKENodePool         = "cloud.google.com/gke-nodepool"

	// AKS (azure-aks-docs use-labels.md, spot-node-pool.md).
	factAKSAccelerator = "kubernetes.azure.com/accelerator"
	factAKSAgentPool   = "kubernetes.azure.com/agentpool"
	factAKSPriority    = "kubernetes.azure.com/scalesetpriority"

	// EKS managed node groups (EKS user guide "Managed node groups":
	// eks.amazonaws.com/capacityType, eks.amazonaws.com/nodegroup).
	factEKSCapacityType = "eks.amazonaws.com/capacityType"
	factEKSNodeGroup    = "eks.amazonaws.com/nodegroup"
	// factEKSAccelerator is the cluster-autoscaler convention: nothing on
	// EKS sets it, the node group must (pool.Render lists it in NodeLabels).
	factEKSAccelerator = "k8s.amazonaws.com/accelerator"

	// Karpenter and EKS Auto Mode (karpenter.sh well-known labels; AWS
	// provider labels.go; EKS user guide automode/create-node-pool).
	factKarpenterCapacityType = "karpenter.sh/capacity-type"
	factKarpenterNodePool     = "karpenter.sh/nodepool"
	factEKSAutoComputeType    = "eks.amazonaws.com/compute-type"

	// Kubernetes well-known label.
	factInstanceType = "node.kubernetes.io/instance-type"

	// NVIDIA GPU Operator (controllers/state_manager.go) and GPU Feature
	// Discovery (GFD README "Generated labels"; device-plugin labels).
	factGPUPresent      = "nvidia.com/gpu.present"
	factGFDProduct      = "nvidia.com/gpu.product"
	factGFDCount        = "nvidia.com/gpu.count"
	factGFDReplicas     = "nvidia.com/gpu.replicas"
	factGFDSharing      = "nvidia.com/gpu.sharing-strategy"
	factGFDMIGStrategy  = "nvidia.com/mig.strategy"
	factGFDMIGCapable   = "nvidia.com/mig.capable"
	factResourceGPU     = "nvidia.com/gpu"
	factSharedSuffix    = ".shared" // k8s-device-plugin DefaultSharedResourceNameSuffix
	factGKETaintValue   = "present" // GKE's nvidia.com/gpu taint value
	factGKESharingTS    = "time-sharing"
	factGKESharingMPS   = "mps"
	factAKSSpotValue    = "spot"
	factDevicePluginMIG = "nvidia.com/mig-" // mixed strategy: nvidia.com/mig-<profile>
)

// gfdMIGCountLabel is GFD's per-profile count label under the mixed
// strategy: nvidia.com/mig-<profile>.count.
func gfdMIGCountLabel(profile string) string { return factDevicePluginMIG + profile + ".count" }

// profilesBySize lists the MIG profiles smallest first: most instances per
// GPU first, then by name.
func (a matrixAccel) profilesBySize() []string {
	return slices.SortedFunc(maps.Keys(a.mig), func(x, y string) int {
		return cmp.Or(cmp.Compare(a.mig[y], a.mig[x]), strings.Compare(x, y))
	})
}

// TestPlacementMachineCountsMatchRenderPool: pool.Render accepts exactly
// the GPUs-per-node counts the facts list as machines of that cloud.
func TestPlacementMachineCountsMatchRenderPool(t *testing.T) {
	for _, c := range []spec.Cloud{spec.CloudGKE, spec.CloudAKS, spec.CloudEKS, spec.CloudEKSAuto, spec.CloudKarpenter} {
		for _, name := range matrixCloudAccels[c] {
			counts := matrixAccels[name].machineCounts(c)
			for n := int64(1); n <= spec.MaxGPUsPerPod; n++ {
				p := spec.PoolPolicy{Name: "count", Cloud: string(c), Accelerator: name, GPUsPerNode: n}
				_, diags := pool.Render(p)
				if accepted, want := !diags.HasError(), slices.Contains(counts, n); accepted != want {
					t.Errorf("%s %s x%d: RenderPool accepts it = %v, facts have such a machine = %v", c, name, n, accepted, want)
				}
			}
		}
	}
}
