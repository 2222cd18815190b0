package workload

import (
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/dra"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/names"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// checkDRA holds the rules of the gpu.dra block, run on the resolved
// intent: what the claim derives from accelerator, accelerators and
// partition (docs/design/dra.md#6-claims-from-intent), its own fields, and
// the raw selectors, checked with the scheduler's CEL library.
func checkDRA(g spec.GPU, in clouds.GPUIntent, cloud clouds.Named, strict bool, diags *gpudiag.Diagnostics) {
	d := g.DRA
	if d == nil {
		return
	}
	if g.MIGStrategy != "" {
		diags.AddError(gpudiag.At("gpu", "mig_strategy"), "mig_strategy together with DRA",
			"mig_strategy says how the device plugin advertises MIG; the DRA driver publishes each MIG device itself "+
				"and the claim selects it by profile. Allowed: remove mig_strategy, or remove dra.")
	}
	checkDeviceClass(g, diags)
	checkSelectorShapes(d, strict, diags)
	checkMinMemory(d, in, diags)
	checkSame(d, diags)
	req := DRARequestOf(g, in)
	checkDRAProducts(g, req, cloud, diags)
	diags.Append(dra.CheckSelectors(gpudiag.At("gpu", "dra", "selectors"), d.Selectors, dra.TargetOf(req)))
}

func checkDeviceClass(g spec.GPU, diags *gpudiag.Diagnostics) {
	class := g.DRA.DeviceClass
	if class == "" {
		return
	}
	path := gpudiag.At("gpu", "dra", "device_class")
	if msgs := names.DNS1123Subdomain(class); len(msgs) > 0 {
		diags.AddError(path, "Invalid device class",
			strconv.Quote(class)+": "+strings.Join(msgs, "; ")+". Allowed: a DeviceClass name such as \""+
				spec.DefaultDeviceClass+"\" (the default), or leave it unset.")
		return
	}
	if g.Partition != "" && dra.DeviceTypeOfClass(class) != "" && dra.DeviceTypeOfClass(class) != dra.TypeMIG {
		diags.AddError(path, "Device class without MIG devices",
			strconv.Quote(class)+" selects the driver's "+dra.DeviceTypeOfClass(class)+" devices, and partition asks for "+
				"MIG devices. Allowed: leave device_class unset (a partition uses \""+dra.ClassMIG+"\"), set it to \""+
				dra.ClassMIG+"\", or remove partition.")
	}
}

func checkSelectorShapes(d *spec.DRA, strict bool, diags *gpudiag.Diagnostics) {
	if len(d.Selectors) > spec.MaxDRASelectors {
		diags.AddError(gpudiag.At("gpu", "dra", "selectors"), "Too many selectors",
			strconv.Itoa(len(d.Selectors))+" selectors given. Allowed: at most "+strconv.Itoa(spec.MaxDRASelectors)+
				" CEL expressions (combine them with &&).")
	}
	for i, s := range d.Selectors {
		if strict && strings.TrimSpace(s) == "" {
			diags.AddFinalError(gpudiag.At("gpu", "dra", "selectors", i), "Empty selector",
				"A selector is a CEL expression over device attributes. Allowed: e.g. "+
					"`device.attributes[\"gpu.nvidia.com\"].productName == \"NVIDIA H100 80GB HBM3\"`, or leave selectors "+
					"unset to have the claim select accelerator and partition.")
		}
	}
}

// checkMinMemory: a quantity, and one the requested GPUs have. A whole
// GPU's memory is what NVML reports where a reading recorded it, else the
// nominal size (NVML's is a little less, so only a minimum above it is
// certainly out of reach). A MIG device's memory is its profile's, which
// no reading records: not checked.
func checkMinMemory(d *spec.DRA, in clouds.GPUIntent, diags *gpudiag.Diagnostics) {
	if d.MinMemory == "" {
		return
	}
	path := gpudiag.At("gpu", "dra", "min_memory")
	q, err := resource.ParseQuantity(d.MinMemory)
	if err != nil || q.Sign() <= 0 {
		diags.AddError(path, "Invalid min_memory",
			strconv.Quote(d.MinMemory)+" is not a positive Kubernetes quantity. Allowed: e.g. \"40Gi\" or \"80000Mi\".")
		return
	}
	if in.Partition != nil || len(in.Accelerators) == 0 {
		return
	}
	var short []string
	for _, a := range in.Accelerators {
		if most := mostMemory(a); most.Cmp(q) < 0 {
			short = append(short, a.DisplayName+" ("+most.String()+")")
		}
	}
	switch {
	case len(short) == len(in.Accelerators):
		diags.AddError(path, "No requested GPU has that much memory",
			"min_memory is "+q.String()+", more than "+strings.Join(short, ", ")+" has"+memorySource()+
				". Allowed: at most that much, or another accelerator.")
	case len(short) > 0:
		diags.AddWarning(path, "min_memory rules out part of the preference list",
			"min_memory is "+q.String()+", more than "+strings.Join(short, ", ")+" has"+memorySource()+
				", so the claim never takes "+pluralIt(len(short))+". Allowed: a smaller min_memory, or drop "+
				pluralIt(len(short))+" from accelerators.")
	}
}

func memorySource() string {
	return " (the memory NVML reports where a real GPU was read, else the nominal size)"
}

func pluralIt(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// mostMemory is the most memory a device of the model can have.
func mostMemory(a *catalog.Accelerator) resource.Quantity {
	most := a.MemoryMiB
	if len(a.DriverProducts) > 0 {
		most = 0
		for _, p := range a.DriverProducts {
			most = max(most, p.MemoryMiB)
		}
	}
	return *resource.NewQuantity(most<<20, resource.BinarySI)
}

func checkSame(d *spec.DRA, diags *gpudiag.Diagnostics) {
	if d.Same == "" {
		return
	}
	path := gpudiag.At("gpu", "dra", "same")
	attribute, ok := dra.SameAttribute(d.Same)
	switch {
	case !ok:
		diags.AddError(path, "Unknown same",
			strconv.Quote(d.Same)+" is not something devices can share. Allowed values: "+gpudiag.QuoteList(spec.DRASameNames())+
				" (the claim's devices on one PCIe root complex, or on one NUMA node).")
	case attribute == dra.AttrNUMANode:
		diags.AddWarning(path, "Driver v0.4.x does not publish the NUMA node",
			"same = \""+spec.DRASameNUMANode+"\" makes every device share "+dra.AttrNUMANode+", which NVIDIA's DRA driver "+
				"publishes from v0.5.0 on (when the node knows the device's NUMA node); v0.4.x and older releases do not "+
				"publish it, and a device without it never satisfies the constraint, so on nodes that run v0.4.x the claim "+
				"cannot be allocated. Allowed: \""+spec.DRASamePCIeRoot+"\", or driver v0.5.0 or later on the nodes "+
				"the workload may use.")
	}
}

// checkDRAProducts: a derived claim selects each model by the product name
// the driver reports, recorded only where a real GPU was read. A model
// without one is never placed silently: alone, the claim cannot select it
// (a warning: the node placement still keeps the pod on its nodes); in a
// preference list its entry would take any GPU, so the list is refused.
func checkDRAProducts(g spec.GPU, req dra.Request, cloud clouds.Named, diags *gpudiag.Diagnostics) {
	if !req.DerivesSelectors() || len(req.Accelerators) == 0 {
		return
	}
	if req.UsesPreferences() {
		checkPreferenceProducts(g, req.Accelerators, diags)
		return
	}
	a := req.Accelerators[0]
	path := acceleratorPath(g, a)
	if len(a.DriverProducts) == 0 {
		diags.AddWarning(path, "The claim does not select "+a.DisplayName,
			dra.NoDriverProductDetail(a)+" The claim therefore asks for "+anyDevice(req)+", and only the node placement keeps the pod on "+a.DisplayName+" nodes. Allowed: add a selector on "+
				"productName (gpu.dra.selectors) once you know the name your GPUs report, or use one of those models.")
		return
	}
	// Only a generic cluster may carry the variants with no recorded name
	// (the clouds' machines carry the recorded ones).
	if missed := a.GFDProductsWithoutDriverName(); len(missed) > 0 && cloud.Known() && cloud.Name() == spec.CloudGeneric {
		diags.AddWarning(path, "The claim misses some "+a.DisplayName+" variants",
			"The claim selects productName "+gpudiag.QuoteList(a.DriverProductNames())+"; the driver's name for the "+
				"variants GFD labels "+gpudiag.QuoteList(missed)+" is not recorded, so their GPUs are never allocated. "+
				"Allowed: keep it if your nodes have the named part, or write the selector yourself (gpu.dra.selectors).")
	}
}

func checkPreferenceProducts(g spec.GPU, accelerators []*catalog.Accelerator, diags *gpudiag.Diagnostics) {
	if len(accelerators) > spec.MaxDRAPreferences {
		diags.AddError(gpudiag.At("gpu", "accelerators"), "Too many accelerators for a DRA claim",
			strconv.Itoa(len(accelerators))+" accelerators listed; through DRA they become the claim's firstAvailable "+
				"list, which takes at most "+strconv.Itoa(spec.MaxDRAPreferences)+". Allowed: the "+
				strconv.Itoa(spec.MaxDRAPreferences)+" you prefer most.")
	}
	for _, a := range accelerators {
		if len(a.DriverProducts) > 0 {
			continue
		}
		diags.AddError(acceleratorPath(g, a), "Preference list needs every model's product name",
			dra.NoDriverProductDetail(a)+" In a preference list its entry would take any GPU, whatever comes "+
				"after it. Allowed: list only models with a recorded name, or write selectors (gpu.dra.selectors).")
	}
}

// acceleratorPath is where a model was asked for: gpu.accelerator, or
// its entry in gpu.accelerators.
func acceleratorPath(g spec.GPU, a *catalog.Accelerator) []any {
	if i := slices.Index(g.Accelerators, a.Name); i >= 0 {
		return gpudiag.At("gpu", "accelerators", i)
	}
	return gpudiag.At("gpu", "accelerator")
}

func anyDevice(req dra.Request) string {
	if req.Partition == nil {
		return "any NVIDIA GPU"
	}
	return "any NVIDIA MIG device of profile " + strconv.Quote(req.Partition.Name)
}
