package kueuever

import (
	"fmt"
	"strconv"
	"strings"

	utilversion "k8s.io/apimachinery/pkg/util/version"
)

// Rule is one thing Kueue does differently from some release on. Fixed
// lists, per release line, the first release that has the change (the
// newer behaviour); a release of a line after the last one listed has it
// too, a line between listed ones never got it. A rule with no Fixed
// release holds for every supported release. Source is where the facts
// were read (release notes, pull requests, files at a tag).
type Rule struct {
	Name  string
	Fixed []*utilversion.Version
	// Ref is the short citation a diagnostic gives ("kueue#9742").
	Ref    string
	Source string
}

func v(s string) *utilversion.Version { return utilversion.MustParseSemantic(s) }

// MaxRayWorkerGroups is how many worker groups Kueue's RayCluster and
// RayJob webhooks admit in one queued Ray cluster at release ver: every
// group is a pod set of the cluster's Workload and the head one more.
// v0.17 refuses more than 7 worker groups; v0.18 more than MaxPodSets-1 =
// 9; v0.19 more pod sets than MaxPodSets = 18, so 17 worker groups.
// Source: pkg/controller/jobs/raycluster/common.go ValidateCreate and
// pkg/controller/jobframework/constants.go at v0.17.0, v0.18.0, v0.18.6,
// v0.19.0 and v0.19.2 (docs/design/kueue-versions.md).
func MaxRayWorkerGroups(ver *utilversion.Version) int {
	switch {
	case ver.AtLeast(v("0.19.0")):
		return 17
	case ver.AtLeast(v("0.18.0")):
		return 9
	}
	return 7
}

// The rules. Sources are summarised in docs/design/kueue-versions.md.
var (
	// CELSelectors: a queued pod's ResourceClaimTemplate may filter devices
	// with CEL selectors (Kueue evaluates them against the cluster's
	// devices). v0.17 marks such a workload inadmissible.
	CELSelectors = Rule{
		Ref:   "kueue#9742",
		Name:  "CEL selectors in queued claims",
		Fixed: []*utilversion.Version{v("0.18.0")},
		Source: "kueue#9742 (CHANGELOG-0.18.md, v0.18.0); pkg/dra/claims.go at v0.17.8 refuses " +
			"\"CEL selectors are not supported\", at v0.18.0 evaluates them against the cluster's devices",
	}
	// DeviceConstraints: device constraints (matchAttribute) and device
	// config in a queued claim are admitted for quota.
	DeviceConstraints = Rule{
		Ref:   "kueue#12451",
		Name:  "device constraints (matchAttribute) in queued claims",
		Fixed: []*utilversion.Version{v("0.18.2"), v("0.19.0")},
		Source: "kueue#12451 (CHANGELOG-0.19.md, v0.19.0), cherry-picked as kueue#12471 (CHANGELOG-0.18.md, v0.18.2); " +
			"pkg/dra/claims.go at v0.18.1 refuses \"device constraints (MatchAttribute) are not supported\", at v0.18.2 not",
	}
	// FirstAvailable: a prioritized list of devices in a queued claim. No
	// release counts it (an open KEP, kueue#13601).
	FirstAvailable = Rule{
		Ref:  "Kueue's pkg/dra/claims.go; kueue#13601 is open",
		Name: "firstAvailable (a preference list) in queued claims",
		Source: "pkg/dra/claims.go from v0.17.0 to main at ff69552e (v0.20 development) refuses " +
			"\"FirstAvailable device selection is not supported\"; quota for it is the open KEP pull request kueue#13601",
	}
	// AllocationModeAll: a queued claim asking for all matching devices.
	AllocationModeAll = Rule{
		Ref:    "Kueue's pkg/dra/claims.go",
		Name:   "allocationMode All in queued claims",
		Source: "pkg/dra/claims.go from v0.17.0 to main at ff69552e refuses \"AllocationMode 'All' is not supported\"",
	}
	// DRAWithTopology: Topology Aware Scheduling counts DRA devices when
	// it picks nodes. No release does: it places by the pods' other
	// requests, so a pod can be sent to a domain without free devices.
	DRAWithTopology = Rule{
		Ref:  "Kueue's DRA documentation, \"No DRA + Topology Aware Scheduling\"",
		Name: "DRA devices in Topology Aware Scheduling",
		Source: "site/content/en/docs/concepts/dynamic_resource_allocation.md from v0.17.0 to main at ff69552e: " +
			"\"No DRA + Topology Aware Scheduling (TAS)\", DRA resources are not accounted for in TAS capacity",
	}
	// DRAIntegrationByDefault: Kueue counts DRA devices against quota
	// without a feature gate being set. In v0.17 the gate
	// (DynamicResourceAllocation) is alpha and off, and with it off a
	// Workload's claims are not looked at: it is admitted on its other
	// requests, its devices charged to no quota.
	DRAIntegrationByDefault = Rule{
		Ref:   "kueue#10996",
		Name:  "DRA integration on by default",
		Fixed: []*utilversion.Version{v("0.18.0")},
		Source: "pkg/features/kube_features.go at v0.17.0 (DynamicResourceAllocation: alpha, default false) and " +
			"pkg/dra/extended_resources.go NeedsDRAReconcile (false with the gate off); at v0.18.0 KueueDRAIntegration " +
			"beta, default true (kueue#10996), and KueueDRARejectWorkloadsWhenDRADisabled (kueue#10964)",
	}
	// RequeueAfterUnmanagedPods: a TAS workload Kueue found no room for is
	// looked at again when pods Kueue does not manage leave the nodes.
	RequeueAfterUnmanagedPods = Rule{
		Ref:   "kueue#8653",
		Name:  "requeue of topology-placed work when pods Kueue does not manage leave",
		Fixed: []*utilversion.Version{v("0.18.5"), v("0.19.1"), v("0.20.0")},
		Source: "kueue#8653, fixed by kueue#8709 (v0.20.0), cherry-picked as kueue#13773 (CHANGELOG-0.18.md, v0.18.5) " +
			"and kueue#13772 (CHANGELOG-0.19.md, v0.19.1); no v0.17 patch has it (CHANGELOG-0.17.md to v0.17.8)",
	}
)

// Rules is every rule, for the design document's test.
func Rules() []Rule {
	return []Rule{CELSelectors, DeviceConstraints, FirstAvailable, AllocationModeAll, DRAWithTopology,
		DRAIntegrationByDefault, RequeueAfterUnmanagedPods}
}

// In reports whether release ver has the rule's change.
func (r Rule) In(ver *utilversion.Version) bool {
	if len(r.Fixed) == 0 || ver == nil {
		return false
	}
	for _, f := range r.Fixed {
		if f.Major() == ver.Major() && f.Minor() == ver.Minor() {
			return ver.AtLeast(f)
		}
	}
	last := r.Fixed[len(r.Fixed)-1]
	return ver.Major() > last.Major() || (ver.Major() == last.Major() && ver.Minor() > last.Minor())
}

// Never reports whether no release has the change.
func (r Rule) Never() bool { return len(r.Fixed) == 0 }

// FixedIn names the releases that brought the change ("v0.18.5, v0.19.1
// and v0.20.0"); "" for a rule no release has.
func (r Rule) FixedIn() string {
	names := make([]string, len(r.Fixed))
	for i, f := range r.Fixed {
		names[i] = "v" + f.String()
	}
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// Since says from which release on, for a diagnostic: "from v0.18.0",
// "from v0.18.5 in the v0.18 line, v0.19.1 in the v0.19 line and v0.20.0
// on", or "in no release up to v0.21".
func (r Rule) Since() string {
	n := len(r.Fixed)
	if n == 0 {
		return "in no release up to v0." + strconv.Itoa(newestMinor)
	}
	if n == 1 {
		return "from v" + r.Fixed[0].String()
	}
	parts := make([]string, n-1)
	for i, f := range r.Fixed[:n-1] {
		parts[i] = fmt.Sprintf("v%s in the v%d.%d line", f, f.Major(), f.Minor())
	}
	return "from " + strings.Join(parts, ", ") + " and v" + r.Fixed[n-1].String() + " on"
}

// ordered reports whether Fixed is in release order with one release per
// line, as In assumes (a test checks every rule).
func (r Rule) ordered() bool {
	for i := 1; i < len(r.Fixed); i++ {
		a, b := r.Fixed[i-1], r.Fixed[i]
		if a.Major() > b.Major() || (a.Major() == b.Major() && a.Minor() >= b.Minor()) {
			return false
		}
	}
	return true
}
