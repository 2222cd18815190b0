package clustercapacity

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/render/capacity"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// Which of the cluster's GPU pools could take a pod the scheduler refused,
// and why the others cannot: the explanation gpu_workload's and
// gpu_ray_cluster's waits add to the scheduler's words.

// PodAsk is what one pod asks of the GPU pools: its placement and its GPUs
// (units of an extended resource, or the ways its DRA claim can be met).
type PodAsk struct {
	NodeSelector map[string]string
	Affinity     *corev1.Affinity
	Tolerations  []corev1.Toleration
	// ResourceName is the extended resource asked for; "" with DRA.
	ResourceName string
	// PerPod is how many units of ResourceName the pod's containers ask.
	PerPod int64
	// DRA are the ways the pod's claim can be met; none without DRA.
	DRA []capacity.DRARequest
}

// AskOf is the ask of a pod rendered by workload (rendered), whose spec is
// pod: a gpu_workload's template, or a Ray group's.
func AskOf(rendered *workload.Rendered, pod *corev1.PodSpec) PodAsk {
	ask := PodAsk{NodeSelector: rendered.NodeSelector, Affinity: rendered.Affinity, Tolerations: rendered.Tolerations,
		ResourceName: rendered.ResourceName, DRA: DRARequests(rendered)}
	for _, c := range pod.Containers {
		q := c.Resources.Limits[corev1.ResourceName(rendered.ResourceName)]
		ask.PerPod += q.Value()
	}
	return ask
}

// explainPoolsTimeout bounds the read of the cluster's pools for an
// explanation.
const explainPoolsTimeout = 30 * time.Second

// maxPoolsExplained keeps the message readable on clusters with many pools.
const maxPoolsExplained = 8

// ExplainPools says which of the cluster's GPU pools could take the pod,
// and why the others cannot, with the same rules the scheduler applies: a
// paragraph that starts with its own heading and no blank line, so each
// caller places it (after a wait's error, under a worker group's name).
func ExplainPools(ctx context.Context, client *kube.Client, ask PodAsk) string {
	// Reading every node and pod of a cluster of thousands of nodes can take
	// a loaded API server tens of seconds; an explanation that comes late
	// helps more than none.
	ctx, cancel := context.WithTimeout(ctx, explainPoolsTimeout)
	defer cancel()
	pools, draInputs, err := LiveCapacity(ctx, client, "")
	if err != nil {
		return "(could not read the cluster's GPU pools: " + err.Error() + ")"
	}
	if len(ask.DRA) > 0 {
		return explainDRAPools(ctx, client, ask, pools, draInputs)
	}
	matches := capacity.MatchingPools(pools, ask.NodeSelector, ask.Affinity, ask.Tolerations, ask.ResourceName)
	sortClosestFirst(matches)
	want := ask.PerPod
	var b strings.Builder
	writePools(&b, "GPU pools in the cluster:", matches, "(none: no node advertises an NVIDIA resource)",
		func(m capacity.PoolMatch) string {
			switch {
			case m.Fits && m.MaxFree < want:
				return fmt.Sprintf("labels and taints match, but at most %d %s are free on one node and each pod asks for %d",
					m.MaxFree, ask.ResourceName, want)
			case m.Fits:
				return fmt.Sprintf("matches; %d node(s) with free %s, at most %d on one node", m.FreeNodes,
					ask.ResourceName, m.MaxFree)
			case len(m.Reasons) > 0:
				return strings.Join(m.Reasons, "; ")
			default:
				return "does not match"
			}
		})
	return b.String()
}

// writePools writes header and a line per pool, "<pool>: <what line says>",
// at most maxPoolsExplained of them; none when there is no pool.
func writePools(b *strings.Builder, header string, matches []capacity.PoolMatch, none string, line func(capacity.PoolMatch) string) {
	b.WriteString(header)
	for i, m := range matches {
		if i == maxPoolsExplained {
			fmt.Fprintf(b, "\n  ... and %d more (data source gpu_cluster_capacity lists them all)", len(matches)-i)
			break
		}
		b.WriteString("\n  " + m.Pool + ": " + line(m))
	}
	if len(matches) == 0 {
		b.WriteString("\n  " + none)
	}
}

// sortClosestFirst: pools the pods fit, then pools whose labels and taints
// admit them, then those with the fewest reasons against.
func sortClosestFirst(matches []capacity.PoolMatch) {
	sort.SliceStable(matches, func(i, j int) bool {
		a, b := matches[i], matches[j]
		if a.PlacementNodes != b.PlacementNodes {
			return a.PlacementNodes > b.PlacementNodes
		}
		return len(a.Reasons) < len(b.Reasons)
	})
}

// DRARequests are the ways the rendered pod's claim can be met; none
// without DRA.
func DRARequests(rendered *workload.Rendered) []capacity.DRARequest {
	switch {
	case rendered.ResourceClaimTemplateV1 != nil:
		return capacity.DRARequestsV1(rendered.ResourceClaimTemplateV1.Spec.Spec)
	case rendered.ResourceClaimTemplateV1beta1 != nil:
		return capacity.DRARequestsV1beta1(rendered.ResourceClaimTemplateV1beta1.Spec.Spec)
	}
	return nil
}

// DescribeClaim lists the claim's requests, with their constraints, for
// "This workload asked for".
func DescribeClaim(requests []capacity.DRARequest) string {
	var b strings.Builder
	for i, r := range requests {
		prefix := "DRA claim"
		if len(requests) > 1 {
			prefix = fmt.Sprintf("DRA claim, choice %d (%s)", i+1, r.Name)
		}
		fmt.Fprintf(&b, "\n  %s: %s", prefix, capacity.DescribeDRARequest(r))
		for _, s := range r.Selectors {
			fmt.Fprintf(&b, "\n    selector %s", s)
		}
	}
	return b.String()
}

// explainDRAPools says, for a pod waiting on a claim, which pools of DRA
// nodes could serve it: per pool, how many published devices pass the
// claim's class and selectors (evaluated with the scheduler's CEL library),
// how many are free, and the most free on one node the pod may use and,
// under a matchAttribute constraint, on one PCIe root (or whatever
// attribute the devices must share) of such a node. Pools
// of extended resources cannot serve a claim and are only counted.
func explainDRAPools(ctx context.Context, client *kube.Client, ask PodAsk, pools []spec.PoolCapacity,
	draInputs *capacity.DRAInputs) string {
	// Without the classes (no permission to list them) the driver's own
	// classes are assumed as its chart installs them; other classes are
	// reported as unreadable.
	classes, err := client.DeviceClassSelectors(ctx)
	if err != nil {
		classes = nil
	}
	matches := capacity.MatchingDRAPools(pools, ask.NodeSelector, ask.Affinity, ask.Tolerations,
		ask.DRA, classes, draInputs)
	var dra []capacity.PoolMatch
	for i, m := range matches {
		if pools[i].DRADriver != "" {
			dra = append(dra, m)
		}
	}
	// Pools that could take the pod now first, then the closest.
	sortClosestFirst(dra)
	sort.SliceStable(dra, func(i, j int) bool { return dra[i].Fits && !dra[j].Fits })
	var b strings.Builder
	writePools(&b, "GPU pools in the cluster (DRA devices matching the claim):", dra,
		"(none: no node publishes ResourceSlices of "+capacity.DRADriver+")", describeDRAPool)
	if others := len(matches) - len(dra); others > 0 {
		fmt.Fprintf(&b, "\n  %d pool(s) of extended resources (the device plugin's nvidia.com/gpu) cannot serve a claim", others)
	}
	if err != nil {
		b.WriteString("\n  (DeviceClasses not read, the driver's own classes assumed: " + err.Error() + ")")
	}
	return b.String()
}

// describeDRAPool: "matches; " when a node could take the pod now, the
// placement's reasons when no node admits it, then the devices.
func describeDRAPool(m capacity.PoolMatch) string {
	devices := capacity.DescribeDRA(m)
	switch {
	case m.Fits:
		return "matches; " + devices
	case len(m.Reasons) > 0:
		return strings.Join(m.Reasons, "; ") + "; " + devices
	default:
		return devices
	}
}
