package dra

import (
	"slices"
	"strconv"
	"strings"

	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// What NVIDIA's DRA driver publishes (docs/design/dra.md#15-resourceslice-publishing-cmdgpu-kubelet-plugin).
const (
	// Driver is the driver's name, the domain of its own attributes and
	// capacities (device.attributes["gpu.nvidia.com"]).
	Driver = "gpu.nvidia.com"
	// ClassGPU and ClassMIG are the DeviceClasses the driver's chart
	// installs: every whole GPU, every MIG device.
	ClassGPU = spec.DefaultDeviceClass
	ClassMIG = "mig.nvidia.com"
	// TypeGPU and TypeMIG are the values of the driver's type attribute
	// for whole GPUs and MIG devices; TypeVFIO for passthrough devices.
	TypeGPU  = "gpu"
	TypeMIG  = "mig"
	TypeVFIO = "vfio"
	// StandardDomain holds the attributes Kubernetes defines for every
	// driver (device.attributes["resource.kubernetes.io"]).
	StandardDomain = "resource.kubernetes.io"
	// AttrPCIeRoot and AttrNUMANode are the standard attributes a claim's
	// matchAttribute constraint names for gpu.dra.same.
	AttrPCIeRoot = StandardDomain + "/pcieRoot"
	AttrNUMANode = StandardDomain + "/numaNode"
)

// classTypes are the device types the driver's own classes select.
var classTypes = map[string]string{ClassGPU: TypeGPU, ClassMIG: TypeMIG, "vfio.gpu.nvidia.com": TypeVFIO}

// DeviceTypeOfClass is the device type a class of the driver selects; ""
// for any other class (what it selects is not known here).
func DeviceTypeOfClass(class string) string { return classTypes[class] }

// deviceNames lists what the driver publishes for one device type.
type deviceNames struct {
	attributes []string // in the driver's domain
	standard   []string // in StandardDomain
	capacity   []string // in the driver's domain; memorySlice<N> is matched apart
}

// migEngines are the capacities of a MIG device's GPU instance; a whole
// GPU advertises their maximum under the DynamicMIG gate.
var migEngines = []string{"multiprocessors", "copyEngines", "decoders", "encoders", "jpegEngines", "ofaEngines"}

// published is the driver's own list per device type, from v25.12.0
// (gpu-kubelet-plugin deviceinfo.go, mig.go). gpuModuleID and partition<N>
// are published at HEAD behind the FabricManagerPartitioning gate, and
// numaNode at HEAD only: they are real names, so selectors may use them.
var published = map[string]deviceNames{
	TypeGPU: {
		attributes: []string{"type", "uuid", "productName", "brand", "architecture", "cudaComputeCapability",
			"driverVersion", "cudaDriverVersion", "addressingMode", "gpuModuleID", "partition1", "partition2", "partition4", "partition8"},
		standard: []string{"pciBusID", "pcieRoot", "numaNode"},
		capacity: append([]string{"memory"}, migEngines...),
	},
	TypeMIG: {
		attributes: []string{"type", "uuid", "parentUUID", "profile", "productName", "brand", "architecture",
			"cudaComputeCapability", "driverVersion", "cudaDriverVersion", "addressingMode"},
		standard: []string{"pciBusID", "pcieRoot", "numaNode"},
		capacity: append([]string{"memory"}, migEngines...),
	},
	TypeVFIO: {
		attributes: []string{"type", "uuid", "deviceID", "vendorID", "productName", "iommuFDEnabled", "numa"},
		standard:   []string{"pciBusID", "pcieRoot", "numaNode"},
		capacity:   []string{"addressableMemory"},
	},
}

// deviceTypes in the order messages list them.
var deviceTypes = []string{TypeGPU, TypeMIG, TypeVFIO}

// removed explains the attributes earlier driver releases published.
var removed = map[string]string{
	"index":       "was removed in driver v25.8.0 (it was NVML's index, which changes across reboots)",
	"minor":       "was removed in driver v25.8.0",
	"parentIndex": "was removed in driver v25.8.0",
	"pcieBusID": "was renamed in driver v25.12.0: it is the standard attribute " +
		`device.attributes["` + StandardDomain + `"].pciBusID`,
}

// AttributeNames are the attributes of the driver's domain a device of
// deviceType carries; every type's for "" (a class not known here).
func AttributeNames(deviceType string) []string {
	return namesOf(deviceType, func(n deviceNames) []string { return n.attributes })
}

// StandardAttributeNames are the StandardDomain attributes the driver
// publishes on a device of deviceType ("" for any).
func StandardAttributeNames(deviceType string) []string {
	return namesOf(deviceType, func(n deviceNames) []string { return n.standard })
}

// CapacityNames are the capacities of the driver's domain on a device of
// deviceType ("" for any), besides MIG's memorySlice<N>.
func CapacityNames(deviceType string) []string {
	return namesOf(deviceType, func(n deviceNames) []string { return n.capacity })
}

func namesOf(deviceType string, pick func(deviceNames) []string) []string {
	if n, ok := published[deviceType]; ok {
		return slices.Clone(pick(n))
	}
	var out []string
	for _, t := range deviceTypes {
		for _, name := range pick(published[t]) {
			if !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	return out
}

// isMemorySlice: MIG devices have one memorySlice<N> capacity per memory
// slice they occupy (N from 0 to 7).
func isMemorySlice(name string) bool {
	n, ok := strings.CutPrefix(name, "memorySlice")
	if !ok {
		return false
	}
	i, err := strconv.Atoi(n)
	return err == nil && i >= 0 && i < 8 && strconv.Itoa(i) == n
}

// typesPublishing lists the device types whose names (picked by pick)
// include name.
func typesPublishing(name string, pick func(deviceNames) []string) []string {
	var out []string
	for _, t := range deviceTypes {
		if slices.Contains(pick(published[t]), name) {
			out = append(out, t)
		}
	}
	return out
}

// sameAttributes maps gpu.dra.same to the attribute every device shares.
var sameAttributes = map[string]string{spec.DRASamePCIeRoot: AttrPCIeRoot, spec.DRASameNUMANode: AttrNUMANode}

// SameAttribute is the matchAttribute for a gpu.dra.same value; ok is
// false for a value not in spec.DRASameNames().
func SameAttribute(same string) (attribute string, ok bool) {
	attribute, ok = sameAttributes[same]
	return attribute, ok
}

// sameUnits name what the devices sharing an attribute have in common, for
// messages: "no PCIe root holds 4 matching devices".
var sameUnits = map[string]string{AttrPCIeRoot: "PCIe root", AttrNUMANode: "NUMA node"}

// SameUnit names what devices sharing a matchAttribute attribute (fully
// qualified) have in common: "PCIe root", "NUMA node", or for an attribute
// the provider does not render, "value of <attribute>".
func SameUnit(attribute string) string {
	if unit, ok := sameUnits[attribute]; ok {
		return unit
	}
	return "value of " + attribute
}
