package queue

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// pendingMessage is Kueue's own words for a Workload waiting for quota, as
// the local cluster's Kueue v0.17.0 wrote them (docs/design/queues.md).
const pendingMessage = "couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu in flavor a100, 1 more needed"

func workloadWith(conditions ...metav1.Condition) kueue.Workload {
	wl := kueue.Workload{ObjectMeta: metav1.ObjectMeta{Name: "job-train-1a2b3", Namespace: "team-a"}}
	wl.Spec.QueueName = "team-a"
	wl.Status.Conditions = conditions
	return wl
}

func cond(t, status, reason, message string) metav1.Condition {
	return metav1.Condition{Type: t, Status: metav1.ConditionStatus(status), Reason: reason, Message: message}
}

func TestDescribe(t *testing.T) {
	cases := []struct {
		name    string
		wl      kueue.Workload
		state   State
		message string
	}{
		{"waiting for quota", workloadWith(cond(kueue.WorkloadQuotaReserved, "False", "Pending", pendingMessage)), StateQueued, "Pending: " + pendingMessage},
		{"not looked at yet", workloadWith(), StateQueued, "waiting for Kueue to consider it"},
		{"admitted", workloadWith(cond(kueue.WorkloadQuotaReserved, "True", "QuotaReserved", ""), cond(kueue.WorkloadAdmitted, "True", "Admitted", "")), StateAdmitted, ""},
		{"preempted", workloadWith(cond(kueue.WorkloadEvicted, "True", "Preempted", "Preempted to accommodate a workload (UID: 1) due to prioritization in the ClusterQueue"),
			cond(kueue.WorkloadPreempted, "True", "InClusterQueue", "Preempted to accommodate a workload (UID: 1) due to prioritization in the ClusterQueue")), StateEvicted, "InClusterQueue: Preempted"},
		{"finished", workloadWith(cond(kueue.WorkloadFinished, "True", "Succeeded", "Job finished successfully"), cond(kueue.WorkloadAdmitted, "True", "Admitted", "")), StateFinished, "Succeeded"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := Describe(tc.wl)
			if s.State != tc.state || !strings.HasPrefix(s.Message, tc.message) {
				t.Errorf("Describe = %s %q, want %s %q...", s.State, s.Message, tc.state, tc.message)
			}
		})
	}
}

func TestSummaryNamesPositionAndReason(t *testing.T) {
	s := Describe(workloadWith(cond(kueue.WorkloadQuotaReserved, "False", "Pending", pendingMessage)))
	s.Position = 1
	got := Summary([]Status{s})
	for _, want := range []string{"team-a/job-train-1a2b3: queued", "position 2 in LocalQueue team-a", pendingMessage} {
		if !strings.Contains(got, want) {
			t.Errorf("summary %q lacks %q", got, want)
		}
	}
	s.Position = -1
	if strings.Contains(Summary([]Status{s}), "position") {
		t.Error("a position is reported although Kueue gave none")
	}
}

func TestUsageOf(t *testing.T) {
	var cq kueue.ClusterQueue
	cq.Name, cq.Spec.CohortName = "team-a", "fleet"
	cq.Spec.ResourceGroups = []kueue.ResourceGroup{{
		CoveredResources: []corev1.ResourceName{"nvidia.com/gpu"},
		Flavors: []kueue.FlavorQuotas{{Name: "a100", Resources: []kueue.ResourceQuota{
			{Name: "nvidia.com/gpu", NominalQuota: resource.MustParse("8")},
		}}},
	}}
	cq.Status.AdmittedWorkloads, cq.Status.PendingWorkloads = 2, 3
	cq.Status.FlavorsUsage = []kueue.FlavorUsage{{Name: "a100", Resources: []kueue.ResourceUsage{
		{Name: "nvidia.com/gpu", Total: resource.MustParse("10"), Borrowed: resource.MustParse("2")},
	}}}
	cq.Status.Conditions = []metav1.Condition{cond(kueue.ClusterQueueActive, "False", "FlavorNotFound", "Can't admit new workloads: references missing ResourceFlavor(s): a100.")}
	u := UsageOf(cq)
	if u.Active || !strings.HasPrefix(u.InactiveReason, "FlavorNotFound") || u.AdmittedWorkloads != 2 || u.PendingWorkloads != 3 || u.Cohort != "fleet" {
		t.Errorf("usage %+v", u)
	}
	if r := u.Resources[0]; r.Quota != "8" || r.Used != "10" || r.Borrowed != "2" || r.Reserved != "0" {
		t.Errorf("resource %+v", r)
	}
}

// issue41Message is the message of issue #41's first finding: a MIG
// flavor that is another pool's, and the whole-GPU flavor short of quota
// while another Job runs on it. The work runs once that Job is done.
const issue41Message = "couldn't assign flavors to pod set main: flavor kq-mig doesn't match node affinity, " +
	"insufficient unused quota for cpu in flavor kq-a100, 40 more needed, " +
	"insufficient unused quota for memory in flavor kq-a100, 160Gi more needed, " +
	"insufficient unused quota for nvidia.com/gpu in flavor kq-a100, 4 more needed"

func TestNeverAdmittedReadsKueuesReasons(t *testing.T) {
	for msg, want := range map[string]bool{
		"Pending: couldn't assign flavors to pod set main: flavor h100 doesn't match node affinity, flavor t4 doesn't match node affinity": true,
		"Pending: couldn't assign flavors to pod set main: resource nvidia.com/gpu unavailable in ClusterQueue":                            true,
		"Pending: couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu in flavor a100, 1 more needed":     false,
		"Pending: " + issue41Message: false,
		"Pending: couldn't assign flavors to pod set main: flavor kq-mig doesn't match node affinity, insufficient quota for nvidia.com/gpu in flavor kq-a100, " +
			"previously considered podsets requests (0) + current podset request (16) > maximum capacity (8)": true,
		"Pending: couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu in flavor a100, 1 more needed, " +
			"untolerated taint sku=gpu:NoSchedule in flavor a100": true,
		"Pending: couldn't assign flavors to pod set main: flavor h100 doesn't match node affinity, untolerated taint sku=gpu:NoSchedule in flavor t4":        true,
		`Pending: couldn't assign flavors to pod set main: Flavor "h100" does not contain the requested level`:                                                true,
		"Pending: couldn't assign flavors to pod set main: flavor h100 not found, insufficient unused quota for nvidia.com/gpu in flavor a100, 1 more needed": false,
		// Two pod sets: the head fits somewhere, the workers nowhere.
		"Pending: couldn't assign flavors to pod set head: insufficient unused quota for cpu in flavor cpu, 2 more needed; " +
			"couldn't assign flavors to pod set workers: flavor h100 doesn't match node affinity": true,
		// A reason of a shape not known here is never read as "never".
		"Pending: couldn't assign flavors to pod set main: flavor h100 doesn't match node affinity, some reason a newer Kueue gives": false,
		"waiting for Kueue to consider it": false,
	} {
		if got := (Status{State: StateQueued, Message: msg}).NeverAdmitted(); got != want {
			t.Errorf("%q: NeverAdmitted = %v, want %v", msg, got, want)
		}
	}
	inadmissible := Describe(workloadWith(cond(kueue.WorkloadQuotaReserved, "False", "Inadmissible", "LocalQueue team-a doesn't exist")))
	if !inadmissible.NeverAdmitted() {
		t.Errorf("an Inadmissible workload (%q) is not reported as never admitted", inadmissible.Message)
	}
	if (Status{State: StateAdmitted, Message: "untolerated taint"}).NeverAdmitted() {
		t.Error("an admitted workload is never 'never admitted'")
	}
}

func TestParsePendingGroupsReasonsByFlavor(t *testing.T) {
	got := ParsePending("Pending: " + issue41Message)
	if len(got) != 1 || got[0].PodSet != "main" || got[0].Unread || got[0].Unplaceable {
		t.Fatalf("ParsePending = %+v", got)
	}
	flavors := got[0].Flavors
	if len(flavors) != 2 || flavors[0].Flavor != "kq-mig" || !flavors[0].Never || flavors[1].Flavor != "kq-a100" || flavors[1].Never {
		t.Fatalf("flavors = %+v, want kq-mig (never) then kq-a100 (waits)", flavors)
	}
	if len(flavors[1].Reasons) != 3 || !strings.Contains(flavors[1].Reasons[2], "nvidia.com/gpu in flavor kq-a100, 4 more needed") {
		t.Errorf("kq-a100's reasons = %q", flavors[1].Reasons)
	}
	if w := got[0].WaitingFlavors(); len(w) != 1 || w[0].Flavor != "kq-a100" {
		t.Errorf("WaitingFlavors = %+v", w)
	}
	if ParsePending("Inadmissible: LocalQueue team-a doesn't exist") != nil {
		t.Error("a message naming no pod set gave pod sets")
	}
}

func TestHoldsQuotaIn(t *testing.T) {
	admitted := func(cq string, conds ...metav1.Condition) kueue.Workload {
		wl := kueue.Workload{Status: kueue.WorkloadStatus{Conditions: conds}}
		if cq != "" {
			wl.Status.Admission = &kueue.Admission{ClusterQueue: kueue.ClusterQueueReference(cq)}
		}
		return wl
	}
	isTrue := func(typ string) metav1.Condition { return metav1.Condition{Type: typ, Status: metav1.ConditionTrue} }
	deleting := admitted("team-a", isTrue(kueue.WorkloadAdmitted))
	deleting.DeletionTimestamp = &metav1.Time{}
	for name, c := range map[string]struct {
		wl   kueue.Workload
		want bool
	}{
		"admitted here":              {admitted("team-a", isTrue(kueue.WorkloadAdmitted)), true},
		"reserved, not yet admitted": {admitted("team-a", isTrue(kueue.WorkloadQuotaReserved)), true},
		"admitted elsewhere":         {admitted("team-b", isTrue(kueue.WorkloadAdmitted)), false},
		"pending":                    {admitted(""), false},
		"finished":                   {admitted("team-a", isTrue(kueue.WorkloadAdmitted), isTrue(kueue.WorkloadFinished)), false},
		"being deleted":              {deleting, false},
	} {
		if got := HoldsQuotaIn(c.wl, "team-a"); got != c.want {
			t.Errorf("%s: HoldsQuotaIn = %v, want %v", name, got, c.want)
		}
	}
	if !Admitted(admitted("team-a", isTrue(kueue.WorkloadAdmitted))) || Admitted(admitted("team-a", isTrue(kueue.WorkloadQuotaReserved))) {
		t.Error("Admitted must read Kueue's Admitted condition only")
	}
}

// A Workload waiting for a topology domain is queued with Kueue's reason,
// not "never admitted", even where the message lists excluded nodes by
// taint (the local cluster's Kueue v0.17.0 message, docs/design/topology.md §5).
func TestDescribe_waitingForTopology(t *testing.T) {
	for _, msg := range []string{
		`couldn't assign flavors to pod set main: topology "h100-tas-pool" allows to fit only 2 out of 3 pod(s). Total nodes: 8; excluded: resource "nvidia.com/gpu": 2`,
		`couldn't assign flavors to pod set main: topology "h100-tas-pool" doesn't allow to fit any of 3 pod(s). Total nodes: 8; excluded: taint "untolerated taint": 8`,
	} {
		s := Describe(workloadWith(cond(kueue.WorkloadQuotaReserved, "False", "Pending", msg)))
		if s.State != StateQueued || !s.WaitsForTopology() || s.NeverAdmitted() || !strings.Contains(s.Message, msg) {
			t.Errorf("%q: state %s, topology %v, never admitted %v", msg, s.State, s.WaitsForTopology(), s.NeverAdmitted())
		}
	}
	if Describe(workloadWith(cond(kueue.WorkloadQuotaReserved, "False", "Pending", pendingMessage))).WaitsForTopology() {
		t.Error("a quota wait reads as a topology wait")
	}
}

// What a wait that ended makes of Kueue's Workloads: still waiting (queued,
// or evicted back into the queue) is no failure; all admitted (or finished)
// means the wait ended just as Kueue admitted them.
func TestWaitingAndAllAdmitted(t *testing.T) {
	queued := Describe(workloadWith(cond(kueue.WorkloadQuotaReserved, "False", "Pending", pendingMessage)))
	admitted := Describe(workloadWith(cond(kueue.WorkloadAdmitted, "True", "Admitted", "")))
	evicted := Describe(workloadWith(cond(kueue.WorkloadEvicted, "True", "Preempted", "to admit other work")))
	finished := Describe(workloadWith(cond(kueue.WorkloadFinished, "True", "Succeeded", "")))
	for _, c := range []struct {
		name     string
		statuses []Status
		waiting  bool
		admitted bool
		evicted  int
	}{
		{"none", nil, false, false, 0},
		{"queued", []Status{queued}, true, false, 0},
		{"one evicted", []Status{admitted, evicted}, true, false, 1},
		{"admitted and finished", []Status{admitted, finished}, false, true, 0},
	} {
		if got := slices.ContainsFunc(c.statuses, Status.Waiting); got != c.waiting {
			t.Errorf("%s: waiting = %v, want %v", c.name, got, c.waiting)
		}
		if got := AllAdmitted(c.statuses); got != c.admitted {
			t.Errorf("%s: AllAdmitted = %v, want %v", c.name, got, c.admitted)
		}
		if got := Evicted(c.statuses); len(got) != c.evicted {
			t.Errorf("%s: Evicted = %v, want %d", c.name, got, c.evicted)
		}
	}
	if !queued.PendingInLocalQueue() || admitted.PendingInLocalQueue() {
		t.Error("only a queued Workload with a LocalQueue has a place in it")
	}
}
