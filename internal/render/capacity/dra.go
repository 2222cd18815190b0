package capacity

import (
	"cmp"
	"maps"
	"slices"
	"sync"

	resourcev1 "k8s.io/api/resource/v1"
	dracel "k8s.io/dynamic-resource-allocation/cel"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/dra"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// DRADriver is the DRA driver whose devices capacity counts: NVIDIA's.
// Its pools are per node and named after the node (docs/design/dra.md 1.5).
const DRADriver = dra.Driver

// draKeySuffix ends the key of a pool of DRA nodes: they get pools of their
// own, apart from the device plugin's nodes of the same product.
const draKeySuffix = "/dra"

// DeviceRef names a device as a claim's allocation result does.
type DeviceRef struct{ Driver, Pool, Device string }

// DRADevice is one device a node publishes, as the DRA CEL library takes
// it, and whether a claim holds it.
type DRADevice struct {
	Node, Pool, Name string
	Allocated        bool
	Device           dracel.Device
	// Taints are the device's taints in its ResourceSlice (only present
	// where the apiserver has DRADeviceTaints on: it drops the field
	// otherwise, so taints seen are taints the scheduler honours), then
	// those of the DeviceTaintRules that select it (AddTaintRule).
	Taints []resourcev1.DeviceTaint
	// SharesCounters: the device consumes shared counters
	// (DRAPartitionableDevices), as NVIDIA's dynamic MIG publishes them.
	SharesCounters bool
}

// BlockingTaints are the taints that keep the device from claims without
// a matching toleration: NoSchedule and NoExecute. None is informational,
// and unknown effects are to be read as None (the API's own rule).
func (d DRADevice) BlockingTaints() []resourcev1.DeviceTaint {
	var out []resourcev1.DeviceTaint
	for _, t := range d.Taints {
		if t.Effect == resourcev1.DeviceTaintEffectNoSchedule || t.Effect == resourcev1.DeviceTaintEffectNoExecute {
			out = append(out, t)
		}
	}
	return out
}

// Available reports whether a claim of the provider's (no tolerations)
// could get the device now: no claim holds it, no taint blocks it, and it
// shares no counters (whose use by siblings is not modelled).
func (d DRADevice) Available() bool {
	return !d.Allocated && len(d.BlockingTaints()) == 0 && !d.SharesCounters
}

// Attribute is a string attribute of the driver's domain, "" when the
// device has none. The driver publishes them unqualified; a qualified key
// is the same attribute.
func (d DRADevice) Attribute(name string) string {
	for _, key := range []resourcev1.QualifiedName{resourcev1.QualifiedName(name), resourcev1.QualifiedName(DRADriver + "/" + name)} {
		if v, ok := d.Device.Attributes[key]; ok && v.StringValue != nil {
			return *v.StringValue
		}
	}
	return ""
}

// DRAInputs collects the driver's ResourceSlices and the claims'
// allocations one object at a time, as a caller paging through a cluster
// reads them: it keeps devices and allocated device names, not objects.
// AddSlice and AddClaim may be called from two goroutines.
type DRAInputs struct {
	mu        sync.Mutex
	pools     map[string]*slicePool // by the driver's pool name
	allocated map[DeviceRef]bool
	rules     []taintRule
}

// taintRule is a DeviceTaintRule's selector and taint.
type taintRule struct {
	pool, device *string
	taint        resourcev1.DeviceTaint
}

// selects follows the API's rule: every field set must match the device.
func (r taintRule) selects(pool, device string) bool {
	return (r.pool == nil || *r.pool == pool) && (r.device == nil || *r.device == device)
}

// slicePool holds the slices of a pool's highest generation: a driver
// republishing a pool bumps the generation, and the scheduler ignores the
// slices of older generations still being deleted.
type slicePool struct {
	generation int64
	slices     []poolSlice
}

type poolSlice struct {
	node    string
	devices []resourcev1.Device
}

// NewDRAInputs returns empty inputs.
func NewDRAInputs() *DRAInputs {
	return &DRAInputs{pools: map[string]*slicePool{}, allocated: map[DeviceRef]bool{}}
}

// AddSlice keeps the devices of a slice of the driver's. Slices without a
// node (devices reachable from several nodes, spec.nodeSelector or
// allNodes) are not attributed to any node and so are left out: NVIDIA's
// GPU driver publishes node-local slices only.
func (in *DRAInputs) AddSlice(s *resourcev1.ResourceSlice) {
	if in == nil || s.Spec.Driver != DRADriver || s.Spec.NodeName == nil || *s.Spec.NodeName == "" {
		return
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	p := in.pools[s.Spec.Pool.Name]
	switch {
	case p == nil || s.Spec.Pool.Generation > p.generation:
		p = &slicePool{generation: s.Spec.Pool.Generation}
		in.pools[s.Spec.Pool.Name] = p
	case s.Spec.Pool.Generation < p.generation:
		return
	}
	p.slices = append(p.slices, poolSlice{node: *s.Spec.NodeName, devices: slices.Clone(s.Spec.Devices)})
}

// AddClaim records the driver's devices allocated to a claim. A claim
// keeps its devices until it is deallocated, also while being deleted.
func (in *DRAInputs) AddClaim(c *resourcev1.ResourceClaim) {
	if in == nil || c.Status.Allocation == nil {
		return
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	for _, r := range c.Status.Allocation.Devices.Results {
		if r.Driver == DRADriver {
			in.allocated[DeviceRef{Driver: r.Driver, Pool: r.Pool, Device: r.Device}] = true
		}
	}
}

// AddTaintRule keeps a DeviceTaintRule that can select the driver's
// devices (resource.k8s.io/v1 from Kubernetes 1.37, where the scheduler
// honours it as it does a taint in the slice). A rule without a selector
// selects nothing; an empty selector selects every device (the API's
// rule). The selector's driver, pool and device names are all there is
// since 1.35 (its class and CEL fields were withdrawn).
func (in *DRAInputs) AddTaintRule(r *resourcev1.DeviceTaintRule) {
	sel := r.Spec.DeviceSelector
	if in == nil || sel == nil || (sel.Driver != nil && *sel.Driver != DRADriver) {
		return
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	in.rules = append(in.rules, taintRule{pool: sel.Pool, device: sel.Device, taint: r.Spec.Taint})
}

// taintsOf are the device's slice taints and those of the rules that
// select it.
func (in *DRAInputs) taintsOf(pool string, d resourcev1.Device) []resourcev1.DeviceTaint {
	taints := d.Taints
	for _, r := range in.rules {
		if r.selects(pool, d.Name) {
			taints = append(slices.Clip(taints), r.taint)
		}
	}
	return taints
}

// byNode returns every node publishing slices of the driver with its
// devices (an entry, possibly empty, for each such node). Nil inputs have
// none.
func (in *DRAInputs) byNode() map[string][]DRADevice {
	out := map[string][]DRADevice{}
	if in == nil {
		return out
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	for _, name := range slices.Sorted(maps.Keys(in.pools)) {
		for _, s := range in.pools[name].slices {
			devices := out[s.node]
			for _, d := range s.devices {
				devices = append(devices, DRADevice{
					Node: s.node, Pool: name, Name: d.Name,
					Allocated: in.allocated[DeviceRef{Driver: DRADriver, Pool: name, Device: d.Name}],
					Device:    dracel.Device{Driver: DRADriver, Attributes: d.Attributes, Capacity: d.Capacity},
					Taints:    in.taintsOf(name, d), SharesCounters: len(d.ConsumesCounters) > 0,
				})
			}
			out[s.node] = devices
		}
	}
	return out
}

// deviceCounts adds up devices by product, type and MIG profile.
type deviceCounts map[spec.DRADeviceCount]*spec.DRADeviceCount

// add counts the devices of n (its published, allocated, tainted and
// partitionable figures) into n's kind.
func (m deviceCounts) add(n spec.DRADeviceCount) {
	kind := spec.DRADeviceCount{Product: n.Product, Type: n.Type, Profile: n.Profile}
	c := m[kind]
	if c == nil {
		c = &spec.DRADeviceCount{Product: kind.Product, Type: kind.Type, Profile: kind.Profile}
		m[kind] = c
	}
	c.Published = clouds.AddSat(c.Published, n.Published)
	c.Allocated = clouds.AddSat(c.Allocated, n.Allocated)
	c.Tainted = clouds.AddSat(c.Tainted, n.Tainted)
	c.Partitionable = clouds.AddSat(c.Partitionable, n.Partitionable)
}

// countDevices groups devices by product, type and MIG profile, sorted.
// Each device counts once among allocated, tainted, partitionable and free.
func countDevices(devices []DRADevice) []spec.DRADeviceCount {
	counts := deviceCounts{}
	for _, d := range devices {
		n := spec.DRADeviceCount{Product: d.Attribute("productName"), Type: d.Attribute("type"), Profile: d.Attribute("profile"), Published: 1}
		switch {
		case d.Allocated:
			n.Allocated = 1
		case len(d.BlockingTaints()) > 0:
			n.Tainted = 1
		case d.SharesCounters:
			n.Partitionable = 1
		}
		counts.add(n)
	}
	return counts.sorted()
}

// sumCounts adds up the nodes' counts.
func sumCounts(nodes []spec.NodeCapacity) []spec.DRADeviceCount {
	counts := deviceCounts{}
	for _, n := range nodes {
		for _, d := range n.DRADevices {
			counts.add(d)
		}
	}
	return counts.sorted()
}

func (m deviceCounts) sorted() []spec.DRADeviceCount {
	if len(m) == 0 {
		return nil
	}
	out := make([]spec.DRADeviceCount, 0, len(m))
	for _, c := range m {
		out = append(out, *c)
	}
	slices.SortFunc(out, func(a, b spec.DRADeviceCount) int {
		return cmp.Or(cmp.Compare(a.Product, b.Product), cmp.Compare(a.Type, b.Type), cmp.Compare(a.Profile, b.Profile))
	})
	return out
}
