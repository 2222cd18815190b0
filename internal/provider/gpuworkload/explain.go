package gpuworkload

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/clustercapacity"
	"github.com/gpuform/terraform-provider-gpu/internal/render/capacity"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// explainNotReady adds to the scheduler's words what the workload asked
// for, so the reader can compare it with the node pools.
func explainNotReady(ctx context.Context, client *kube.Client, err error, rendered *workload.Rendered) string {
	var notReady *kube.NotReadyError
	if !errors.As(err, &notReady) {
		// The wait itself failed (outage, permissions): the pool advice
		// below would send the reader down the wrong path.
		return err.Error()
	}
	var b strings.Builder
	b.WriteString(err.Error())
	if notReady.Unschedulable() {
		b.WriteString(explainPools(ctx, client, rendered))
	}
	b.WriteString("\n\nThis workload asked for:")
	if rendered.ResourceName != "" {
		fmt.Fprintf(&b, "\n  resource: %s", rendered.ResourceName)
	}
	b.WriteString(describeClaim(draRequests(rendered)))
	if rendered.Network != nil && len(rendered.Network.Resources) > 0 {
		fmt.Fprintf(&b, "\n  GPU network: %s (from %s)", describeNetworkRequest(rendered.Network.Resources),
			rendered.Network.Advertiser)
	}
	for _, k := range slices.Sorted(maps.Keys(rendered.NodeSelector)) {
		fmt.Fprintf(&b, "\n  node label %s=%s", k, rendered.NodeSelector[k])
	}
	b.WriteString(describeAffinity(rendered.Affinity))
	for _, t := range rendered.Tolerations {
		fmt.Fprintf(&b, "\n  toleration %s %s %s:%s", t.Key, t.Operator, t.Value, t.Effect)
	}
	free := "free GPUs (kubectl describe nodes)"
	if rendered.ResourceName == "" && len(draRequests(rendered)) > 0 {
		free = "free devices matching the claim (kubectl get resourceslices and kubectl get resourceclaims -A)"
	}
	b.WriteString("\n\nCheck that a node pool carries these labels, the taints tolerated here, and " + free + "; " +
		raiseWhich(notReady) + " if nodes are still being provisioned.")
	return b.String()
}

// raiseWhich names the limit that ended the wait.
func raiseWhich(notReady *kube.NotReadyError) string {
	if notReady.GaveUpOnRefusal {
		return "raise unschedulable_timeout (or unset it to wait for the whole timeout)"
	}
	return "raise the timeout"
}

// describeAffinity lists the required node affinity terms (ORed) with
// their requirements (ANDed), as the scheduler reads them.
func describeAffinity(affinity *corev1.Affinity) string {
	if affinity == nil || affinity.NodeAffinity == nil || affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return ""
	}
	var b strings.Builder
	for i, term := range affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		parts := make([]string, 0, len(term.MatchExpressions))
		for _, e := range term.MatchExpressions {
			parts = append(parts, strings.TrimSpace(fmt.Sprintf("%s %s %s", e.Key, e.Operator, strings.Join(e.Values, ","))))
		}
		prefix := "node affinity"
		if i > 0 {
			prefix = "  or"
		}
		fmt.Fprintf(&b, "\n  %s: %s", prefix, strings.Join(parts, " and "))
	}
	return b.String()
}

// explainPoolsTimeout bounds the read of the cluster's pools for an
// explanation.
const explainPoolsTimeout = 30 * time.Second

// maxPoolsExplained keeps the message readable on clusters with many pools.
const maxPoolsExplained = 8

// explainPools says which of the cluster's GPU pools could take the pods,
// and why the others cannot, with the same rules the scheduler applies.
func explainPools(ctx context.Context, client *kube.Client, rendered *workload.Rendered) string {
	// Reading every node and pod of a cluster of thousands of nodes can take
	// a loaded API server tens of seconds; an explanation that comes late
	// helps more than none.
	ctx, cancel := context.WithTimeout(ctx, explainPoolsTimeout)
	defer cancel()
	pools, draInputs, err := clustercapacity.LiveCapacity(ctx, client, "")
	if err != nil {
		return "\n\n(could not read the cluster's GPU pools: " + err.Error() + ")"
	}
	if requests := draRequests(rendered); len(requests) > 0 {
		return explainDRAPools(ctx, client, rendered, pools, draInputs, requests)
	}
	matches := capacity.MatchingPools(pools, rendered.NodeSelector, rendered.Affinity, rendered.Tolerations, rendered.ResourceName)
	sortClosestFirst(matches)
	want := podRequest(rendered)
	var b strings.Builder
	writePools(&b, "\n\nGPU pools in the cluster:", matches, "(none: no node advertises an NVIDIA resource)",
		func(m capacity.PoolMatch) string {
			switch {
			case m.Fits && m.MaxFree < want:
				return fmt.Sprintf("labels and taints match, but at most %d %s are free on one node and each pod asks for %d",
					m.MaxFree, rendered.ResourceName, want)
			case m.Fits:
				return fmt.Sprintf("matches; %d node(s) with free %s, at most %d on one node", m.FreeNodes,
					rendered.ResourceName, m.MaxFree)
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

// podRequest is how many units of the GPU resource one pod requests.
func podRequest(rendered *workload.Rendered) int64 {
	spec := &rendered.PodTemplate().Spec
	var total int64
	for _, c := range spec.Containers {
		q := c.Resources.Limits[corev1.ResourceName(rendered.ResourceName)]
		total += q.Value()
	}
	return total
}
