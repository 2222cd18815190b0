package dra

import (
	"strconv"

	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// LabelPool names the gpu_node_pool_policy an object belongs to: the
// key queue.LabelPool puts on the pool's ResourceFlavor (the queue package
// renders with this one; a test holds them equal).
const LabelPool = "gpu.gpuform.io/node-pool"

// poolClassSuffix makes a pool's name its DeviceClass's: the class is
// cluster-wide, so it is a DNS subdomain under the provider's label domain,
// read like the driver's own "gpu.nvidia.com".
const poolClassSuffix = ".gpu.gpuform.io"

// PoolDeviceClassName is the DeviceClass of a DRA pool. Pool names are
// DNS-1123 labels (at most 63 characters), so the result is always a valid
// DeviceClass name.
func PoolDeviceClassName(pool string) string { return pool + poolClassSuffix }

// Pool is what a DRA pool knows of its devices.
type Pool struct {
	// Name is the pool's name (gpu_node_pool_policy.name).
	Name string
	// Accelerator is the pool's model.
	Accelerator *catalog.Accelerator
	// Partition is the MIG profile every GPU is cut into; nil for whole GPUs.
	Partition *catalog.MIGProfile
	// ExtendedResource turns on the class's extendedResourceName
	// (PoolExtendedResourceName): only where the cluster's Kubernetes has
	// DRAExtendedResource on by default (kubever.ExtendedResource), since
	// an apiserver without the gate drops the field.
	ExtendedResource bool
}

// PoolExtendedResourceName is the extended resource a DRA pool's class
// answers to: the name the device plugin would advertise for the same
// devices (nvidia.com/gpu for whole GPUs, nvidia.com/mig-<profile> for a
// MIG pool), so pods written for the device plugin (charts' GPU pods,
// hand-written ones) get the pool's devices by asking the usual way
// (docs/design/dra-versions.md).
func PoolExtendedResourceName(p Pool) string {
	if p.Partition != nil {
		return p.Partition.MixedResourceName()
	}
	return ResourceNvidiaGPU
}

// ResourceNvidiaGPU is the device plugin's resource for a whole GPU.
const ResourceNvidiaGPU = "nvidia.com/gpu"

// PoolDeviceClass is the DeviceClass of a DRA pool: the driver's devices
// of the pool's type, product and profile. Claims (and Kueue, which
// refuses claims with CEL selectors and maps device classes to quota in
// resources.deviceClassMappings) then name the class instead of selecting.
// Each condition is its own selector, in order: the scheduler stops at the
// first false one, so the driver check keeps other drivers' devices from
// ever reaching a gpu.nvidia.com attribute they lack (a runtime error).
//
// A model without a recorded driver product name gets a class without the
// product selector, and a warning: the class then takes any of the
// driver's GPUs of that type, and only the pool's node labels keep
// workloads on the pool's model.
func PoolDeviceClass(p Pool) (*resourcev1.DeviceClass, gpudiag.Diagnostics) {
	var diags gpudiag.Diagnostics
	if p.Accelerator == nil {
		diags.AddError(gpudiag.At("accelerator"), "DRA pool without accelerator",
			"A pool's DeviceClass selects its model. Allowed: set accelerator to one of "+
				gpudiag.QuoteList(catalog.AcceleratorNames())+".")
		return nil, diags
	}
	typ := TypeGPU
	if p.Partition != nil {
		typ = TypeMIG
	}
	selectors := []string{
		`device.driver == ` + celString(Driver),
		attributeRef("type") + " == " + celString(typ),
	}
	if len(p.Accelerator.DriverProducts) > 0 {
		selectors = append(selectors, ProductSelector(p.Accelerator.DriverProductNames()))
	} else {
		diags.AddWarning(gpudiag.At("accelerator"), "DeviceClass does not select "+p.Accelerator.DisplayName,
			NoDriverProductDetail(p.Accelerator)+" The pool's DeviceClass "+strconv.Quote(PoolDeviceClassName(p.Name))+
				" therefore selects any NVIDIA "+typ+" device, and only the pool's node labels keep its workloads on "+
				p.Accelerator.DisplayName+" nodes.")
	}
	if p.Partition != nil {
		selectors = append(selectors, ProfileSelector(p.Partition.Name))
	}
	return &resourcev1.DeviceClass{
		TypeMeta: metav1.TypeMeta{APIVersion: resourcev1.SchemeGroupVersion.String(), Kind: "DeviceClass"},
		ObjectMeta: metav1.ObjectMeta{Name: PoolDeviceClassName(p.Name), Labels: map[string]string{
			spec.LabelManagedBy: spec.ManagedBy,
			LabelPool:           p.Name,
		}},
		Spec: resourcev1.DeviceClassSpec{Selectors: selectorsV1(selectors), ExtendedResourceName: extendedResourceName(p)},
	}, diags
}

func extendedResourceName(p Pool) *string {
	if !p.ExtendedResource {
		return nil
	}
	name := PoolExtendedResourceName(p)
	return &name
}

// PoolClaim is the claim of a workload on a DRA pool: count devices of
// the pool's class, with no selector, constraint or preference list, so
// Kueue can count it against the class's quota.
func PoolClaim(pool string, count int64) Claim {
	return Claim{Exactly: &Exact{DeviceClass: PoolDeviceClassName(pool), Count: max(count, 1)}}
}

// NoDriverProductDetail says why a model cannot be selected by product.
func NoDriverProductDetail(a *catalog.Accelerator) string {
	return "The product name NVIDIA's driver reports for " + a.DisplayName + " (the DRA productName attribute) is not " +
		"confirmed: the catalog records it only where it was read off a real GPU, for " +
		gpudiag.QuoteList(ModelsWithDriverProducts()) + "."
}

// ModelsWithDriverProducts lists the catalog models a claim can select by
// product name.
func ModelsWithDriverProducts() []string {
	var out []string
	for i := range catalog.Table {
		if len(catalog.Table[i].DriverProducts) > 0 {
			out = append(out, catalog.Table[i].Name)
		}
	}
	return out
}
