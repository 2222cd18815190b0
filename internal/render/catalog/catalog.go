package catalog

import (
	"slices"
	"sort"
	"strings"
)

// MIGProfile is one Multi-Instance GPU partition shape, named the way the
// NVIDIA device plugin and GKE name it ("2g.10gb": 2 compute slices, 10 GB).
type MIGProfile struct {
	Name string
	// InstancesPerGPU is how many of this profile fit on one physical GPU when
	// the whole GPU uses this profile (NVIDIA MIG user guide "supported
	// profiles" tables). Capacity math multiplies it by GPUs per node.
	InstancesPerGPU int
	// MemorySlices is how many of the GPU's memory slices one instance
	// occupies (the "Fraction of Memory" column of the same tables: 1g.5gb
	// is 1/8 of an A100 40GB, 3g.20gb 4/8). Layout checks add them up.
	MemorySlices int
}

// MixedResourceName is the extended resource the device plugin advertises for
// this profile under the "mixed" MIG strategy: nvidia.com/mig-<profile>, with
// "+" (media-extension profiles) replaced by "." (k8s-device-plugin
// internal/rm/rm.go).
func (p MIGProfile) MixedResourceName() string {
	return "nvidia.com/mig-" + strings.ReplaceAll(p.Name, "+", ".")
}

// DriverProduct is one product as the NVIDIA driver reports it.
type DriverProduct struct {
	// Name is NVML's device name, e.g. "NVIDIA H100 80GB HBM3"; GFD's
	// product label is the same with spaces as '-'.
	Name string
	// MemoryMiB is the memory NVML reports for it (81559 on an H100 80GB
	// HBM3), a little under the nominal MemoryMiB. The DRA driver publishes
	// it, in bytes, as the device's memory capacity.
	MemoryMiB int64
}

// GFDProduct is the name as GPU Feature Discovery labels it
// (nvidia.com/gpu.product): spaces become '-'.
func (p DriverProduct) GFDProduct() string { return strings.ReplaceAll(p.Name, " ", "-") }

// DriverProductNames are the DriverProducts' names, in catalog order.
func (a Accelerator) DriverProductNames() []string {
	out := make([]string, len(a.DriverProducts))
	for i, p := range a.DriverProducts {
		out[i] = p.Name
	}
	return out
}

// GFDProductsWithoutDriverName are the GFDProducts no DriverProduct
// names: variants of the model a claim selecting DriverProducts misses.
func (a Accelerator) GFDProductsWithoutDriverName() []string {
	var out []string
	for _, gfd := range a.GFDProducts {
		if !slices.ContainsFunc(a.DriverProducts, func(p DriverProduct) bool { return p.GFDProduct() == gfd }) {
			out = append(out, gfd)
		}
	}
	return out
}

// Accelerator is one GPU model and every name the ecosystem uses for it.
// Empty per-cloud fields mean that cloud does not offer the model.
type Accelerator struct {
	// Name is the stable catalog id used in configuration, e.g. "a100-40gb".
	Name        string
	DisplayName string
	// MemoryMiB is the nominal memory of one GPU.
	MemoryMiB int64

	// GKEAccelerators are the cloud.google.com/gke-accelerator values GKE uses
	// for this model. H100 80GB has two (A3 High and A3 Mega machines carry the
	// same GPU), so this is a list.
	GKEAccelerators []string

	// AWSGPUName is the lower-case EC2 GPU name that EKS Auto Mode
	// (eks.amazonaws.com/instance-gpu-name) and Karpenter
	// (karpenter.k8s.aws/instance-gpu-name) put on nodes.
	AWSGPUName string
	// AWSGPUMemoryMiB is EC2's per-GPU memory for this model. It is only set
	// where AWSGPUName is shared by two models (a100: p4d vs p4de; v100: p3 vs
	// p3dn) so placement can tell them apart with the instance-gpu-memory label.
	AWSGPUMemoryMiB int64
	// EKSAccelerator is the k8s.amazonaws.com/accelerator value for EKS managed
	// node groups. EKS does not set this label itself: it is the
	// cluster-autoscaler convention you apply to node groups. We use the
	// flytekit device names so one labelling scheme serves Flyte too.
	EKSAccelerator string
	// AWSInstanceTypes pins node.kubernetes.io/instance-type on EKS managed
	// node groups. Only set where EKSAccelerator is shared by two models (V100
	// 16GB and 32GB are both "nvidia-tesla-v100").
	AWSInstanceTypes []string

	// AKSVMSizes are the Azure VM sizes carrying this model, for
	// node.kubernetes.io/instance-type. Empty means AKS does not offer it.
	AKSVMSizes []string

	// GFDProducts are the nvidia.com/gpu.product values GPU Feature Discovery
	// sets (NVML name, spaces → dashes). PCIe and SXM variants differ, so a list.
	GFDProducts []string

	// DriverProducts are the product names the NVIDIA driver reports for
	// this model (NVML's device name, spaces and all), which NVIDIA's DRA
	// driver publishes as the productName attribute of every device: DRA
	// claims select the model by them. Only names read off a real GPU are
	// listed (docs/design/dra.md#4-real-gpu-data-worksharedgpu-labels); each
	// is one of GFDProducts with its spaces kept. A model without any cannot
	// be selected by product in a claim, and validation says so.
	DriverProducts []DriverProduct

	// MIGProfiles lists the partition shapes the model supports; empty means
	// the model has no MIG.
	MIGProfiles []MIGProfile

	// DefaultSize is the sizing preset (workload/sizing.go) used when the workload sets
	// neither size nor cpu/memory. It is the largest preset that fits, per
	// GPU, on the smallest common VM shape carrying this model.
	DefaultSize string

	// NVLinkDomains is true for rack-scale NVLink models (NVL72: GB200,
	// GB300), whose trays share one NVLink domain across nodes. Only there
	// can a workload span nodes over NVLink, through a ComputeDomain of
	// NVIDIA's DRA driver (docs/design/dra.md §1.6).
	NVLinkDomains bool
}

// NVLinkDomainAcceleratorNames lists the models whose nodes share NVLink
// domains across nodes, sorted.
func NVLinkDomainAcceleratorNames() []string {
	var names []string
	for i := range Table {
		if Table[i].NVLinkDomains {
			names = append(names, Table[i].Name)
		}
	}
	return names
}

// OffersMIG reports whether the model can be partitioned.
func (a Accelerator) OffersMIG() bool { return len(a.MIGProfiles) > 0 }

// LookupMIGProfile finds a partition shape by name.
func (a Accelerator) LookupMIGProfile(name string) (MIGProfile, bool) {
	for _, p := range a.MIGProfiles {
		if p.Name == name {
			return p, true
		}
	}
	return MIGProfile{}, false
}

// MIGProfileNames lists the partition names, smallest first.
func (a Accelerator) MIGProfileNames() []string {
	names := make([]string, len(a.MIGProfiles))
	for i, p := range a.MIGProfiles {
		names[i] = p.Name
	}
	return names
}

// GFDMIGProducts are the nvidia.com/gpu.product values GFD sets on a node
// whose GPUs are all partitioned into profile under the "single" strategy:
// "<product>-MIG-<profile>", e.g. NVIDIA-A100-SXM4-40GB-MIG-2g.10gb. (The GFD
// README example "A100-SXM4-40GB-MIG-1g.5gb" predates drivers that prefix
// product names with "NVIDIA ".)
func (a Accelerator) GFDMIGProducts(profile MIGProfile) []string {
	out := make([]string, len(a.GFDProducts))
	for i, product := range a.GFDProducts {
		out[i] = product + "-MIG-" + profile.Name
	}
	return out
}

// Accelerators returns the whole catalog sorted by Name. The result is a
// copy: callers may modify it.
func Accelerators() []Accelerator {
	out := make([]Accelerator, len(Table))
	for i := range Table {
		out[i] = Table[i].clone()
	}
	return out
}

// LookupAccelerator finds a model by its catalog id (exact, lower case).
func LookupAccelerator(name string) (Accelerator, bool) {
	a := Find(name)
	if a == nil {
		return Accelerator{}, false
	}
	return a.clone(), true
}

// AcceleratorNames lists every catalog id, sorted. Schema descriptions and
// validators use it so allowed values have one source.
func AcceleratorNames() []string {
	names := make([]string, len(Table))
	for i := range Table {
		names[i] = Table[i].Name
	}
	return names
}

// MIGAcceleratorNames lists the models that support MIG, sorted.
func MIGAcceleratorNames() []string {
	var names []string
	for i := range Table {
		if Table[i].OffersMIG() {
			names = append(names, Table[i].Name)
		}
	}
	return names
}

// Find returns the catalog entry itself; callers must not modify
// it. It avoids the copies LookupAccelerator makes on the render hot path.
func Find(name string) *Accelerator {
	i := sort.Search(len(Table), func(i int) bool { return Table[i].Name >= name })
	if i < len(Table) && Table[i].Name == name {
		return &Table[i]
	}
	return nil
}

func (a Accelerator) clone() Accelerator {
	a.GKEAccelerators = slices.Clone(a.GKEAccelerators)
	a.AWSInstanceTypes = slices.Clone(a.AWSInstanceTypes)
	a.AKSVMSizes = slices.Clone(a.AKSVMSizes)
	a.GFDProducts = slices.Clone(a.GFDProducts)
	a.DriverProducts = slices.Clone(a.DriverProducts)
	a.MIGProfiles = slices.Clone(a.MIGProfiles)
	return a
}

// MIG profile tables (NVIDIA MIG user guide, "Supported MIG Profiles"; the
// GPU Operator's default-mig-parted-config carries the same names). Only
// profiles whose compute-instance count equals the GPU-instance count are
// advertised by the device plugin, so "+me" variants are left out. The H100
// 80GB and H200 tables are held to `nvidia-smi mig -lgip` read on real GPUs
// (catalog_gfd_test.go, testdata/gfd).
var (
	migA100x40GB = []MIGProfile{{"1g.5gb", 7, 1}, {"1g.10gb", 4, 2}, {"2g.10gb", 3, 2}, {"3g.20gb", 2, 4}, {"4g.20gb", 1, 4}, {"7g.40gb", 1, 8}}
	// A100 80GB and H100 80GB share the same 80 GB layout.
	migX80GB = []MIGProfile{{"1g.10gb", 7, 1}, {"1g.20gb", 4, 2}, {"2g.20gb", 3, 2}, {"3g.40gb", 2, 4}, {"4g.40gb", 1, 4}, {"7g.80gb", 1, 8}}
	// A30 has 4 compute and 4 memory slices, not 7 and 8.
	migA30  = []MIGProfile{{"1g.6gb", 4, 1}, {"2g.12gb", 2, 2}, {"4g.24gb", 1, 4}}
	migH200 = []MIGProfile{{"1g.18gb", 7, 1}, {"1g.35gb", 4, 2}, {"2g.35gb", 3, 2}, {"3g.71gb", 2, 4}, {"4g.71gb", 1, 4}, {"7g.141gb", 1, 8}}
	// B200 (180 GB): confirmed against the GPU Operator's mig-parted
	// config names (all-1g.23gb ... all-7g.180gb) and GKE's autoscaler GPU
	// table; instance counts and memory fractions as for the other 7-slice
	// parts.
	migB200 = []MIGProfile{{"1g.23gb", 7, 1}, {"1g.45gb", 4, 2}, {"2g.45gb", 3, 2}, {"3g.90gb", 2, 4}, {"4g.90gb", 1, 4}, {"7g.180gb", 1, 8}}
	// GB200 (186 GB), H100 NVL (94 GB) and RTX PRO 6000 (96 GB): the
	// all-<profile> layouts of the GPU Operator's default-mig-parted-config
	// (NVIDIA/gpu-operator assets/state-mig-manager/0400_configmap.yaml),
	// whose counts are the instances per GPU. GKE's cluster-autoscaler GPU
	// table lists the same GB200 and RTX PRO 6000 shapes.
	migGB200   = []MIGProfile{{"1g.23gb", 7, 1}, {"1g.47gb", 4, 2}, {"2g.47gb", 3, 2}, {"3g.93gb", 2, 4}, {"4g.93gb", 1, 4}, {"7g.186gb", 1, 8}}
	migH100NVL = []MIGProfile{{"1g.12gb", 7, 1}, {"1g.24gb", 4, 2}, {"2g.24gb", 3, 2}, {"3g.47gb", 2, 4}, {"4g.47gb", 1, 4}, {"7g.94gb", 1, 8}}
	// RTX PRO 6000 splits into at most four, like the A30: 4 compute and 4
	// memory slices (1g.24gb is a quarter of 96 GB).
	migRTXPro6000 = []MIGProfile{{"1g.24gb", 4, 1}, {"2g.48gb", 2, 2}, {"4g.96gb", 1, 4}}
	// HGX B300 (269 GB visible): GPU Operator 25.10.0 release notes, "Added
	// support for new MIG profiles with NVIDIA HGX B300"; AWS's
	// sagemaker-hyperpod-cli lists the same six for p6-b300.48xlarge.
	migB300 = []MIGProfile{{"1g.34gb", 7, 1}, {"1g.67gb", 4, 2}, {"2g.67gb", 3, 2}, {"3g.135gb", 2, 4}, {"4g.135gb", 1, 4}, {"7g.269gb", 1, 8}}
)

// Table must stay sorted by Name: Find binary-searches it and
// a test enforces the order.
var Table = []Accelerator{
	{
		// Azure-only part: NVadsA10 v5. Only the sizes with whole GPUs are
		// listed; the smaller sizes are vGPU fractions (1/6 to 1/2 of a GPU)
		// that the NVIDIA device plugin does not serve as nvidia.com/gpu.
		Name: "a10", DisplayName: "NVIDIA A10", MemoryMiB: 24576,
		AKSVMSizes:  []string{"Standard_NV36ads_A10_v5", "Standard_NV72ads_A10_v5"},
		GFDProducts: []string{"NVIDIA-A10"},
		DefaultSize: SizeSmall,
	},
	{
		Name: "a100-40gb", DisplayName: "NVIDIA A100 40GB", MemoryMiB: 40960,
		GKEAccelerators: []string{"nvidia-tesla-a100"},
		AWSGPUName:      "a100", AWSGPUMemoryMiB: 40960, // p4d.24xlarge
		EKSAccelerator: "nvidia-tesla-a100",
		AKSVMSizes:     []string{"Standard_ND96asr_v4"},
		GFDProducts:    []string{"NVIDIA-A100-SXM4-40GB", "NVIDIA-A100-PCIE-40GB"},
		MIGProfiles:    migA100x40GB,
		DefaultSize:    SizeLarge,
	},
	{
		Name: "a100-80gb", DisplayName: "NVIDIA A100 80GB", MemoryMiB: 81920,
		GKEAccelerators: []string{"nvidia-a100-80gb"},
		AWSGPUName:      "a100", AWSGPUMemoryMiB: 81920, // p4de.24xlarge
		EKSAccelerator: "nvidia-a100-80gb",
		AKSVMSizes:     []string{"Standard_NC24ads_A100_v4", "Standard_NC48ads_A100_v4", "Standard_NC96ads_A100_v4", "Standard_ND96amsr_A100_v4"},
		GFDProducts:    []string{"NVIDIA-A100-SXM4-80GB", "NVIDIA-A100-80GB-PCIe"},
		MIGProfiles:    migX80GB,
		DefaultSize:    SizeLarge,
	},
	{
		Name: "a10g", DisplayName: "NVIDIA A10G", MemoryMiB: 24576,
		// AWS-only part (g5): no GKE, no AKS.
		AWSGPUName:     "a10g",
		EKSAccelerator: "nvidia-a10g",
		GFDProducts:    []string{"NVIDIA-A10G"},
		DefaultSize:    SizeSmall,
	},
	{
		Name: "a30", DisplayName: "NVIDIA A30", MemoryMiB: 24576,
		// Not offered by GKE, AWS or AKS; on-premises (generic) only.
		GFDProducts: []string{"NVIDIA-A30"},
		MIGProfiles: migA30,
		DefaultSize: SizeMedium,
	},
	{
		Name: "b200", DisplayName: "NVIDIA B200", MemoryMiB: 184320,
		GKEAccelerators: []string{"nvidia-b200"},
		AWSGPUName:      "b200", // p6-b200
		EKSAccelerator:  "nvidia-b200",
		GFDProducts:     []string{"NVIDIA-B200"},
		MIGProfiles:     migB200,
		DefaultSize:     SizeLarge,
	},
	{
		// HGX B300 (Blackwell Ultra): NVIDIA quotes 288 GB of HBM3e, the GPU
		// shows 269 GB (the 7g.269gb whole-GPU profile; AWS quotes about
		// 2.1 TB for the eight GPUs of a P6-B300), as B200's 192 GB show as
		// 180. AWS P6-B300 (8 GPUs). EKS managed node groups carry our
		// accelerator label; Karpenter's instance-gpu-name value for it is
		// not confirmed, so Karpenter and EKS Auto Mode do not offer it
		// (AWSGPUName empty) rather than guess. GKE and AKS have no HGX B300
		// machine (their Blackwell Ultra machines carry GB300).
		Name: "b300", DisplayName: "NVIDIA B300", MemoryMiB: 275456,
		EKSAccelerator: "nvidia-b300",
		GFDProducts:    []string{"NVIDIA-B300-SXM6-AC"},
		MIGProfiles:    migB300,
		DefaultSize:    SizeLarge,
	},
	{
		// Grace Blackwell GB200 (186 GB per GPU, the 7g.186gb whole-GPU MIG
		// profile; four GPUs per machine): GKE A4X (nvidia-gb200), AWS
		// P6e-GB200, Azure ND GB200 v6. Karpenter's instance-gpu-name value
		// is not confirmed, so Karpenter and EKS Auto Mode do not offer it.
		Name: "gb200", DisplayName: "NVIDIA GB200", MemoryMiB: 190464,
		GKEAccelerators: []string{"nvidia-gb200"},
		EKSAccelerator:  "nvidia-gb200",
		AKSVMSizes:      []string{"Standard_ND128isr_NDR_GB200_v6"},
		GFDProducts:     []string{"NVIDIA-GB200"},
		MIGProfiles:     migGB200,
		DefaultSize:     SizeLarge,
		NVLinkDomains:   true,
	},
	{
		Name: "h100-80gb", DisplayName: "NVIDIA H100 80GB", MemoryMiB: 81920,
		GKEAccelerators: []string{"nvidia-h100-80gb", "nvidia-h100-mega-80gb"},
		AWSGPUName:      "h100", // p5
		EKSAccelerator:  "nvidia-h100",
		// Only the ND H100 v5 carries the 80 GB SXM part; the NC H100 v5 sizes
		// carry the 94 GB H100 NVL, a different model with different MIG shapes.
		AKSVMSizes:  []string{"Standard_ND96isr_H100_v5"},
		GFDProducts: []string{"NVIDIA-H100-80GB-HBM3", "NVIDIA-H100-PCIe"},
		// Read with nvidia-smi on a real H100 SXM (testdata/gfd); the PCIe
		// part's driver name is not confirmed.
		DriverProducts: []DriverProduct{{Name: "NVIDIA H100 80GB HBM3", MemoryMiB: 81559}},
		MIGProfiles:    migX80GB,
		DefaultSize:    SizeLarge,
	},
	{
		// H100 NVL (94 GB, PCIe): Azure NC H100 v5. A different model from the
		// 80 GB SXM part, with its own MIG shapes (7g.94gb).
		Name: "h100-nvl", DisplayName: "NVIDIA H100 NVL", MemoryMiB: 96256,
		AKSVMSizes:  []string{"Standard_NC40ads_H100_v5", "Standard_NC80adis_H100_v5"},
		GFDProducts: []string{"NVIDIA-H100-NVL"},
		MIGProfiles: migH100NVL,
		DefaultSize: SizeLarge,
	},
	{
		Name: "h200", DisplayName: "NVIDIA H200", MemoryMiB: 144384,
		GKEAccelerators: []string{"nvidia-h200-141gb"},
		AWSGPUName:      "h200", // p5e, p5en
		EKSAccelerator:  "nvidia-h200",
		AKSVMSizes:      []string{"Standard_ND96isr_H200_v5"},
		GFDProducts:     []string{"NVIDIA-H200", "NVIDIA-H200-NVL"},
		// Read with nvidia-smi on a real H200 SXM (testdata/gfd); the NVL
		// part's driver name is not confirmed.
		DriverProducts: []DriverProduct{{Name: "NVIDIA H200", MemoryMiB: 143771}},
		MIGProfiles:    migH200,
		DefaultSize:    SizeLarge,
	},
	{
		Name: "l4", DisplayName: "NVIDIA L4", MemoryMiB: 24576,
		GKEAccelerators: []string{"nvidia-l4"},
		AWSGPUName:      "l4", // g6
		EKSAccelerator:  "nvidia-l4",
		GFDProducts:     []string{"NVIDIA-L4"},
		DefaultSize:     SizeSmall,
	},
	{
		Name: "l40s", DisplayName: "NVIDIA L40S", MemoryMiB: 49152,
		AWSGPUName:     "l40s", // g6e
		EKSAccelerator: "nvidia-l40s",
		GFDProducts:    []string{"NVIDIA-L40S"},
		DefaultSize:    SizeSmall,
	},
	{
		// RTX PRO 6000 Blackwell Server Edition (96 GB): GKE G4
		// (nvidia-rtx-pro-6000), AWS G7e. Karpenter's instance-gpu-name value is
		// not confirmed, so only EKS managed node groups offer it on AWS.
		Name: "rtx-pro-6000", DisplayName: "NVIDIA RTX PRO 6000", MemoryMiB: 98304,
		GKEAccelerators: []string{"nvidia-rtx-pro-6000"},
		EKSAccelerator:  "nvidia-rtx-pro-6000",
		GFDProducts:     []string{"NVIDIA-RTX-PRO-6000-Blackwell-Server-Edition"},
		MIGProfiles:     migRTXPro6000,
		DefaultSize:     SizeMedium,
	},
	{
		Name: "t4", DisplayName: "NVIDIA T4", MemoryMiB: 16384,
		GKEAccelerators: []string{"nvidia-tesla-t4"},
		AWSGPUName:      "t4", // g4dn
		EKSAccelerator:  "nvidia-tesla-t4",
		AKSVMSizes:      []string{"Standard_NC4as_T4_v3", "Standard_NC8as_T4_v3", "Standard_NC16as_T4_v3", "Standard_NC64as_T4_v3"},
		GFDProducts:     []string{"Tesla-T4"},
		DefaultSize:     SizeSmall,
	},
	{
		Name: "v100-16gb", DisplayName: "NVIDIA V100 16GB", MemoryMiB: 16384,
		GKEAccelerators: []string{"nvidia-tesla-v100"},
		AWSGPUName:      "v100", AWSGPUMemoryMiB: 16384,
		EKSAccelerator:   "nvidia-tesla-v100",
		AWSInstanceTypes: []string{"p3.2xlarge", "p3.8xlarge", "p3.16xlarge"},
		AKSVMSizes:       []string{"Standard_NC6s_v3", "Standard_NC12s_v3", "Standard_NC24s_v3", "Standard_NC24rs_v3"},
		GFDProducts:      []string{"Tesla-V100-SXM2-16GB", "Tesla-V100-PCIE-16GB"},
		DefaultSize:      SizeSmall,
	},
	{
		Name: "v100-32gb", DisplayName: "NVIDIA V100 32GB", MemoryMiB: 32768,
		// GKE's nvidia-tesla-v100 is the 16 GB part.
		AWSGPUName: "v100", AWSGPUMemoryMiB: 32768,
		EKSAccelerator:   "nvidia-tesla-v100",
		AWSInstanceTypes: []string{"p3dn.24xlarge"},
		AKSVMSizes:       []string{"Standard_ND40rs_v2"},
		GFDProducts:      []string{"Tesla-V100-SXM2-32GB", "Tesla-V100-PCIE-32GB", "Tesla-V100S-PCIE-32GB"},
		DefaultSize:      SizeSmall,
	},
}
