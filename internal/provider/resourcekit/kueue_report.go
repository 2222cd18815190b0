package resourcekit

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kueuever"
	"github.com/gpuform/terraform-provider-gpu/internal/render/queue"
)

// Kueue's view of queued work, as the apply and the refresh report it:
// shared by every resource that sends work to a Kueue queue (gpu_workload,
// gpu_ray_cluster), which find the Kueue Workloads of their object and
// describe them (queue.Describe).

// QueueStatuses is Kueue's view of an applied object: the Kueue Workloads
// it owns (those of its pods matching selector, for a kind Kueue admits pod
// by pod; "" for all), described, with a pending one's position in its
// LocalQueue where Kueue's visibility API gives it.
func QueueStatuses(ctx context.Context, client *kube.Client, namespace string, uid k8stypes.UID, selector string) ([]queue.Status, error) {
	workloads, err := client.KueueWorkloadsOf(ctx, namespace, uid, selector)
	if err != nil {
		return nil, err
	}
	out := make([]queue.Status, len(workloads))
	for i, wl := range workloads {
		out[i] = queue.Describe(wl)
		if out[i].PendingInLocalQueue() {
			if pos, ok := client.QueuePosition(ctx, wl.Namespace, out[i].LocalQueue, wl.Name); ok {
				out[i].Position = pos
			}
		}
	}
	return out, nil
}

// KueueWorkloadNames names the Kueue Workloads an applied object owns (as
// QueueStatuses selects them), so that its destroy can wait for Kueue to
// release their quota: once the object's pods are gone nothing leads from
// it to them. Best effort: without Kueue or the permission to list its
// Workloads there is nothing to wait for, and nil.
func KueueWorkloadNames(ctx context.Context, client *kube.Client, namespace string, uid k8stypes.UID, selector string) []string {
	workloads, err := client.KueueWorkloadsOf(ctx, namespace, uid, selector)
	if err != nil {
		return nil
	}
	names := make([]string, 0, len(workloads))
	for _, wl := range workloads {
		names = append(names, wl.Name)
	}
	return names
}

// QueuedWarning is the apply's report on a workload still in its queue.
// When Kueue says the queue as written can never admit it (a flavor that
// does not match, a resource the queue lacks), it says so instead.
// release says which Kueue runs the queue; it is asked only when a note
// depends on it (queue.RequeueNote).
func QueuedWarning(ref kube.ObjectRef, queueName string, statuses []queue.Status, release func() kueuever.Known, diags *diag.Diagnostics) {
	if slices.ContainsFunc(statuses, queue.Status.NeverAdmitted) {
		diags.AddWarning(fmt.Sprintf("Kueue cannot admit %s as queue %q is written", ref, queueName),
			"Kueue keeps it pending for a reason more quota will not fix:"+queue.Summary(statuses)+
				"\n\nThe workload stays in the cluster and in the state as created, and will not run until the queue's flavors "+
				"or the workload change so that they match (Kueue's message above names what does not). gpu_queue checks "+
				"this at plan time for its own pools; a queue or flavor changed outside this configuration is not seen there.")
		return
	}
	if slices.ContainsFunc(statuses, queue.Status.WaitsForTopology) {
		diags.AddWarning(fmt.Sprintf("%s is waiting in queue %q for a topology domain", ref, queueName),
			"Kueue has quota for it but no domain of its topology level has room for all its pods yet:"+queue.Summary(statuses)+
				"\n\nThe workload stays in the cluster and in the state as created, queued; Kueue admits it when a domain "+
				"frees up. If no domain of the pool can ever hold it, ask for a larger level, mode = \"preferred\", or "+
				"slices (topology.slice_size); with the pool's shape in gpu_node_pool_policy.topology.nodes_per_domain "+
				"this is a plan error instead."+queue.RequeueNote(statuses, release))
		return
	}
	diags.AddWarning(fmt.Sprintf("%s is waiting in queue %q", ref, queueName),
		"Kueue has not admitted all of it yet:"+queue.Summary(statuses)+queuedDetail(statuses)+
			"\n\nThe workload stays in the cluster and in the state as created; Kueue runs it when its queue has quota "+
			"(the message above says what is missing)."+configurationVerdict(statuses)+" To return at "+
			"admission instead of waiting, set wait_for = \"none\"; to see the queue, read gpu_cluster_capacity's queues.")
}

// queuedDetail is, per queued Workload, which flavors take it once quota
// frees up and which cannot (other pools' flavors, as expected).
func queuedDetail(statuses []queue.Status) string {
	var b strings.Builder
	for _, s := range statuses {
		if d := s.QueuedDetail(); d != "" {
			b.WriteString("\n\nKueue's reasons, by flavor, for " + s.Name + ":" + d)
		}
	}
	return b.String()
}

// configurationVerdict says the configuration is not what holds the work
// only where that was checked: Kueue names, for every waiting Workload, a
// flavor that takes it once quota frees up.
func configurationVerdict(statuses []queue.Status) string {
	for _, s := range statuses {
		if s.Waiting() && !s.HasWaitingFlavor() {
			return ""
		}
	}
	return " Kueue names a flavor that takes it once quota frees up, so the configuration is not what holds it."
}

// EvictionWarning is the refresh's report on queued work Kueue preempted or
// evicted: back in its queue, not failed.
func EvictionWarning(ref kube.ObjectRef, statuses []queue.Status, diags *diag.Diagnostics) {
	evicted := queue.Evicted(statuses)
	if len(evicted) == 0 {
		return
	}
	diags.AddWarning(fmt.Sprintf("Kueue evicted %s", ref), "Kueue preempted or evicted this workload to admit other work:"+
		queue.Summary(evicted)+"\n\nIt is back in its queue and runs again when admitted; nothing in the configuration changes.")
}
