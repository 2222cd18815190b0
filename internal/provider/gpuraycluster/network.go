package gpuraycluster

import (
	"context"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/clustercapacity"
	"github.com/gpuform/terraform-provider-gpu/internal/render/ray"
)

// warnUnadvertisedNetworks: each group whose pods get their pool's GPU
// network is warned, before the pods are created, when the pool's nodes do
// not advertise it (gpu_workload's check, per group).
func warnUnadvertisedNetworks(ctx context.Context, client *kube.Client, rendered *ray.Rendered, diags *diag.Diagnostics) {
	for _, g := range rendered.Groups {
		if g.Pod.Rendered != nil && g.Pod.Network != nil {
			clustercapacity.WarnUnadvertisedNetwork(ctx, client, g.Pod.Rendered, "The pods of worker group "+strconv.Quote(g.Name), diags)
		}
	}
}
