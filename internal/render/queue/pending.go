package queue

import (
	"maps"
	"regexp"
	"slices"
	"strings"
)

// Kueue explains a pending Workload per pod set, with one reason for every
// flavor it tried (pkg/scheduler/flavorassigner, Assignment.Message and
// Status.Message in v0.17.0): "couldn't assign flavors to pod set main:
// flavor mig doesn't match node affinity, insufficient unused quota for
// nvidia.com/gpu in flavor a100, 4 more needed". A flavor that is another
// pool's says it does not match, and that is expected; what counts is
// whether any flavor could take the pod set once quota frees up. Kueue's
// reasons are read here, once (docs/design/queues.md, "Why Kueue keeps a
// workload pending").

// reasonKind is what one of Kueue's reasons says of a flavor.
type reasonKind int

const (
	// reasonWaits: the flavor can take the pod set once quota frees up
	// (used by other work now, or to be had by preemption or borrowing).
	reasonWaits reasonKind = iota
	// reasonNever: the flavor, as written, can never take the pod set.
	reasonNever
)

// flavorReason is one pattern of Kueue's per-flavor reasons; its "flavor"
// group names the flavor.
type flavorReason struct {
	pattern *regexp.Regexp
	kind    reasonKind
}

// flavorReasons are Kueue v0.17.0's reasons for not assigning a flavor to
// a pod set (flavorassigner.go: checkFlavorForPodSets, fitsResourceQuota;
// tas_flavorassigner.go: checkPodSetAndFlavorMatchForTAS). A reason of
// none of these shapes is not judged: the workload is then reported as
// queued, never as one that cannot run.
var flavorReasons = []flavorReason{
	{regexp.MustCompile(`insufficient unused quota for \S+ in flavor (?P<flavor>\S+), \S+ more needed`), reasonWaits},
	{regexp.MustCompile(`could not assign (?P<flavor>\S+) flavor since the original workload is assigned: \S+`), reasonWaits},
	{regexp.MustCompile(`insufficient quota for \S+ in flavor (?P<flavor>\S+), previously considered podsets requests \([^)]*\) \+ current podset request \([^)]*\) > maximum capacity \([^)]*\)`), reasonNever},
	{regexp.MustCompile(`flavor (?P<flavor>\S+) doesn't match node affinity`), reasonNever},
	{regexp.MustCompile(`untolerated taint .+? in flavor (?P<flavor>[^\s,]+)`), reasonNever},
	{regexp.MustCompile(`flavor (?P<flavor>\S+) not found`), reasonNever},
	{regexp.MustCompile(`Flavor "(?P<flavor>[^"]+)" (?:does not support TopologyAwareScheduling|information missing in TAS cache|does not contain the requested level|supports only TopologyAwareScheduling)`), reasonNever},
}

// resourceUnavailable is a pod set's resource that no flavor of the
// ClusterQueue offers: no flavor is tried, and none will ever take it.
var resourceUnavailable = regexp.MustCompile(`resource \S+ unavailable in ClusterQueue`)

const podSetPrefix = "couldn't assign flavors to pod set "

// FlavorVerdict is Kueue's reasons for one flavor of one pod set.
type FlavorVerdict struct {
	Flavor  string
	Never   bool     // some reason says the flavor can never take the pod set
	Reasons []string // Kueue's words, as written
}

// PodSetReasons is Kueue's reasons for one pod set it could not place.
type PodSetReasons struct {
	PodSet  string
	Flavors []FlavorVerdict // in the order Kueue lists them
	// Unplaceable: Kueue names a requested resource no flavor offers.
	Unplaceable bool
	// Unread is true where part of the message fits no known reason: the
	// pod set is then not judged never to fit.
	Unread bool
}

// NeverFits reports whether Kueue's reasons say that no flavor can ever
// take the pod set: a resource no flavor offers, or a permanent reason for
// every flavor it tried, and nothing left unread.
func (p PodSetReasons) NeverFits() bool {
	if p.Unplaceable {
		return true
	}
	if p.Unread || len(p.Flavors) == 0 {
		return false
	}
	return !slices.ContainsFunc(p.Flavors, func(f FlavorVerdict) bool { return !f.Never })
}

// WaitingFlavors are the flavors that can take the pod set once quota
// frees up.
func (p PodSetReasons) WaitingFlavors() []FlavorVerdict {
	return slices.DeleteFunc(slices.Clone(p.Flavors), func(f FlavorVerdict) bool { return f.Never })
}

// ParsePending reads Kueue's pending message (the QuotaReserved
// condition's, with or without its "Pending: " reason in front) into its
// pod sets and their flavors' reasons. A message that names no pod set
// gives none.
func ParsePending(message string) []PodSetReasons {
	var out []PodSetReasons
	for _, part := range strings.Split(message, "; ") {
		i := strings.Index(part, podSetPrefix)
		if i < 0 {
			continue
		}
		rest := part[i+len(podSetPrefix):]
		name, reasons, ok := strings.Cut(rest, ": ")
		if !ok {
			continue
		}
		out = append(out, parsePodSet(name, reasons))
	}
	return out
}

func parsePodSet(name, reasons string) PodSetReasons {
	ps := PodSetReasons{PodSet: name}
	verdicts := map[string]*FlavorVerdict{}
	remaining := reasons
	for _, r := range flavorReasons {
		for _, m := range r.pattern.FindAllStringSubmatchIndex(reasons, -1) {
			flavor := reasons[m[2]:m[3]]
			v := verdicts[flavor]
			if v == nil {
				v = &FlavorVerdict{Flavor: flavor}
				verdicts[flavor] = v
			}
			v.Never = v.Never || r.kind == reasonNever
			v.Reasons = append(v.Reasons, reasons[m[0]:m[1]])
			remaining = strings.Replace(remaining, reasons[m[0]:m[1]], "", 1)
		}
	}
	if resourceUnavailable.MatchString(remaining) {
		ps.Unplaceable = true
		remaining = resourceUnavailable.ReplaceAllString(remaining, "")
	}
	ps.Unread = strings.Trim(remaining, ", ") != ""
	for _, flavor := range flavorOrder(reasons, slices.Collect(maps.Keys(verdicts))) {
		ps.Flavors = append(ps.Flavors, *verdicts[flavor])
	}
	return ps
}

// flavorOrder sorts flavors by where Kueue first names them.
func flavorOrder(message string, flavors []string) []string {
	slices.SortFunc(flavors, func(a, b string) int {
		return firstMention(message, a) - firstMention(message, b)
	})
	return flavors
}

func firstMention(message, flavor string) int {
	best := len(message)
	for _, form := range []string{"flavor " + flavor, flavor + " flavor", `Flavor "` + flavor + `"`} {
		if i := strings.Index(message, form); i >= 0 && i < best {
			best = i
		}
	}
	return best
}

// QueuedDetail says, from Kueue's reasons, which flavors will take the
// work once quota frees up and which cannot take it (expected where they
// are other pools'), one line per pod set. Empty when Kueue's message
// names no flavor.
func (s Status) QueuedDetail() string {
	var b strings.Builder
	for _, ps := range ParsePending(s.Message) {
		waiting := ps.WaitingFlavors()
		if len(waiting) == 0 {
			continue
		}
		b.WriteString("\n  pod set " + ps.PodSet + ": runs on flavor " + flavorNames(waiting) + " once its quota frees up")
		if never := slices.DeleteFunc(slices.Clone(ps.Flavors), func(f FlavorVerdict) bool { return !f.Never }); len(never) > 0 {
			b.WriteString("; flavor " + flavorNames(never) + " cannot take it (" + strings.Join(never[0].Reasons, ", ") +
				"), as expected of another pool's flavor")
		}
	}
	return b.String()
}

// HasWaitingFlavor reports whether Kueue's reasons name, for every pod set
// it could not place, a flavor that takes it once quota frees up: the
// work is queued, and the configuration is not what holds it.
func (s Status) HasWaitingFlavor() bool {
	sets := ParsePending(s.Message)
	return len(sets) > 0 && !slices.ContainsFunc(sets, func(p PodSetReasons) bool { return len(p.WaitingFlavors()) == 0 })
}

func flavorNames(flavors []FlavorVerdict) string {
	names := make([]string, len(flavors))
	for i, f := range flavors {
		names[i] = f.Flavor
	}
	return strings.Join(names, ", ")
}
