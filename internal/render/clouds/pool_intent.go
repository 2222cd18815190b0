package clouds

import (
	"strings"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// PoolIntent is a PoolPolicy resolved against the catalog. Fields are zero
// when the value is unset, unknown or invalid.
type PoolIntent struct {
	Name string
	// Cloud is looked up once, when the pool is validated.
	Cloud Cloud
	Accel *catalog.Accelerator
	GPUs  int64
	// Layout is the mig-manager layout ("all-2g.10gb", "all-balanced") and
	// cut what one GPU is cut into; both empty without MIG.
	Layout      string
	Cut         []MIGSlice
	MIGStrategy string // single or mixed, with MIG
	Sharing     string
	Replicas    int64
	Spot        bool
	Dedicated   bool
	Labels      map[string]string
	Taints      []spec.Taint
	// DRA: the nodes hand out GPUs through NVIDIA's DRA driver
	// (gpu_allocation = "dra"); no device plugin config, no MIG strategy.
	DRA bool
	// Machine is the pool's machine type (ResolveMachine); MachineSet is
	// true when machine_type chose it, so the shapes name that one alone.
	Machine    string
	MachineSet bool
	// Network is the GPU network the pool's workloads get (NetworkOf); nil
	// when the machines have none or the pool turns it off.
	Network *GPUNetwork
}

func (pi PoolIntent) HasMIG() bool { return len(pi.Cut) > 0 }

// usesGPUOperator: MIG and sharing are configured through the GPU Operator
// (node labels + device plugin config); the cloud's profile says whether
// (mechanism).
func (pi PoolIntent) usesGPUOperator() bool {
	return pi.Cloud.Mechanism() == MechanismGPUOperator
}

func (pi PoolIntent) NeedsDevicePluginConfig() bool {
	return pi.usesGPUOperator() && !pi.DRA && (pi.Sharing != "" || pi.HasMIG())
}

// MIGSlice is one profile of a MIG layout and how many instances of it one
// GPU carries.
type MIGSlice struct {
	Profile catalog.MIGProfile
	PerGPU  int64
}

// MIGBalanced is the GPU Operator's "all-balanced" layout per model
// (NVIDIA/gpu-operator assets/state-mig-manager/0400_configmap.yaml,
// default-mig-parted-config, key all-balanced, one device-filter per model).
// The local fixture generic-a100-mig-mixed (8 x A100 40GB: 16 x 1g.5gb,
// 8 x 2g.10gb, 8 x 3g.20gb) is this layout.
var MIGBalanced = map[string][]struct {
	Name   string
	PerGPU int64
}{
	"a100-40gb": {{"1g.5gb", 2}, {"2g.10gb", 1}, {"3g.20gb", 1}},
	"a100-80gb": {{"1g.10gb", 2}, {"2g.20gb", 1}, {"3g.40gb", 1}},
	"h100-80gb": {{"1g.10gb", 2}, {"2g.20gb", 1}, {"3g.40gb", 1}},
	"h200":      {{"1g.18gb", 2}, {"2g.35gb", 1}, {"3g.71gb", 1}},
	"b200":      {{"1g.23gb", 2}, {"2g.45gb", 1}, {"3g.90gb", 1}},
	"a30":       {{"1g.6gb", 2}, {"2g.12gb", 1}},
	// "GB200 HGX", "H100 NVL, H800 NVL" and "RTX-PRO-6000-96GB" filters.
	"gb200":        {{"1g.23gb", 2}, {"2g.47gb", 1}, {"3g.93gb", 1}},
	"h100-nvl":     {{"1g.12gb", 2}, {"2g.24gb", 1}, {"3g.47gb", 1}},
	"rtx-pro-6000": {{"1g.24gb", 2}, {"2g.48gb", 1}},
	// HGX B300: the GPU Operator 25.10.0 all-balanced entry.
	"b300": {{"1g.34gb", 2}, {"2g.67gb", 1}, {"3g.135gb", 1}},
}

// MIGLayoutPrefix is how mig-manager names single-profile layouts:
// "all-<profile>" (the same default config as above; every profile in the
// catalog has one).
const MIGLayoutPrefix = "all-"

// ResolveMIGPartition turns a pool's partition attribute into the
// mig-manager layout name and what one GPU is cut into: a profile "p" or
// "all-p" is layout "all-p", and all-balanced is MIGBalanced's entry for
// the model. ok is false when a does not support the partition.
func ResolveMIGPartition(raw string, a *catalog.Accelerator) (layout string, cut []MIGSlice, ok bool) {
	if a == nil {
		return "", nil, false
	}
	if raw == spec.PartitionAllBalanced {
		return balancedLayout(a)
	}
	profile, known := a.LookupMIGProfile(strings.TrimPrefix(raw, MIGLayoutPrefix))
	if !known {
		return "", nil, false
	}
	return MIGLayoutPrefix + profile.Name, []MIGSlice{{Profile: profile, PerGPU: int64(profile.InstancesPerGPU)}}, true
}

func balancedLayout(a *catalog.Accelerator) (layout string, cut []MIGSlice, ok bool) {
	entries, found := MIGBalanced[a.Name]
	if !found {
		return "", nil, false
	}
	for _, e := range entries {
		profile, known := a.LookupMIGProfile(e.Name)
		if !known {
			return "", nil, false
		}
		cut = append(cut, MIGSlice{Profile: profile, PerGPU: e.PerGPU})
	}
	return spec.PartitionAllBalanced, cut, true
}

// placementIntent is as much of a validated pool policy's intent as its
// workloads' placement needs (PoolPlacementExtras): the cloud, the model,
// the MIG layout, DRA, the machine type it names and the pool's own labels.
func placementIntent(p spec.PoolPolicy) PoolIntent {
	pi := PoolIntent{Name: p.Name, Cloud: Lookup(spec.Cloud(p.Cloud)), Accel: catalog.Find(p.Accelerator),
		Labels: p.Labels, DRA: p.UsesDRA(), Machine: p.MachineType, MachineSet: p.MachineType != ""}
	pi.Layout, pi.Cut, _ = ResolveMIGPartition(p.Partition, pi.Accel)
	return pi
}

// WorkloadGPU is the gpu block of a one-unit workload on the pool. pool.Apply
// fills workloads from it and pool.Render places with it, which is what keeps
// the two in agreement.
func (pi PoolIntent) WorkloadGPU() spec.GPU {
	g := spec.GPU{Count: 1, Sharing: pi.Sharing, MaxSharedClients: pi.SelectableClients()}
	if pi.Accel != nil {
		g.Accelerator = pi.Accel.Name
	}
	if pi.HasMIG() {
		// all-balanced: any profile places the same under "mixed" (only the
		// resource name differs), so the first stands for the layout.
		g.Partition = pi.Cut[0].Profile.Name
		g.MIGStrategy = pi.MIGStrategy
	}
	if pi.DRA {
		// The claim names the pool's class (dra.PoolDeviceClassName; the
		// clouds package cannot import dra, so pool.Apply and pool.Render
		// fill the class in): what every workload on the pool gets.
		g.DRA = &spec.DRA{}
	}
	return g
}

// SelectableClients is the replicas count where a node label records it
// (GKE's gke-max-shared-clients-per-gpu; GFD's nvidia.com/gpu.replicas,
// which covers nvidia.com/gpu only), so workloads select exactly this
// pool's sharing; 0 elsewhere, where max_shared_clients selects nothing.
func (pi PoolIntent) SelectableClients() int64 {
	switch {
	case pi.Sharing == "":
		return 0
	case pi.Cloud.selectsSharedClients(pi):
		return pi.Replicas
	}
	return 0
}
