package gpuworkload

import (
	"context"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	utilversion "k8s.io/apimachinery/pkg/util/version"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/refs"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/topologyblock"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kueuever"
	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/queue"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// workloadIntent is a gpu_workload as render sees it: the configuration,
// placed on its node pool (node_pool), with the provider's default cloud,
// resolved once. Every path (validate, plan, apply, read, delete) builds it
// the same way, once per call.
type workloadIntent struct {
	// raw is the workload as configured, before the pool filled anything:
	// what import must restore.
	raw      spec.Workload
	workload spec.Workload
	pool     *spec.PoolPolicy
	// queue is the gpu_queue the workload's queue attribute names, nil for
	// a queue managed elsewhere (or none).
	queue *queue.Ref
	// resolved is the workload resolved by render: strict when the
	// resolution was asked to be final and no value is unknown.
	resolved workload.Resolved
	// findings are ApplyPool's and the resolution's diagnostics.
	findings gpudiag.Diagnostics
	// cloudDefaulted is true when the provider's default_cloud decided the
	// cloud (neither cloud nor node_pool did).
	cloudDefaulted bool
	unknown        bool
	diags          diag.Diagnostics
}

func intentFromModel(ctx context.Context, m workloadModel, defaultCloud string, how resourcekit.Strictness) workloadIntent {
	return judgedIntentFromModel(ctx, m, defaultCloud, how, nil)
}

// judgedIntentFromModel is intentFromModel that also runs the rules depending on the
// Kueue release (the plan's): kueue says which release, and is asked
// only for a workload those rules concern, so other plans read nothing
// from the cluster. nil leaves those rules out.
func judgedIntentFromModel(ctx context.Context, m workloadModel, defaultCloud string, how resourcekit.Strictness, kueue func() kueuever.Known) workloadIntent {
	conv := &tfconv.Converter{Ctx: ctx}
	raw := workloadFromModel(conv, m)
	queueName, queueRef, queueFindings := refs.QueueAttribute(conv, m.Queue, "queue")
	raw.Queue = queueName
	in := workloadIntent{raw: raw, workload: raw}
	if decoded := refs.Pool(conv, m.NodePool); decoded != nil {
		placed, findings := pool.Apply(raw, *decoded)
		in.workload, in.pool = placed, decoded
		in.findings = append(in.findings, findings...)
	}
	// pool.Apply gave the workload its pool's cloud when none is configured.
	in.workload.Cloud, in.cloudDefaulted = resourcekit.PickCloud(m.Cloud, in.workload.Cloud, defaultCloud)
	in.resolveQueue(queueRef, queueFindings)
	in.unknown, in.diags = conv.Unknown, conv.Diags
	if kueue != nil && workload.KueueRulesApply(in.workload) {
		k := kueue()
		in.workload.Kueue = &k
	}
	in.resolved = workload.Resolve(in.workload, in.pool, how == resourcekit.Final && !in.unknown)
	in.findings = append(in.findings, in.resolved.Findings.NotAt(in.findings)...)
	return in
}

// render builds the workload's objects from the resolution, with the
// server's version when known (apply); diagnostics are rendering's own.
func (in workloadIntent) render(version *utilversion.Version) (*workload.Rendered, gpudiag.Diagnostics) {
	// The provider encodes the manifest itself (workload.EncodeManifest), the same
	// way for plan and refresh, so render's copy would be wasted work.
	return workload.Render(in.resolved, workload.Options{ServerVersion: version, SkipManifest: true})
}

// resolveQueue keeps a gpu_queue's ref for the quota check (the LocalQueue
// name the workload is labelled with is already in raw), unless the queue
// attribute is wrong (findings, refs.QueueAttribute).
func (in *workloadIntent) resolveQueue(ref *queue.Ref, findings gpudiag.Diagnostics) {
	if len(findings) > 0 {
		in.findings = append(in.findings, findings...)
		return
	}
	if ref == nil {
		return
	}
	if s := in.raw.QueueScheduler; s != "" && s != spec.QueueSchedulerKueue {
		in.findings = append(in.findings, gpudiag.Diagnostic{Severity: gpudiag.SeverityError, Path: []any{"queue_scheduler"},
			Summary: "A gpu_queue is a Kueue queue", Detail: "queue is the id of gpu_queue " + strconv.Quote(ref.Name) +
				", which is a Kueue ClusterQueue, but queue_scheduler is " + strconv.Quote(s) + ". Allowed: \"kueue\" or unset."})
	}
	in.queue = ref
}

// queueFindings checks the rendered workload against its gpu_queue: a
// workload no flavor covers, or one above the quota, would wait forever.
func (in workloadIntent) queueFindings(rendered *workload.Rendered) gpudiag.Diagnostics {
	if in.queue == nil || rendered == nil {
		return nil
	}
	findings := queue.CheckWorkload(*in.queue, queue.DemandOf(in.workload, rendered))
	return append(findings, topologyblock.QueueFindings(*in.queue, in.workload.Topology, in.pool, "topology")...)
}

// renderIntent renders a final intent for apply and read, which report the
// resolution's findings with rendering's (plan reported them already
// through ValidateConfig and planOnlyFindings).
func renderIntent(in workloadIntent, version *utilversion.Version) (*workload.Rendered, gpudiag.Diagnostics) {
	findings := in.resolved.Findings
	if findings.HasError() || !in.resolved.Strict {
		return nil, findings
	}
	rendered, diags := in.render(version)
	return rendered, append(findings, diags...)
}
