package dra

import (
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	dracel "k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/utils/ptr"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
)

// Target is what a claim asks for, which its raw selectors must not
// contradict.
type Target struct {
	// Class is the device class the claim names.
	Class string
	// Accelerators in preference order; empty for any GPU.
	Accelerators []*catalog.Accelerator
	// Partition is the MIG profile asked for; nil for whole GPUs.
	Partition *catalog.MIGProfile
}

// TargetOf is the target of a request's selectors.
func TargetOf(r Request) Target {
	return Target{Class: r.Class(), Accelerators: r.Accelerators, Partition: r.Partition}
}

// deviceType is the type of device the target's class selects; "" for a
// class that is not the driver's (it may select another driver's devices,
// a fake one's in a test cluster, so nothing is assumed of them).
func (t Target) deviceType() string { return DeviceTypeOfClass(t.Class) }

// modelDevices are the devices one accelerator could be published as.
type modelDevices struct {
	accelerator *catalog.Accelerator // nil: any model
	devices     []dracel.Device
}

// devices are the devices the driver would publish for the target, per
// accelerator: each holds only what is certain for every such device (its
// type; the product name and NVML memory the catalog recorded; the MIG
// profile). A selector reading anything else stops with "no such key" on
// them, which the checks take as "cannot tell", never as a contradiction.
// None under a class that is not the driver's.
func (t Target) devices() []modelDevices {
	typ := t.deviceType()
	if typ == "" {
		return nil
	}
	if len(t.Accelerators) == 0 {
		return []modelDevices{{devices: []dracel.Device{t.device(typ, nil)}}}
	}
	out := make([]modelDevices, 0, len(t.Accelerators))
	for _, a := range t.Accelerators {
		if a == nil {
			continue
		}
		m := modelDevices{accelerator: a}
		for i := range a.DriverProducts {
			m.devices = append(m.devices, t.device(typ, &a.DriverProducts[i]))
		}
		if len(m.devices) == 0 {
			m.devices = append(m.devices, t.device(typ, nil))
		}
		out = append(out, m)
	}
	return out
}

// device is one synthetic device of the driver, as the CEL library takes
// it. The memory capacity is a whole GPU's NVML memory: a MIG device's is
// its profile's, which no real reading records.
func (t Target) device(typ string, product *catalog.DriverProduct) dracel.Device {
	d := dracel.Device{
		Driver:     Driver,
		Attributes: map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{},
		Capacity:   map[resourcev1.QualifiedName]resourcev1.DeviceCapacity{},
	}
	d.Attributes["type"] = resourcev1.DeviceAttribute{StringValue: ptr.To(typ)}
	if product != nil {
		d.Attributes["productName"] = resourcev1.DeviceAttribute{StringValue: ptr.To(product.Name)}
		if typ == TypeGPU {
			d.Capacity["memory"] = resourcev1.DeviceCapacity{Value: *resource.NewQuantity(product.MemoryMiB<<20, resource.BinarySI)}
		}
	}
	if t.Partition != nil && typ == TypeMIG {
		d.Attributes["profile"] = resourcev1.DeviceAttribute{StringValue: ptr.To(t.Partition.Name)}
	}
	return d
}
