package capacity

import (
	"slices"
	"strconv"
	"strings"

	resourcev1 "k8s.io/api/resource/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/dra"
)

// A claim's constraints narrow which devices can be allocated together: a
// matchAttribute constraint makes every device of the requests it names
// share one value of an attribute (gpu.dra.same renders one on
// resource.kubernetes.io/pcieRoot or /numaNode). On a node of 8 GPUs with
// two per PCIe root, a claim of 4 on one PCIe root can never be allocated
// however many GPUs are free, so the explanation counts per value of the
// attribute, as the scheduler's allocator compares them
// (docs/design/dra.md section 5, "matchAttribute").

// bindConstraints sets on each way the claim's first request (named
// request) can be met the constraints that bind it: a constraint naming no
// request binds every request, one naming the request binds each of its
// firstAvailable entries, and "<request>/<entry>" binds that entry only
// (resource/v1 DeviceConstraint.Requests).
func bindConstraints(ways []DRARequest, request string, constraints []resourcev1.DeviceConstraint) {
	for _, c := range constraints {
		for i := range ways {
			if !constraintBinds(c.Requests, request, ways[i].Name) {
				continue
			}
			if c.MatchAttribute != nil {
				ways[i].MatchAttributes = appendNew(ways[i].MatchAttributes, string(*c.MatchAttribute))
			}
			if c.DistinctAttribute != nil {
				ways[i].DistinctAttributes = appendNew(ways[i].DistinctAttributes, string(*c.DistinctAttribute))
			}
		}
	}
}

// constraintBinds: named are the constraint's requests, entry the
// firstAvailable entry judged ("" for exactly).
func constraintBinds(named []string, request, entry string) bool {
	return len(named) == 0 || slices.Contains(named, request) ||
		(entry != "" && slices.Contains(named, request+"/"+entry))
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// lookupAttribute finds a constrained attribute on a device as the
// allocator does (lookupAttribute in k8s.io/dynamic-resource-allocation's
// structured allocator): by its fully qualified name, or, when its domain
// is the device's driver, by its bare name.
func lookupAttribute(d DRADevice, name string) (resourcev1.DeviceAttribute, bool) {
	if v, ok := d.Device.Attributes[resourcev1.QualifiedName(name)]; ok {
		return v, true
	}
	domain, id, ok := strings.Cut(name, "/")
	if !ok || domain != d.Device.Driver {
		return resourcev1.DeviceAttribute{}, false
	}
	v, ok := d.Device.Attributes[resourcev1.QualifiedName(id)]
	return v, ok
}

// attributeValues are the values of an attribute a device can share with
// others, each keyed by type and value (the allocator compares both; "1"
// the string never equals 1 the int). A list (the DRAListTypeAttributes
// gate) can share any of its elements. None when the device lacks the
// attribute: such a device never satisfies the constraint.
func attributeValues(d DRADevice, name string) []string {
	v, ok := lookupAttribute(d, name)
	if !ok {
		return nil
	}
	switch {
	case v.StringValue != nil:
		return []string{"s:" + *v.StringValue}
	case v.IntValue != nil:
		return []string{"i:" + strconv.FormatInt(*v.IntValue, 10)}
	case v.BoolValue != nil:
		return []string{"b:" + strconv.FormatBool(*v.BoolValue)}
	case v.VersionValue != nil:
		return []string{"v:" + *v.VersionValue}
	}
	var out []string
	for _, s := range v.StringValues {
		out = appendNew(out, "s:"+s)
	}
	for _, i := range v.IntValues {
		out = appendNew(out, "i:"+strconv.FormatInt(i, 10))
	}
	for _, b := range v.BoolValues {
		out = appendNew(out, "b:"+strconv.FormatBool(b))
	}
	return out
}

// sharedKeys are the groups a device can be allocated in under the
// constraints on attributes: one per combination of their values (one
// group for scalar attributes); none when it lacks one of them.
func sharedKeys(d DRADevice, attributes []string) []string {
	keys := []string{""}
	for _, name := range attributes {
		values := attributeValues(d, name)
		next := make([]string, 0, len(keys)*len(values))
		for _, k := range keys {
			for _, v := range values {
				next = append(next, k+"\x00"+v)
			}
		}
		keys = next
	}
	return keys
}

// sharedTally counts one node's matching devices per group of shared
// attribute values.
type sharedTally struct {
	attributes []string
	all, free  map[string]int64
	// unattributed lack a constrained attribute.
	unattributed int64
}

// newSharedTally is nil without constraints: nothing to count, and a
// large cluster's nodes allocate nothing for it.
func newSharedTally(attributes []string) *sharedTally {
	if len(attributes) == 0 {
		return nil
	}
	return &sharedTally{attributes: attributes, all: map[string]int64{}, free: map[string]int64{}}
}

// add counts a matching device.
func (t *sharedTally) add(d DRADevice) {
	if t == nil {
		return
	}
	keys := sharedKeys(d, t.attributes)
	if len(keys) == 0 {
		t.unattributed++
	}
	for _, k := range keys {
		t.all[k]++
		if d.Available() {
			t.free[k]++
		}
	}
}

// most is the largest group, of all matching devices and of free ones.
func (t *sharedTally) most() (all, free int64) {
	if t == nil {
		return 0, 0
	}
	for _, n := range t.all {
		all = max(all, n)
	}
	for _, n := range t.free {
		free = max(free, n)
	}
	return all, free
}

// missing counts the matching devices lacking a constrained attribute.
func (t *sharedTally) missing() int64 {
	if t == nil {
		return 0
	}
	return t.unattributed
}

// sharedUnit names what the constrained devices have in common: "PCIe
// root", or several joined ("PCIe root and NUMA node").
func sharedUnit(attributes []string) string {
	units := make([]string, len(attributes))
	for i, a := range attributes {
		units[i] = dra.SameUnit(a)
	}
	return strings.Join(units, " and ")
}

// describeShared says how the constrained devices meet the claim on the
// nodes the pod may use; count is what the claim asks for.
func describeShared(d DRAMatch, count string) string {
	unit := sharedUnit(d.Same)
	switch {
	case d.MaxSame == 0 && d.Unattributed > 0:
		return ", but no matching device on those nodes publishes " + strings.Join(d.Same, " and ") +
			", which the claim's matchAttribute constraint needs (a device without it is never allocated to the claim)"
	case d.MaxSame < max(d.Count, 1):
		s := ", at most " + strconv.FormatInt(d.MaxFreeSame, 10) + " free on one " + unit + ": no " + unit + " holds " +
			count + " matching devices"
		if d.MaxSame != d.MaxFreeSame {
			s += " (at most " + strconv.FormatInt(d.MaxSame, 10) + " on one, free or not)"
		}
		return s + ", and the claim asks for " + count + " of one " + unit
	case d.MaxFreeSame < max(d.Count, 1):
		return ", at most " + strconv.FormatInt(d.MaxFreeSame, 10) + " free on one " + unit + " and the claim asks for " +
			count + " of one " + unit
	}
	return ", at most " + strconv.FormatInt(d.MaxFreeSame, 10) + " free on one " + unit
}

// DescribeDRARequest says what one way of meeting the claim asks for, e.g.
// "4 device(s) of class gpu.nvidia.com, all of one node and of one PCIe
// root (matchAttribute resource.kubernetes.io/pcieRoot)".
func DescribeDRARequest(r DRARequest) string {
	s := strconv.FormatInt(max(r.Count, 1), 10) + " device(s) of class " + r.Class + ", all of one node"
	if len(r.MatchAttributes) > 0 {
		s += " and of one " + sharedUnit(r.MatchAttributes) + " (matchAttribute " + strings.Join(r.MatchAttributes, ", ") + ")"
	}
	if len(r.DistinctAttributes) > 0 {
		s += "; its distinctAttribute constraint on " + strings.Join(r.DistinctAttributes, ", ") +
			" is not counted below, so the free devices counted are an upper bound"
	}
	return s
}
