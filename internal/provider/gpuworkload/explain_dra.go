package gpuworkload

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/render/capacity"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// draRequests are the ways the workload's claim can be met; none without
// DRA.
func draRequests(rendered *workload.Rendered) []capacity.DRARequest {
	switch {
	case rendered.ResourceClaimTemplateV1 != nil:
		return capacity.DRARequestsV1(rendered.ResourceClaimTemplateV1.Spec.Spec)
	case rendered.ResourceClaimTemplateV1beta1 != nil:
		return capacity.DRARequestsV1beta1(rendered.ResourceClaimTemplateV1beta1.Spec.Spec)
	}
	return nil
}

// describeClaim lists the claim's requests, with their constraints, for
// "This workload asked for".
func describeClaim(requests []capacity.DRARequest) string {
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
func explainDRAPools(ctx context.Context, client *kube.Client, rendered *workload.Rendered, pools []spec.PoolCapacity,
	draInputs *capacity.DRAInputs, requests []capacity.DRARequest) string {
	// Without the classes (no permission to list them) the driver's own
	// classes are assumed as its chart installs them; other classes are
	// reported as unreadable.
	classes, err := client.DeviceClassSelectors(ctx)
	if err != nil {
		classes = nil
	}
	matches := capacity.MatchingDRAPools(pools, rendered.NodeSelector, rendered.Affinity, rendered.Tolerations,
		requests, classes, draInputs)
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
	writePools(&b, "\n\nGPU pools in the cluster (DRA devices matching the claim):", dra,
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
