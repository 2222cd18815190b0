package gpuworkload

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/clustercapacity"
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
		b.WriteString("\n\n" + clustercapacity.ExplainPools(ctx, client, clustercapacity.AskOf(rendered, &rendered.PodTemplate().Spec)))
	}
	b.WriteString("\n\nThis workload asked for:")
	if rendered.ResourceName != "" {
		fmt.Fprintf(&b, "\n  resource: %s", rendered.ResourceName)
	}
	requests := clustercapacity.DRARequests(rendered)
	b.WriteString(clustercapacity.DescribeClaim(requests))
	if rendered.Network != nil && len(rendered.Network.Resources) > 0 {
		fmt.Fprintf(&b, "\n  GPU network: %s (from %s)", clustercapacity.DescribeNetworkRequest(rendered.Network.Resources),
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
	if rendered.ResourceName == "" && len(requests) > 0 {
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
