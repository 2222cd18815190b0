package workload

import (
	"slices"
	"strconv"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// ParseGPUIntent checks the gpu block and resolves it against the catalog
// and the cloud. Unknown (zero) values are left out of the intent.
func ParseGPUIntent(g spec.GPU, spot bool, cloud clouds.GPURules, strict bool) (clouds.GPUIntent, gpudiag.Diagnostics) {
	var diags gpudiag.Diagnostics
	in := clouds.GPUIntent{Spot: spot, DRA: g.DRA != nil}

	in.Count = checkGPUCount(g, strict, &diags)
	in.Accelerators = ResolveAccelerators(g, cloud, strict, &diags)
	in.Partition, in.MIGStrategy = resolvePartition(g, in.Accelerators, strict, &diags)
	in.Sharing, in.MaxSharedClients = resolveSharing(g, strict, &diags)
	checkGPURequests(g, in, cloud, &diags)
	checkDRA(g, in, cloud, strict, &diags)

	if cloud.Known() {
		diags.Append(cloud.Validate(in, strict))
	}
	checkCountFitsMachines(g, in, cloud, &diags)
	return in, diags
}

// gpuCountAllowed is built only for a finding, so a valid count costs no
// message.
func gpuCountAllowed() string {
	return "an integer from 1 to " + strconv.Itoa(spec.MaxGPUsPerPod) + " (the most GPUs one machine has; a pod cannot span machines)"
}

func checkGPUCount(g spec.GPU, strict bool, diags *gpudiag.Diagnostics) int64 {
	switch {
	case g.Count == 0 && strict:
		diags.AddFinalError(gpudiag.At("gpu", "count"), "Invalid GPU count",
			"gpu.count is 0. Allowed: "+gpuCountAllowed()+".")
		return 0
	case g.Count < 0:
		diags.AddError(gpudiag.At("gpu", "count"), "Invalid GPU count",
			"gpu.count is "+strconv.FormatInt(g.Count, 10)+". Allowed: "+gpuCountAllowed()+".")
		return 0
	case g.Count > spec.MaxGPUsPerPod:
		diags.AddError(gpudiag.At("gpu", "count"), "Too many GPUs for one pod",
			"gpu.count is "+strconv.FormatInt(g.Count, 10)+". Allowed: "+gpuCountAllowed()+".")
		return 0
	}
	return g.Count
}

// checkGPURequests: Kubernetes does not overcommit extended resources, so a
// GPU request must equal the limit (which is gpu.count;
// docs/design/kubernetes.md#extended-resources-are-never-overcommitted).
func checkGPURequests(g spec.GPU, in clouds.GPUIntent, cloud clouds.Placer, diags *gpudiag.Diagnostics) {
	if g.Requests == nil || in.Count == 0 || *g.Requests == in.Count {
		return
	}
	resourceName := string(clouds.DevicePluginResource(in))
	if cloud.Known() {
		resourceName = string(cloud.Resource(in))
	}
	diags.AddError(gpudiag.At("gpu", "requests"), "GPU requests must equal the limit",
		"gpu.requests is "+strconv.FormatInt(*g.Requests, 10)+" but gpu.count (the limit) is "+strconv.FormatInt(in.Count, 10)+
			". Kubernetes rejects the pod: requests."+resourceName+" \"must be equal to "+resourceName+" limit\" because "+
			"extended resources cannot be overcommitted. Allowed: gpu.requests = "+strconv.FormatInt(in.Count, 10)+
			", or leave it unset (the provider writes requests equal to limits).")
}

// ResolveAccelerators returns the catalog entries in preference order.
func ResolveAccelerators(g spec.GPU, cloud clouds.Offering, strict bool, diags *gpudiag.Diagnostics) []*catalog.Accelerator {
	if g.Accelerator != "" && len(g.Accelerators) > 0 {
		diags.AddError(gpudiag.At("gpu", "accelerators"), "Conflicting accelerator settings",
			"accelerator (one model) and accelerators (a preference list) are mutually exclusive. "+
				"Allowed: set accelerator = \""+g.Accelerator+"\", or list every acceptable model in accelerators.")
		return nil
	}
	var out []*catalog.Accelerator
	if g.Accelerator != "" {
		if a := ResolveAccelerator(g.Accelerator, cloud, gpudiag.At("gpu", "accelerator"), diags); a != nil {
			out = append(out, a)
		}
		return out
	}
	for i, name := range g.Accelerators {
		path := gpudiag.At("gpu", "accelerators", i)
		switch {
		case name == "":
			if strict {
				diags.AddFinalError(path, "Empty accelerator", "Allowed values: "+gpudiag.QuoteList(catalog.AcceleratorNames())+".")
			}
			continue
		case slices.Contains(g.Accelerators[:i], name):
			diags.AddError(path, "Duplicate accelerator",
				strconv.Quote(name)+" is listed more than once. Allowed: each model once, most preferred first.")
			continue
		}
		if a := ResolveAccelerator(name, cloud, path, diags); a != nil {
			out = append(out, a)
		}
	}
	return out
}

// ResolveAccelerator finds name in the catalog and checks that the cloud
// offers it (any cloud does when it is unknown).
func ResolveAccelerator(name string, cloud clouds.Offering, path []any, diags *gpudiag.Diagnostics) *catalog.Accelerator {
	a := catalog.Find(name)
	if a == nil {
		diags.AddError(path, "Unknown accelerator",
			strconv.Quote(name)+" is not in the accelerator catalog. Allowed values: "+gpudiag.QuoteList(catalog.AcceleratorNames())+".")
		return nil
	}
	if cloud.Known() && !cloud.Offers(a) {
		diags.AddError(path, "Accelerator not offered on "+string(cloud.Name()),
			a.DisplayName+" ("+strconv.Quote(name)+") is not available on "+string(cloud.Name())+". "+cloud.OfferedBy())
		return nil
	}
	return a
}

// resolvePartition checks the MIG settings. A partition needs exactly one
// known accelerator, because profile names differ per model.
func resolvePartition(g spec.GPU, accelerators []*catalog.Accelerator, strict bool, diags *gpudiag.Diagnostics) (*catalog.MIGProfile, string) {
	if g.MIGStrategy != "" && !slices.Contains(spec.MIGStrategyNames(), g.MIGStrategy) {
		diags.AddError(gpudiag.At("gpu", "mig_strategy"), "Unknown MIG strategy",
			strconv.Quote(g.MIGStrategy)+" is not a MIG strategy. Allowed values: "+gpudiag.QuoteList(spec.MIGStrategyNames())+
				" (how the cluster's device plugin exposes MIG).")
	}
	if g.Partition == "" {
		if g.MIGStrategy != "" && strict {
			diags.AddFinalError(gpudiag.At("gpu", "mig_strategy"), "mig_strategy without partition",
				"mig_strategy only applies to a MIG partition request. Allowed: set gpu.partition, or remove mig_strategy.")
		}
		return nil, ""
	}
	path := gpudiag.At("gpu", "partition")
	if len(g.Accelerators) > 0 {
		diags.AddError(path, "MIG partition with a preference list",
			"Partition names differ per model, so a partition with several accelerators is ambiguous. "+
				"Allowed: set accelerator to one of "+gpudiag.QuoteList(catalog.MIGAcceleratorNames())+" together with partition.")
		return nil, ""
	}
	if g.Accelerator == "" {
		if strict {
			diags.AddFinalError(path, "MIG partition without accelerator",
				"A partition belongs to a GPU model. Allowed: set accelerator to one of "+gpudiag.QuoteList(catalog.MIGAcceleratorNames())+".")
		}
		return nil, ""
	}
	if len(accelerators) != 1 {
		return nil, "" // the accelerator itself was reported invalid
	}
	a := accelerators[0]
	if !a.OffersMIG() {
		diags.AddError(path, "Accelerator has no MIG",
			a.DisplayName+" cannot be partitioned. Models with MIG: "+gpudiag.QuoteList(catalog.MIGAcceleratorNames())+
				"; or remove partition to request whole GPUs.")
		return nil, ""
	}
	profile, ok := a.LookupMIGProfile(g.Partition)
	if !ok {
		diags.AddError(path, "Unsupported MIG partition",
			strconv.Quote(g.Partition)+" is not a MIG profile of "+a.DisplayName+". Allowed values: "+
				gpudiag.QuoteList(a.MIGProfileNames())+".")
		return nil, ""
	}
	if g.DRA != nil {
		// The driver publishes MIG devices itself: no device-plugin
		// strategy (checkDRA refuses one).
		return &profile, ""
	}
	strategy := g.MIGStrategy
	if strategy != spec.MIGStrategyMixed {
		strategy = spec.MIGStrategySingle
	}
	return &profile, strategy
}

// resolveSharing checks time-slicing/MPS settings.
func resolveSharing(g spec.GPU, strict bool, diags *gpudiag.Diagnostics) (string, int64) {
	sharing := g.Sharing
	if sharing != "" && !slices.Contains(spec.SharingNames(), sharing) {
		diags.AddError(gpudiag.At("gpu", "sharing"), "Unknown sharing mode",
			strconv.Quote(sharing)+" is not a GPU sharing mode. Allowed values: "+gpudiag.QuoteList(spec.SharingNames())+".")
		sharing = ""
	}
	if sharing != "" {
		checkSharingCombinations(g, diags)
	}
	clients := g.MaxSharedClients
	switch {
	case clients < 0 || clients == 1:
		diags.AddError(gpudiag.At("gpu", "max_shared_clients"), "Invalid max_shared_clients",
			"max_shared_clients is "+strconv.FormatInt(clients, 10)+"; sharing a GPU needs at least 2 clients. "+
				"Allowed: 2 or more, or leave it unset.")
		clients = 0
	case clients > 0 && g.Sharing == "" && strict:
		diags.AddFinalError(gpudiag.At("gpu", "max_shared_clients"), "max_shared_clients without sharing",
			"max_shared_clients only applies to shared GPUs. Allowed: set gpu.sharing to one of "+
				gpudiag.QuoteList(spec.SharingNames())+", or remove max_shared_clients.")
	}
	return sharing, clients
}

func checkSharingCombinations(g spec.GPU, diags *gpudiag.Diagnostics) {
	if g.Count > 1 {
		diags.AddError(gpudiag.At("gpu", "count"), "Shared GPUs are requested one at a time",
			"With sharing, gpu.count is the number of shared slots, and more than one is rejected: GKE refuses more than "+
				"1 nvidia.com/gpu on time-sharing nodes and the device plugin fails such requests under MPS. "+
				"Allowed: count = 1 with sharing, or remove sharing to get "+strconv.FormatInt(g.Count, 10)+" whole GPUs.")
	}
	if g.Partition != "" {
		diags.AddError(gpudiag.At("gpu", "sharing"), "Sharing together with MIG",
			"This provider requests either a MIG partition or a shared GPU, not a shared MIG partition. "+
				"Allowed: remove sharing (the partition already shares the GPU) or remove partition.")
	}
	if g.DRA != nil {
		diags.AddError(gpudiag.At("gpu", "sharing"), "Sharing together with DRA",
			"sharing selects device-plugin time-slicing/MPS nodes, which DRA does not use; DRA drivers configure "+
				"sharing in the device class or claim. Allowed: remove sharing or remove dra.")
	}
}
