package gpuworkload

import (
	"context"
	"fmt"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds/distributedjob"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// gangFindings warns, at plan, of a distributed job of several pods
// without a queue: the default scheduler places its pods one at a time, so
// some may start (and hold their GPUs, and wait in the rendezvous) while
// others wait for GPUs, and two such jobs can each hold half the cluster.
// A Kueue queue admits the Indexed Job as one Workload of all its pods.
func gangFindings(w spec.Workload) gpudiag.Diagnostics {
	var diags gpudiag.Diagnostics
	nodes, _ := distributedjob.NodePods(w)
	if w.Kind != spec.KindDistributedJob || w.Queue != "" || nodes < 2 {
		return nil
	}
	diags.AddWarning(gpudiag.At("distributed", "nodes"), "The "+strconv.FormatInt(nodes, 10)+" pods may not start together",
		"Without a queue, the default Kubernetes scheduler does not gang-schedule: it places each pod of the Job on "+
			"its own, so some pods may start and hold their GPUs while others wait for free GPUs, and the started "+
			"ones wait in the launcher's rendezvous (torchrun times out) meanwhile. Set queue to a gpu_queue "+
			"(queue = gpu_queue.<name>.id) for all-or-nothing admission: Kueue admits the Job as one workload of "+
			"all "+strconv.FormatInt(nodes, 10)+" pods, or keeps it queued.")
	return diags
}

// refuseForeignCompanions stops a create from taking over an object of the
// name that the kind renders beside its workload (a Service another tool
// or person created): server-side apply would merge into it, keeping the
// other manager's selector keys and ports beside the workload's (a Service
// selecting nothing), and destroy would delete it. adopt does not change
// this: it takes over the workload object, whose fields the render sets
// in full. An object this provider labelled is an earlier apply's (an
// interrupted create) and is taken over.
func refuseForeignCompanions(ctx context.Context, client *kube.Client, rendered *workload.Rendered, diags *diag.Diagnostics) bool {
	for _, obj := range rendered.Companions {
		ref, live, ok := resourcekit.LiveBeforeCreate(ctx, client, "gpu_workload", obj, diags)
		if !ok {
			return false
		}
		if live != nil && live.GetLabels()[spec.LabelManagedBy] != spec.ManagedBy {
			diags.AddError("Object already exists", fmt.Sprintf("%s exists and was not created by gpu_workload, which "+
				"renders an object of that name beside the workload (adopt does not take it over: its other "+
				"fields would stay and change what it does). Delete it, or choose another name.", ref))
			return false
		}
	}
	return true
}
