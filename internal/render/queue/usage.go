package queue

import (
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// Usage is one ClusterQueue as Kueue reports it: per flavor and resource,
// the quota, what admitted work reserves and uses, and how many workloads
// wait.
type Usage struct {
	Name           string
	Cohort         string
	Active         bool
	InactiveReason string // the reason and message when not active
	// The workload counts of the ClusterQueue's status, by its names.
	PendingWorkloads   int64
	AdmittedWorkloads  int64
	ReservingWorkloads int64
	Resources          []ResourceUsage
}

// ResourceUsage is one flavor's resource in a ClusterQueue.
type ResourceUsage struct {
	Flavor   string
	Resource string
	Quota    string
	Reserved string
	Used     string
	Borrowed string
}

// UsageOf reads a ClusterQueue's spec (quotas) and status (reservations).
func UsageOf(cq kueue.ClusterQueue) Usage {
	u := Usage{Name: cq.Name, Cohort: string(cq.Spec.CohortName), PendingWorkloads: int64(cq.Status.PendingWorkloads),
		AdmittedWorkloads: int64(cq.Status.AdmittedWorkloads), ReservingWorkloads: int64(cq.Status.ReservingWorkloads)}
	if c := apimeta.FindStatusCondition(cq.Status.Conditions, kueue.ClusterQueueActive); c != nil {
		u.Active = c.Status == "True"
		if !u.Active {
			u.InactiveReason = conditionText(c)
		}
	}
	reserved := flavorTotals(cq.Status.FlavorsReservation)
	used := flavorTotals(cq.Status.FlavorsUsage)
	for _, group := range cq.Spec.ResourceGroups {
		for _, f := range group.Flavors {
			for _, r := range f.Resources {
				key := string(f.Name) + "/" + string(r.Name)
				res, use := reserved[key], used[key]
				u.Resources = append(u.Resources, ResourceUsage{
					Flavor: string(f.Name), Resource: string(r.Name), Quota: r.NominalQuota.String(),
					Reserved: res.total.String(), Used: use.total.String(), Borrowed: use.borrowed.String(),
				})
			}
		}
	}
	return u
}

type totals struct{ total, borrowed resource.Quantity }

func flavorTotals(flavors []kueue.FlavorUsage) map[string]totals {
	out := map[string]totals{}
	for _, f := range flavors {
		for _, r := range f.Resources {
			out[string(f.Name)+"/"+string(r.Name)] = totals{total: r.Total, borrowed: r.Borrowed}
		}
	}
	return out
}
