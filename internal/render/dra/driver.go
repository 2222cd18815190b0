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

// published is the driver's own list per device type as v0.5.0 publishes
// it (gpu-kubelet-plugin deviceinfo.go, mig.go; docs/design/dra.md 1.5 and
// 1.7); the names are the same from v25.12.0 except for those in
// releaseBound. gpuModuleID and partition<N> are published from v0.5.0 on
// whole GPUs and VFIO devices behind the driver's FabricManagerPartitioning
// gate (alpha, off): they are real names, so selectors may use them.
var published = map[string]deviceNames{
	TypeGPU: {
		attributes: append([]string{"type", "uuid", "productName", "brand", "architecture", "cudaComputeCapability",
			"driverVersion", "cudaDriverVersion", "addressingMode"}, fabricManager...),
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
		attributes: append([]string{"type", "uuid", "deviceID", "vendorID", "productName", "iommuFDEnabled"}, fabricManager...),
		standard:   []string{"pciBusID", "pcieRoot", "numaNode"},
		capacity:   []string{"addressableMemory"},
	},
}

// fabricManager are the attributes of the FabricManagerPartitioning gate:
// the GPU's module and the partition of each size that holds it.
var fabricManager = []string{"gpuModuleID", "partition1", "partition2", "partition4", "partition8"}

// deviceTypes in the order messages list them.
var deviceTypes = []string{TypeGPU, TypeMIG, TypeVFIO}

// removed explains the attributes earlier driver releases published.
var removed = map[string]string{
	"index":       "was removed in driver v25.8.0 (it was NVML's index, which changes across reboots)",
	"minor":       "was removed in driver v25.8.0",
	"parentIndex": "was removed in driver v25.8.0",
	"pcieBusID": "was renamed in driver v25.12.0: it is the standard attribute " +
		`device.attributes["` + StandardDomain + `"].pciBusID`,
	"numa": "was removed in driver v0.5.0 (v25.12.0 to v0.4.x publish it on vfio devices only): use the standard " +
		`attribute device.attributes["` + StandardDomain + `"].numaNode`,
}

// releasesInUse are the driver releases the provider follows: what a
// selector or constraint may rely on differs between them (releaseBound).
const releasesInUse = "v0.4.x and v0.5.0"

// releaseBound are the names only some of releasesInUse publish, by domain
// and device type: a selector naming one is accepted with a warning (it
// is right on one release and a CEL runtime error on the other), where a
// name no release in use publishes is an error.
var releaseBound = []struct {
	domain, name string
	types        []string
	why          string
}{
	{StandardDomain, "numaNode", deviceTypes, "is published from driver v0.5.0 on (on gpu, mig and vfio devices, " +
		"when the node knows the device's NUMA node); v0.4.x does not publish it"},
	{Driver, "numa", []string{TypeVFIO}, removed["numa"] + "; v0.4.x still publishes it"},
}

// releaseBoundWhy says why an attribute (domain and name) is published by
// only some of releasesInUse on devices of deviceType ("" for any); "" when
// it is not.
func releaseBoundWhy(domain, name, deviceType string) string {
	for _, b := range releaseBound {
		if b.domain == domain && b.name == name && (deviceType == "" || slices.Contains(b.types, deviceType)) {
			return b.why
		}
	}
	return ""
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
