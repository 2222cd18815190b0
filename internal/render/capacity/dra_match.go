package capacity

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	draapiv1beta1 "k8s.io/dynamic-resource-allocation/api/v1beta1"
	dracel "k8s.io/dynamic-resource-allocation/cel"

	"github.com/gpuform/terraform-provider-gpu/internal/render/dra"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// DRARequest is one way a claim's request can be met: Count devices of
// Class that pass every Selector (CEL), all sharing the values of
// MatchAttributes. A request with firstAvailable is one DRARequest per
// entry, in order.
type DRARequest struct {
	Name      string // the firstAvailable entry; "" for exactly
	Class     string
	Selectors []string
	Count     int64
	// MatchAttributes are the fully qualified attributes of the claim's
	// matchAttribute constraints binding this request or entry: every
	// device allocated has the same value of each (dra.same's PCIe root).
	MatchAttributes []string
	// DistinctAttributes are those of its distinctAttribute constraints,
	// which matching does not count (the provider renders none).
	DistinctAttributes []string
}

// DRARequestsV1 are the alternatives of the claim's first request, each
// with the constraints binding it (a gpu_workload claim has one request; a
// pod needs every request of a claim, and the first is what the
// explanation judges).
func DRARequestsV1(s resourcev1.ResourceClaimSpec) []DRARequest {
	if len(s.Devices.Requests) == 0 {
		return nil
	}
	r := s.Devices.Requests[0]
	var out []DRARequest
	if e := r.Exactly; e != nil {
		out = []DRARequest{{Class: e.DeviceClassName, Selectors: celV1(e.Selectors), Count: e.Count}}
	}
	for _, sub := range r.FirstAvailable {
		out = append(out, DRARequest{Name: sub.Name, Class: sub.DeviceClassName, Selectors: celV1(sub.Selectors), Count: sub.Count})
	}
	bindConstraints(out, r.Name, s.Devices.Constraints)
	return out
}

// DRARequestsV1beta1 is DRARequestsV1 for a v1beta1 claim, converted to v1
// the way Kubernetes' DRA client library (k8s.io/dynamic-resource-allocation/client)
// reads one: the request's own fields become its exactly.
func DRARequestsV1beta1(s resourcev1beta1.ResourceClaimSpec) []DRARequest {
	var v1 resourcev1.ResourceClaimSpec
	// The conversion only copies fields: its error return is for converters
	// that can fail, and none of these can. A spec it refused all the same
	// would have no requests to explain.
	if err := draapiv1beta1.Convert_v1beta1_ResourceClaimSpec_To_v1_ResourceClaimSpec(&s, &v1, nil); err != nil {
		return nil
	}
	return DRARequestsV1(v1)
}

func celV1(selectors []resourcev1.DeviceSelector) []string {
	var out []string
	for _, s := range selectors {
		if s.CEL != nil {
			out = append(out, s.CEL.Expression)
		}
	}
	return out
}

// DRAMatch is how a pool's devices meet one DRARequest.
type DRAMatch struct {
	Request string `json:"request,omitempty"` // DRARequest.Name
	Count   int64  `json:"count"`             // devices asked for, all of one node
	// Published are all the pool's devices; Matching those passing the
	// class's and the request's selectors, Free those of them no claim
	// holds; MaxFreeOnNode the most free matching devices on one node the
	// pod's placement admits (a claim's devices come from one node's pool).
	Published     int64    `json:"published"`
	Matching      int64    `json:"matching"`
	Free          int64    `json:"free"`
	MaxFreeOnNode int64    `json:"max_free_on_node"`
	Products      []string `json:"products,omitempty"` // of the matching devices, sorted
	// Same are the request's MatchAttributes. With them, MaxFreeSame is
	// the most free matching devices sharing one value of each on one node
	// the placement admits (one PCIe root of one node): what the scheduler
	// can allocate. MaxSame counts those devices free or not (what the
	// nodes' layout gives at best); Unattributed are matching devices on
	// those nodes lacking an attribute, which no constraint admits.
	Same         []string `json:"same,omitempty"`
	MaxFreeSame  int64    `json:"max_free_same,omitempty"`
	MaxSame      int64    `json:"max_same,omitempty"`
	Unattributed int64    `json:"unattributed,omitempty"`
	// Tainted are matching devices no claim holds that a NoSchedule or
	// NoExecute device taint keeps from the claim (it has no toleration);
	// TaintedDevices names up to maxNamedTainted of them with their taints.
	// Partitionable are matching devices no claim holds that consume shared
	// counters (dynamic MIG), not counted free. Neither is in Free.
	Tainted        int64    `json:"tainted,omitempty"`
	TaintedDevices []string `json:"tainted_devices,omitempty"`
	Partitionable  int64    `json:"partitionable,omitempty"`
	// Error says why matching could not be judged: an unknown class, a
	// selector that does not compile or fails on a device.
	Error string `json:"error,omitempty"`
}

// fits reports whether one node admitting the pod has enough free devices
// that also share the constrained attributes.
func (m DRAMatch) fits() bool {
	count := max(m.Count, 1)
	return m.Error == "" && m.MaxFreeOnNode >= count && (len(m.Same) == 0 || m.MaxFreeSame >= count)
}

// MatchingDRAPools judges the pools for a pod whose claim asks for one of
// requests (in order), as MatchingPools does for extended resources: the
// placement rules, then the devices. Only pools of DRA nodes can serve a
// claim; the others come back with Fits false and no DRA matches. classes
// are the cluster's DeviceClass selectors by name; nil when they could not
// be read, and then the driver's own classes are taken as its chart
// installs them. A request's matchAttribute constraints are counted: the
// devices must also share one value of each attribute on one node.
func MatchingDRAPools(pools []spec.PoolCapacity, nodeSelector map[string]string, affinity *corev1.Affinity,
	tolerations []corev1.Toleration, requests []DRARequest, classes map[string][]string, in *DRAInputs) []PoolMatch {
	out := MatchingPools(pools, nodeSelector, affinity, tolerations, "")
	devices := in.byNode()
	compiled := make([]compiledRequest, len(requests))
	for i, r := range requests {
		compiled[i] = compileRequest(r, classes)
	}
	for i := range pools {
		p := &pools[i]
		if p.DRADriver == "" {
			out[i].Fits = false
			continue
		}
		admitted := func(n *spec.NodeCapacity) bool {
			return len(placementMismatches(n, nodeSelector, affinity, tolerations)) == 0
		}
		out[i].Fits = false
		for _, c := range compiled {
			m := c.match(p, devices, admitted)
			out[i].DRA = append(out[i].DRA, m)
			out[i].Fits = out[i].Fits || (out[i].PlacementNodes > 0 && m.fits())
		}
	}
	return out
}

// compiledRequest is a request with its class's and its own selectors
// compiled by the scheduler's CEL library.
type compiledRequest struct {
	DRARequest
	selectors []dracel.CompilationResult
	err       string
}

func compileRequest(r DRARequest, classes map[string][]string) compiledRequest {
	c := compiledRequest{DRARequest: r}
	classSelectors, known := classes[r.Class]
	if !known {
		typ := dra.DeviceTypeOfClass(r.Class)
		switch {
		case classes != nil:
			c.err = "the cluster has no DeviceClass " + strconv.Quote(r.Class)
			return c
		case typ == "":
			c.err = "the DeviceClass " + strconv.Quote(r.Class) + " could not be read"
			return c
		}
		// The selector of the driver's chart (docs/design/dra.md 1.3).
		classSelectors = []string{`device.driver == "` + dra.Driver + `" && device.attributes["` + dra.Driver + `"].type == "` + typ + `"`}
	}
	compiler := dracel.GetCompiler(dracel.Features{})
	for _, expression := range append(slices.Clone(classSelectors), r.Selectors...) {
		result := compiler.CompileCELExpression(expression, dracel.Options{})
		if result.Error != nil {
			c.err = "selector " + strconv.Quote(expression) + " does not compile: " + result.Error.Detail
			return c
		}
		c.selectors = append(c.selectors, result)
	}
	return c
}

// match counts the pool's devices that pass every selector, and per node
// those sharing the constrained attributes.
func (c compiledRequest) match(p *spec.PoolCapacity, devices map[string][]DRADevice, admitted func(*spec.NodeCapacity) bool) DRAMatch {
	m := DRAMatch{Request: c.Name, Count: c.Count, Error: c.err, Same: c.MatchAttributes}
	products := map[string]bool{}
	for i := range p.Nodes {
		n := &p.Nodes[i]
		var free int64
		shared := newSharedTally(c.MatchAttributes)
		for _, d := range devices[n.Name] {
			m.Published++
			ok, err := c.matches(d)
			if err != "" && m.Error == "" {
				m.Error = err
			}
			if !ok {
				continue
			}
			m.Matching++
			products[d.Attribute("productName")] = true
			shared.add(d)
			switch {
			case d.Available():
				m.Free++
				free++
			case d.Allocated:
			case len(d.BlockingTaints()) > 0:
				m.Tainted++
				if len(m.TaintedDevices) < maxNamedTainted {
					m.TaintedDevices = append(m.TaintedDevices, describeTainted(d))
				}
			default:
				m.Partitionable++
			}
		}
		if admitted(n) {
			m.MaxFreeOnNode = max(m.MaxFreeOnNode, free)
			all, freeShared := shared.most()
			m.MaxSame, m.MaxFreeSame = max(m.MaxSame, all), max(m.MaxFreeSame, freeShared)
			m.Unattributed += shared.missing()
		}
	}
	if m.Error != "" {
		m.Matching, m.Free, m.MaxFreeOnNode, products = 0, 0, 0, nil
		m.Tainted, m.TaintedDevices, m.Partitionable = 0, nil, 0
		m.MaxSame, m.MaxFreeSame, m.Unattributed = 0, 0, 0
	}
	delete(products, "")
	m.Products = slices.Sorted(maps.Keys(products))
	return m
}

// matches evaluates every selector on a device. A runtime error fails
// the allocation in the scheduler, so it is reported, not skipped.
func (c compiledRequest) matches(d DRADevice) (bool, string) {
	if c.err != "" {
		return false, ""
	}
	for _, s := range c.selectors {
		ok, _, err := s.DeviceMatches(context.Background(), d.Device)
		if err != nil {
			return false, "selector " + strconv.Quote(s.Expression) + " fails on device " + d.Name + " of " + d.Node + ": " +
				dracel.EnhanceRuntimeError(err).Error()
		}
		if !ok {
			return false, ""
		}
	}
	return true, ""
}

// DescribeDRA says how a pool's devices meet the claim, one phrase per
// request (prefixed by its name when there are several), e.g. "16 matching
// devices published (NVIDIA H100 80GB HBM3), 3 free, at most 3 free on one
// node and the claim asks for 9 of one node", or with a constraint "...,
// at most 8 free on one node, at most 2 free on one PCIe root: no PCIe root
// holds 4 matching devices, and the claim asks for 4 of one PCIe root".
func DescribeDRA(m PoolMatch) string {
	parts := make([]string, 0, len(m.DRA))
	for _, d := range m.DRA {
		s := describeDRAMatch(d, m.PlacementNodes > 0)
		if len(m.DRA) > 1 {
			s = "request " + d.Request + ": " + s
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// describeDRAMatch: the most free on one node counts only nodes the pod
// may use, so it is left out when there are none (the placement reasons
// say why).
func describeDRAMatch(d DRAMatch, placed bool) string {
	count := strconv.FormatInt(max(d.Count, 1), 10)
	switch {
	case d.Error != "":
		return "cannot tell which devices match: " + d.Error
	case d.Matching == 0:
		return "none of its " + strconv.FormatInt(d.Published, 10) + " published devices matches the claim"
	}
	s := strconv.FormatInt(d.Matching, 10) + " matching devices published"
	if len(d.Products) > 0 {
		s += " (" + strings.Join(d.Products, ", ") + ")"
	}
	s += ", " + strconv.FormatInt(d.Free, 10) + " free" + describeUnusable(d)
	if !placed {
		return s
	}
	s += ", at most " + strconv.FormatInt(d.MaxFreeOnNode, 10) + " free on one node"
	switch {
	case len(d.Same) > 0:
		s += describeShared(d, count)
	case !d.fits():
		s += " and the claim asks for " + count + " of one node"
	}
	return s
}

// maxNamedTainted bounds the tainted devices a message names.
const maxNamedTainted = 3

// describeTainted names a tainted device and its blocking taints:
// "gpu-3 of node-a (gpu.nvidia.com/unhealthy=XID:NoExecute)".
func describeTainted(d DRADevice) string {
	taints := make([]string, 0, len(d.Taints))
	for _, t := range d.BlockingTaints() {
		taint := t.Key
		if t.Value != "" {
			taint += "=" + t.Value
		}
		taints = append(taints, taint+":"+string(t.Effect))
	}
	return d.Name + " of " + d.Node + " (" + strings.Join(taints, ", ") + ")"
}

// describeUnusable says which matching devices no claim holds and yet are
// not free: tainted ones by name, and those that share counters, with the
// reason (docs/design/dra-versions.md#4-device-taints-and-partitionable-devices).
func describeUnusable(d DRAMatch) string {
	var parts []string
	if d.Tainted > 0 {
		s := strconv.FormatInt(d.Tainted, 10) + " more tainted (NoSchedule or NoExecute; the claim has no toleration): " +
			strings.Join(d.TaintedDevices, ", ")
		if n := d.Tainted - int64(len(d.TaintedDevices)); n > 0 {
			s += " and " + strconv.FormatInt(n, 10) + " more"
		}
		parts = append(parts, s)
	}
	if d.Partitionable > 0 {
		parts = append(parts, strconv.FormatInt(d.Partitionable, 10)+" more that share counters (partitionable devices, the "+
			"driver's dynamic MIG), not counted: the provider does not model counter use, and places no claim on them knowingly")
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}
