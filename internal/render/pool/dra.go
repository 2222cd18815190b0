package pool

import (
	"slices"
	"strconv"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/dra"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kubever"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// checkGPUAllocation resolves gpu_allocation: true for a DRA pool.
func checkGPUAllocation(raw string, diags *gpudiag.Diagnostics) bool {
	if raw != "" && !slices.Contains(spec.GPUAllocationNames(), raw) {
		diags.AddError(gpudiag.At("gpu_allocation"), "Unknown GPU allocation",
			strconv.Quote(raw)+" is not a way nodes hand out GPUs. Allowed values: "+
				gpudiag.QuoteList(spec.GPUAllocationNames())+" (\""+spec.GPUAllocationDevicePlugin+"\" is the default).")
		return false
	}
	return raw == spec.GPUAllocationDRA
}

// oneNodeOneWay explains every refusal of a device-plugin setting on a
// DRA pool: NVIDIA's DRA driver chart refuses to render beside the device
// plugin, and a node running both advertises each GPU twice, so the
// scheduler admits more pods than it has GPUs (docs/design/dra.md §1.4).
const oneNodeOneWay = "A DRA pool's GPUs are handed out by NVIDIA's DRA driver alone: a node that also runs the " +
	"device plugin advertises every GPU twice and over-admits pods, which is why the driver's chart refuses to " +
	"render beside the device plugin. "

// checkPoolDRA holds the rules of a DRA pool: first what the cloud
// refuses (its reason, on the attribute), then "one node, one way": every
// setting that only configures the device plugin, on attributes the cloud
// has not already refused.
func checkPoolDRA(p spec.PoolPolicy, pi *clouds.PoolIntent, diags *gpudiag.Diagnostics) {
	var cloudDiags gpudiag.Diagnostics
	// Looked up by name: a cloud without node pools (GKE Autopilot) is not
	// pi.Cloud, and still says why it has no DRA either.
	if cloud := clouds.Lookup(spec.Cloud(p.Cloud)); cloud.Known() {
		cloud.CheckPoolDRA(p, *pi, &cloudDiags)
	}
	diags.Append(cloudDiags)
	var own gpudiag.Diagnostics
	if p.MIGStrategy != "" {
		own.AddError(gpudiag.At("mig_strategy"), "mig_strategy on a DRA pool",
			oneNodeOneWay+"mig_strategy says how the device plugin advertises MIG devices; the DRA driver publishes each "+
				"MIG device itself and the pool's DeviceClass selects its profile. Allowed: remove mig_strategy, or "+
				"gpu_allocation = \""+spec.GPUAllocationDevicePlugin+"\".")
	}
	if p.Sharing != "" {
		own.AddError(gpudiag.At("sharing"), "sharing on a DRA pool",
			oneNodeOneWay+"sharing configures the device plugin's time-slicing or MPS (nvidia.com/gpu.shared); the DRA "+
				"driver shares a GPU through a claim's own config instead. Allowed: remove sharing and replicas, or "+
				"gpu_allocation = \""+spec.GPUAllocationDevicePlugin+"\".")
	} else if p.Replicas != 0 {
		own.AddError(gpudiag.At("replicas"), "replicas on a DRA pool",
			oneNodeOneWay+"replicas is the device plugin's time-slicing or MPS clients per GPU. Allowed: remove replicas.")
	}
	if len(pi.Cut) > 1 {
		own.AddError(gpudiag.At("partition"), "A DRA pool takes one MIG profile",
			strconv.Quote(p.Partition)+" cuts every GPU into several profiles; the pool's DeviceClass selects one "+
				"profile, so that claims name the class and count devices (the only claims Kueue counts). Allowed: a "+
				"single-profile partition such as \""+clouds.MIGLayoutPrefix+pi.Cut[0].Profile.Name+"\".")
	}
	diags.Append(own.NotAt(cloudDiags))
}

// poolDRA is what a DRA pool knows of its devices, for its DeviceClass;
// k is the version its cluster is judged by.
func poolDRA(pi clouds.PoolIntent, k kubever.Version) dra.Pool {
	out := dra.Pool{Name: pi.Name, Accelerator: pi.Accel, ExtendedResource: kubever.ExtendedResource.OnByDefault(k.Minor())}
	if pi.HasMIG() {
		profile := pi.Cut[0].Profile
		out.Partition = &profile
	}
	return out
}

// setDeviceClass derives a DRA pool's DeviceClass into r: the class its
// workloads' claims name, so neither they nor Kueue need a CEL selector.
// Its findings (a model without a recorded driver product name) are
// warnings; validation runs PoolDeviceClass too, so they reach the plan.
func setDeviceClass(r *spec.PoolRendered, pi clouds.PoolIntent, k kubever.Version) {
	class, _ := dra.PoolDeviceClass(poolDRA(pi, k))
	if class == nil {
		return
	}
	manifest, err := workload.ManifestOf([]workload.Object{class})
	if err != nil {
		return // unreachable: a DeviceClass always encodes
	}
	r.DeviceClassName, r.DeviceClass, r.DeviceClassObject = class.Name, manifest, class
	if class.Spec.ExtendedResourceName != nil {
		r.ExtendedResourceName = *class.Spec.ExtendedResourceName
	}
}

// checkDeviceClass reports what the pool's DeviceClass cannot select
// (dra.PoolDeviceClass's warnings).
func checkDeviceClass(pi clouds.PoolIntent, diags *gpudiag.Diagnostics) {
	if !pi.DRA || pi.Accel == nil || pi.Name == "" {
		return
	}
	_, classDiags := dra.PoolDeviceClass(poolDRA(pi, kubever.Version{}))
	diags.Append(classDiags)
}

// draDevicesPerNode is what the driver publishes per node: the units the
// device plugin would advertise for the same GPUs and partition (a device
// per GPU, or per MIG instance), without sharing, which DRA pools refuse.
func draDevicesPerNode(pi clouds.PoolIntent) int64 {
	pi.DRA, pi.Sharing, pi.Replicas = false, "", 0
	var n int64
	for _, v := range poolResources(pi) {
		n = clouds.AddSat(n, v)
	}
	return n
}
