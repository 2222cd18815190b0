package queue

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// State is where Kueue has a Workload: what the provider reports instead of
// calling queued or preempted work a failure.
type State string

const (
	StateQueued   State = "queued"   // waiting for quota (QuotaReserved False)
	StateAdmitted State = "admitted" // running on its flavor
	StateEvicted  State = "evicted"  // preempted or evicted, back in the queue
	StateFinished State = "finished" // quota released
)

// Status is one Kueue Workload, described.
type Status struct {
	Name         string
	State        State
	ClusterQueue string
	// Message is Kueue's own words: "couldn't assign flavors to pod set
	// main: insufficient unused quota for nvidia.com/gpu in flavor a100, 1
	// more needed", or the eviction's reason and message.
	Message string
	// Reason is the reason of the condition Message comes from.
	Reason string
	// Flavors are the flavors of an admission, per resource.
	Flavors map[string]string
	// LocalQueue is the Workload's queue; Position its place there (0 is
	// next) when Kueue's visibility API gave one, -1 otherwise.
	LocalQueue string
	Position   int32
}

// Describe reads a Kueue Workload's conditions and admission.
func Describe(wl kueue.Workload) Status {
	s := Status{Name: wl.Namespace + "/" + wl.Name, State: StateQueued, LocalQueue: string(wl.Spec.QueueName), Position: -1}
	if a := wl.Status.Admission; a != nil {
		s.ClusterQueue = string(a.ClusterQueue)
		for _, ps := range a.PodSetAssignments {
			for res, f := range ps.Flavors {
				if s.Flavors == nil {
					s.Flavors = map[string]string{}
				}
				s.Flavors[string(res)] = string(f)
			}
		}
	}
	conditions := wl.Status.Conditions
	evicted := apimeta.FindStatusCondition(conditions, kueue.WorkloadEvicted)
	preempted := apimeta.FindStatusCondition(conditions, kueue.WorkloadPreempted)
	switch {
	case Finished(wl):
		s.State, s.Message = StateFinished, conditionText(apimeta.FindStatusCondition(conditions, kueue.WorkloadFinished))
	case isTrue(evicted) || isTrue(preempted):
		s.State = StateEvicted
		s.Message = strings.Join(nonEmpty(conditionText(preempted), conditionText(evicted)), "; ")
	case Admitted(wl):
		s.State = StateAdmitted
	default:
		reserved := apimeta.FindStatusCondition(conditions, kueue.WorkloadQuotaReserved)
		s.Message = cmp.Or(conditionText(reserved), "waiting for Kueue to consider it")
		if reserved != nil {
			s.Reason = reserved.Reason
		}
	}
	return s
}

// Waiting reports whether Kueue holds the Workload in its queue: queued,
// or preempted or evicted back into it. A wait that ends while work is
// waiting ended because Kueue has not admitted it, not because anything is
// wrong.
func (s Status) Waiting() bool {
	return s.State == StateQueued || s.State == StateEvicted
}

// PendingInLocalQueue reports whether the Workload waits for quota in a
// LocalQueue: the Workloads Kueue's visibility API gives a position for.
func (s Status) PendingInLocalQueue() bool {
	return s.State == StateQueued && s.LocalQueue != ""
}

// AllAdmitted reports whether Kueue has admitted every Workload (or seen it
// finish), and there is at least one.
func AllAdmitted(statuses []Status) bool {
	return len(statuses) > 0 && !slices.ContainsFunc(statuses, func(s Status) bool {
		return s.State != StateAdmitted && s.State != StateFinished
	})
}

// Evicted are the Workloads Kueue preempted or evicted back into their
// queue.
func Evicted(statuses []Status) []Status {
	return slices.DeleteFunc(slices.Clone(statuses), func(s Status) bool { return s.State != StateEvicted })
}

// inadmissible is the QuotaReserved reason Kueue's workload controller
// gives a Workload its queue cannot take at all (no such LocalQueue or
// ClusterQueue, one inactive, claims its DRA integration refuses).
const inadmissible = "Inadmissible"

// NeverAdmitted reports whether Kueue says the workload cannot be admitted
// as its queue is written: not waiting for quota, but no flavor that could
// ever take one of its pod sets (every flavor Kueue tried has a permanent
// reason, or a resource no flavor offers), or a queue Kueue finds
// inadmissible. A flavor that does not match while another waits for quota
// is the other pool's flavor: the work is queued, and runs when quota frees.
func (s Status) NeverAdmitted() bool {
	if s.State != StateQueued || s.WaitsForTopology() {
		return false
	}
	if s.Reason == inadmissible {
		return true
	}
	return slices.ContainsFunc(ParsePending(s.Message), PodSetReasons.NeverFits)
}

// topologyWaitReasons are Kueue's words for a workload no topology domain
// has room for yet (pkg/cache/scheduler/tas_flavor_snapshot.go,
// notFitMessage; docs/design/topology.md §4.5). The message goes on to list
// the nodes it excluded ("taint ...", "resource ..."), which must not read
// as a mismatch: the work is queued until a domain frees up.
var topologyWaitReasons = []string{"allows to fit only", "doesn't allow to fit any of"}

// WaitsForTopology reports whether the Workload is queued because no domain
// of its topology level has room for all its pods (or slices).
func (s Status) WaitsForTopology() bool {
	return s.State == StateQueued &&
		slices.ContainsFunc(topologyWaitReasons, func(r string) bool { return strings.Contains(s.Message, r) })
}

// Kueue's view of a Workload is judged here only: the provider's waits,
// destroy checks and reports ask these instead of reading conditions
// themselves.

// Admitted reports whether Kueue has admitted the Workload (quota reserved
// and every admission check ready).
func Admitted(wl kueue.Workload) bool {
	return apimeta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadAdmitted)
}

// Finished reports whether the Workload is done and its quota released.
func Finished(wl kueue.Workload) bool {
	return apimeta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadFinished)
}

// HoldsQuotaIn reports whether the Workload holds quota in the ClusterQueue:
// assigned to it, not finished, and not being deleted (a deleted Workload
// goes with its quota; the ClusterQueue's deletion waits for it).
func HoldsQuotaIn(wl kueue.Workload, clusterQueue string) bool {
	a := wl.Status.Admission
	return a != nil && string(a.ClusterQueue) == clusterQueue && !Finished(wl) && wl.DeletionTimestamp == nil
}

func isTrue(c *metav1.Condition) bool { return c != nil && c.Status == metav1.ConditionTrue }

func conditionText(c *metav1.Condition) string {
	if c == nil {
		return ""
	}
	if c.Message == "" {
		return c.Reason
	}
	return c.Reason + ": " + c.Message
}

func nonEmpty(values ...string) []string {
	var out []string
	for _, v := range values {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}

// Summary is one line per Workload, for diagnostics.
func Summary(statuses []Status) string {
	var b strings.Builder
	for _, s := range statuses {
		b.WriteString("\n  Kueue Workload " + s.Name + ": " + string(s.State))
		if s.ClusterQueue != "" {
			b.WriteString(" (ClusterQueue " + s.ClusterQueue + ")")
		}
		if s.Position >= 0 {
			b.WriteString(" (position " + strconv.Itoa(int(s.Position)+1) + " in LocalQueue " + s.LocalQueue + ")")
		}
		if s.Message != "" {
			b.WriteString(": " + s.Message)
		}
	}
	return b.String()
}
