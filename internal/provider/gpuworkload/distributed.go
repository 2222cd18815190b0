package gpuworkload

import (
	"strconv"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds/distributedjob"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
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
