package pool

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/names"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/validate"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// Validate checks a node pool policy from configuration alone. Zero
// values are treated as unknown: rules needing them are skipped and missing
// required values are not reported (Render reports them).
func Validate(p spec.PoolPolicy) gpudiag.Diagnostics {
	_, diags := validatePool(p, false)
	return diags
}

// validatePool runs every rule; strict means values are final.
func validatePool(p spec.PoolPolicy, strict bool) (clouds.PoolIntent, gpudiag.Diagnostics) {
	var diags gpudiag.Diagnostics
	pi := clouds.PoolIntent{Spot: p.Spot, Dedicated: p.Dedicated == nil || *p.Dedicated}
	pi.Name = checkPoolName(p.Name, strict, &diags)
	pi.Cloud = checkPoolCloud(p.Cloud, strict, &diags)
	pi.Accel = checkPoolAccelerator(p.Accelerator, pi.Cloud, strict, &diags)
	pi.GPUs = checkGPUsPerNode(p.GPUsPerNode, pi.Cloud, pi.Accel, strict, &diags)
	pi.Machine, pi.MachineSet = checkMachineType(p.MachineType, pi, &diags)
	pi.DRA = checkGPUAllocation(p.GPUAllocation, &diags)
	checkPoolPartition(p, &pi, strict, &diags)
	if pi.DRA {
		// Sharing is the device plugin's (or GKE's) on DRA pools: refused
		// there, so its own rules would only add noise.
		checkPoolDRA(p, &pi, &diags)
	} else {
		checkPoolSharing(p, &pi, strict, &diags)
		checkSharedPartitions(pi, &diags)
	}
	checkPoolCloudNotes(p, pi, &diags)
	pi.Labels = checkPoolLabels(p.Labels, pi, &diags)
	pi.Taints = checkPoolTaints(p.Taints, pi, strict, &diags)
	checkDeviceClass(pi, &diags)
	checkPoolNetwork(p, &pi, &diags)
	_, topologyDiags := clouds.PoolTopology(pi.Cloud, p.Topology, strict)
	diags.Append(topologyDiags)
	return pi, diags
}

func checkPoolName(name string, strict bool, diags *gpudiag.Diagnostics) string {
	validate.RequireSet(diags, strict, name, gpudiag.At("name"), "a DNS-1123 label such as \"l4-inference\"")
	if name == "" {
		return ""
	}
	if msgs := names.DNS1123Label(name); len(msgs) > 0 {
		diags.AddError(gpudiag.At("name"), "Invalid pool name",
			strconv.Quote(name)+" is not a valid name: "+strings.Join(msgs, "; ")+". Allowed: a DNS-1123 label "+
				"(at most 63 lower-case letters, digits or '-'), because it names the Karpenter NodePool and the "+
				"device plugin config and is a node label value.")
		return ""
	}
	return name
}

// checkPoolCloud is the pool's resolve step: the one place its cloud is
// looked up by name. An unset, unknown or pool-less cloud is not Known.
func checkPoolCloud(raw string, strict bool, diags *gpudiag.Diagnostics) clouds.Cloud {
	validate.RequireOneOf(diags, strict, raw, gpudiag.At("cloud"), clouds.PoolNames)
	unknown := clouds.Lookup("")
	if raw == "" {
		return unknown
	}
	cloud := clouds.Lookup(spec.Cloud(raw))
	if !cloud.Known() {
		diags.AddError(gpudiag.At("cloud"), "Unknown cloud",
			strconv.Quote(raw)+" is not a supported cloud. Allowed values: "+gpudiag.QuoteList(clouds.PoolNames())+".")
		return unknown
	}
	if summary, detail := cloud.PoolsUnsupported(); summary != "" {
		diags.AddError(gpudiag.At("cloud"), summary, detail+", or one of "+gpudiag.QuoteList(clouds.PoolNames())+".")
		return unknown
	}
	return cloud
}

func checkPoolAccelerator(name string, cloud clouds.Offering, strict bool, diags *gpudiag.Diagnostics) *catalog.Accelerator {
	validate.RequireOneOf(diags, strict, name, gpudiag.At("accelerator"), catalog.AcceleratorNames)
	if name == "" {
		return nil
	}
	return workload.ResolveAccelerator(name, cloud, gpudiag.At("accelerator"), diags)
}

// checkGPUsPerNode: the count must exist as a machine shape where the
// catalog knows the shapes (the cloud profile's machines); elsewhere 1 to 16.
func checkGPUsPerNode(n int64, cloud clouds.MachineCatalog, a *catalog.Accelerator, strict bool, diags *gpudiag.Diagnostics) int64 {
	path := gpudiag.At("gpus_per_node")
	switch {
	case n == 0:
		if strict {
			diags.AddError(path, "Missing required value", "A value is required here. Allowed: "+gpusPerNodeAllowed()+".")
		}
		return 0
	case n < 0 || n > spec.MaxGPUsPerPod:
		diags.AddError(path, "Invalid gpus_per_node", "gpus_per_node is "+strconv.FormatInt(n, 10)+". Allowed: "+gpusPerNodeAllowed()+".")
		return 0
	}
	shapes := cloud.MachinesOf(a)
	if counts := clouds.GPUCounts(shapes); len(counts) > 0 && !slices.Contains(counts, n) {
		diags.AddError(path, "No machine with that many GPUs",
			"No "+string(cloud.Name())+" machine type has "+strconv.FormatInt(n, 10)+" "+a.DisplayName+" GPUs. Allowed on "+
				string(cloud.Name())+": "+clouds.FormatCounts(counts)+describeShapes(shapes)+".")
		return 0
	}
	return n
}

// gpusPerNodeAllowed is built only for a finding.
func gpusPerNodeAllowed() string {
	return "an integer from 1 to " + strconv.Itoa(spec.MaxGPUsPerPod) + " (the most GPUs one machine carries)"
}

// describeShapes names the machines behind the allowed counts.
func describeShapes(shapes []clouds.MachineShape) string {
	var parts []string
	for _, s := range shapes {
		if s.Name != "" {
			parts = append(parts, s.Name+" has "+strconv.FormatInt(s.GPUs, 10))
		}
	}
	if len(parts) == 0 {
		return " (any N1 machine type)"
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// checkPoolPartition resolves partition and mig_strategy into pi.
func checkPoolPartition(p spec.PoolPolicy, pi *clouds.PoolIntent, strict bool, diags *gpudiag.Diagnostics) {
	if p.MIGStrategy != "" && !slices.Contains(spec.MIGStrategyNames(), p.MIGStrategy) {
		diags.AddError(gpudiag.At("mig_strategy"), "Unknown MIG strategy",
			strconv.Quote(p.MIGStrategy)+" is not a MIG strategy. Allowed values: "+gpudiag.QuoteList(spec.MIGStrategyNames())+
				" (how the device plugin exposes MIG; single is the default).")
	}
	if p.Partition == spec.PartitionAllBalanced && p.MIGStrategy == spec.MIGStrategySingle && !pi.Cloud.RejectsMIGLayouts() && !pi.DRA {
		// Decidable without the accelerator, so reported at plan time. Not
		// on clouds that reject the layout itself: "use mixed" would be
		// advice that leads to the next error.
		diags.AddError(gpudiag.At("mig_strategy"), "all-balanced needs the mixed strategy", allBalancedDetail)
	}
	if p.Partition == "" {
		if p.MIGStrategy != "" && strict && !pi.DRA {
			diags.AddError(gpudiag.At("mig_strategy"), "mig_strategy without partition",
				"mig_strategy only applies to partitioned GPUs. Allowed: set partition, or remove mig_strategy.")
		}
		return
	}
	a := pi.Accel
	if a == nil {
		return // unknown, or already reported
	}
	if !a.OffersMIG() {
		diags.AddError(gpudiag.At("partition"), "Accelerator has no MIG",
			a.DisplayName+" cannot be partitioned. Allowed: remove partition for whole GPUs, or a model with MIG"+
				migModelsOn(pi.Cloud)+".")
		return
	}
	layout, cut, ok := ResolvePoolPartition(p.Partition, a)
	if !ok {
		diags.AddError(gpudiag.At("partition"), "Unsupported MIG partition",
			strconv.Quote(p.Partition)+" is not a MIG profile or mig-manager layout of "+a.DisplayName+
				". Allowed values: "+gpudiag.QuoteList(PartitionNames(a))+".")
		return
	}
	pi.Layout, pi.Cut = layout, cut
	if pi.DRA {
		return // no device plugin strategy; checkPoolDRA judges the layout and the cloud
	}
	pi.MIGStrategy = poolMIGStrategy(p.MIGStrategy, pi.Cloud, layout, strict, diags)
	checkPoolPartitionOnCloud(*pi, p.MIGStrategy, diags)
}

const allBalancedDetail = "all-balanced cuts every GPU into several profiles, which only the \"mixed\" strategy " +
	"advertises as separate resources (nvidia.com/mig-<profile>). Allowed: mig_strategy = \"mixed\", or a " +
	"single-profile partition such as \"all-<profile>\"."

// poolMIGStrategy defaults the strategy to single, except all-balanced,
// which cannot work under single: every profile would be advertised as
// nvidia.com/gpu and a pod could not say which one it gets. It asks the
// cloud's pool rules only whether the cloud refuses the layout
// (PoolRules.RejectsMIGLayouts), where the advice to use mixed would not help.
func poolMIGStrategy(strategy string, cloud clouds.PoolRules, layout string, strict bool, diags *gpudiag.Diagnostics) string {
	if layout == spec.PartitionAllBalanced {
		if strategy == "" && strict && !cloud.RejectsMIGLayouts() {
			// On partition: mig_strategy is unset, so Terraform has no
			// line of it to show, and partition is what asks for mixed.
			diags.AddError(gpudiag.At("partition"), "all-balanced needs the mixed strategy", allBalancedDetail)
		}
		return spec.MIGStrategyMixed
	}
	if strategy != spec.MIGStrategyMixed {
		return spec.MIGStrategySingle
	}
	return strategy
}

func checkPoolPartitionOnCloud(pi clouds.PoolIntent, rawStrategy string, diags *gpudiag.Diagnostics) {
	pi.Cloud.CheckPoolPartition(pi, rawStrategy, diags)
}

// checkPoolSharing resolves sharing and replicas into pi.
func checkPoolSharing(p spec.PoolPolicy, pi *clouds.PoolIntent, strict bool, diags *gpudiag.Diagnostics) {
	sharing := p.Sharing
	if sharing != "" && !slices.Contains(spec.SharingNames(), sharing) {
		diags.AddError(gpudiag.At("sharing"), "Unknown sharing mode",
			strconv.Quote(sharing)+" is not a GPU sharing mode. Allowed values: "+gpudiag.QuoteList(spec.SharingNames())+".")
		sharing = ""
	}
	replicas := p.Replicas
	switch {
	case replicas < 0 || replicas == 1:
		diags.AddError(gpudiag.At("replicas"), "Invalid replicas",
			"replicas is "+strconv.FormatInt(replicas, 10)+"; sharing a GPU needs at least 2 clients. Allowed: 2 or more.")
		replicas = 0
	case replicas > 0 && p.Sharing == "" && strict:
		diags.AddError(gpudiag.At("replicas"), "replicas without sharing",
			"replicas only applies to shared GPUs. Allowed: set sharing to one of "+gpudiag.QuoteList(spec.SharingNames())+", or remove replicas.")
	case replicas == 0 && sharing != "" && strict:
		// On sharing: replicas is unset, so Terraform has no line of it to
		// show, and sharing is what needs it.
		diags.AddError(gpudiag.At("sharing"), "Missing replicas",
			"With sharing = "+strconv.Quote(sharing)+", replicas says how many pods share one GPU. Allowed: 2 or more "+
				"(at most "+strconv.Itoa(clouds.MaxMPSClients)+" with MPS or on GKE).")
	}
	rules := pi.Cloud
	if limit := rules.SharedClientsLimit(); sharing != "" && replicas > clouds.MaxMPSClients && (sharing == spec.SharingMPS || limit != "") {
		who := cmp.Or(limit, "CUDA MPS serves at most "+strconv.Itoa(clouds.MaxMPSClients)+" clients per GPU")
		diags.AddError(gpudiag.At("replicas"), "Too many clients per GPU",
			who+", got "+strconv.FormatInt(replicas, 10)+". Allowed: 2 to "+strconv.Itoa(clouds.MaxMPSClients)+".")
	}
	rules.CheckPoolSharing(sharing, diags)
	pi.Sharing, pi.Replicas = sharing, replicas
}

// checkSharedPartitions: sharing a MIG partition. GKE time-shares
// partitions; the NVIDIA device plugin time-slices only mixed-strategy MIG
// resources; nobody runs MPS on MIG devices. Where it works it is allowed,
// with a warning, because gpu_workload itself never asks for a shared
// partition (workload/validate_gpu.go checkSharingCombinations).
func checkSharedPartitions(pi clouds.PoolIntent, diags *gpudiag.Diagnostics) {
	if pi.Sharing == "" || !pi.HasMIG() {
		return
	}
	switch {
	case pi.Sharing == spec.SharingMPS:
		diags.AddError(gpudiag.At("sharing"), "MPS with MIG is not supported",
			"The NVIDIA device plugin cannot run MPS on MIG devices, and GKE does not combine MPS with partitions. "+
				"Allowed: sharing = \"time-slicing\" (on GKE, or with mig_strategy = \"mixed\" elsewhere), or remove partition.")
	case pi.Cloud.Mechanism() != clouds.MechanismCloudNative && pi.MIGStrategy != spec.MIGStrategyMixed:
		diags.AddError(gpudiag.At("sharing"), "Time-slicing needs the mixed MIG strategy",
			"The NVIDIA device plugin time-slices MIG devices only under the \"mixed\" strategy (nvidia.com/mig-<profile> "+
				"resources). Allowed: mig_strategy = \"mixed\", or remove sharing.")
	default:
		diags.AddWarning(gpudiag.At("sharing"), "No gpu_workload can use this pool",
			"gpu_workload requests either a MIG partition or a shared GPU, never a shared partition, so it cannot be "+
				"placed on this pool. Other pods can request "+gpudiag.QuoteList(poolResourceNames(pi))+
				". Allowed for gpu_workload: remove sharing or remove partition.")
	}
}

func checkPoolCloudNotes(p spec.PoolPolicy, pi clouds.PoolIntent, diags *gpudiag.Diagnostics) {
	pi.Cloud.PoolNotes(p, pi, diags)
}

// migModelsOn lists the models with MIG the pool's cloud offers, for an
// "Allowed" that only names what the user can have there.
func migModelsOn(c clouds.Cloud) string {
	names := c.MIGModels()
	if len(names) == 0 {
		return " (" + string(c.Name()) + " offers none)"
	}
	where := ""
	if c.Known() {
		where = " on " + string(c.Name())
	}
	return where + ": " + gpudiag.QuoteList(names)
}
