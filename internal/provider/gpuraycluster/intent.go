package gpuraycluster

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	utilversion "k8s.io/apimachinery/pkg/util/version"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/refs"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/topologyblock"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kueuever"
	"github.com/gpuform/terraform-provider-gpu/internal/render/queue"
	"github.com/gpuform/terraform-provider-gpu/internal/render/ray"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// clusterIntent is a gpu_ray_cluster as render sees it, resolved once per
// call: every path (validate, plan, apply, read, delete) builds it the same
// way.
type clusterIntent struct {
	// cluster is the intent as configured, with the groups' pools decoded:
	// what the spec annotation records for import.
	cluster spec.RayCluster
	// queue is the gpu_queue the queue attribute names; nil for a queue
	// managed elsewhere, or none.
	queue    *queue.Ref
	resolved ray.Resolved
	// findings are the resolution's and the queue attribute's.
	findings gpudiag.Diagnostics
	// cloudDefaulted: the provider's default_cloud gave the cloud.
	cloudDefaulted bool
	unknown        bool
	diags          diag.Diagnostics
}

func intentFromModel(ctx context.Context, m clusterModel, defaultCloud string, how resourcekit.Strictness) clusterIntent {
	return judgedIntentFromModel(ctx, m, defaultCloud, how, nil)
}

// judgedIntentFromModel is intentFromModel that also runs the rules depending on the
// Kueue release (the plan's: the worker group limit, and the groups' DRA
// rules): kueue says which release, and is asked only for a queued
// cluster, so other plans read nothing from the cluster. nil leaves those
// rules out.
func judgedIntentFromModel(ctx context.Context, m clusterModel, defaultCloud string, how resourcekit.Strictness, kueue func() kueuever.Known) clusterIntent {
	conv := converter(ctx)
	c := clusterFromModel(conv, m)
	name, ref, queueFindings := refs.QueueAttribute(conv, m.Queue, "LocalQueue")
	c.Queue = name
	if kueue != nil && name != "" {
		k := kueue()
		c.Kueue = &k
	}
	in := clusterIntent{queue: ref, findings: queueFindings}
	// The cluster's cloud only places groups without a pool; default_cloud
	// stands in for it as for gpu_workload.
	if c.Cloud == "" && !m.Cloud.IsUnknown() && defaultCloud != "" {
		c.Cloud, in.cloudDefaulted = defaultCloud, true
	}
	in.cluster = c
	in.unknown, in.diags = conv.Unknown, conv.Diags
	in.resolved = ray.Resolve(c, how == resourcekit.Final && !in.unknown)
	in.findings = append(in.findings, in.resolved.Findings...)
	return in
}

// render builds the objects of a final intent, with the server's version
// when known (apply); its diagnostics are the resolution's errors (which
// stop it) and rendering's own.
func (in clusterIntent) render(version *utilversion.Version) (*ray.Rendered, gpudiag.Diagnostics) {
	if in.resolved.Findings.HasError() || !in.resolved.Strict {
		return nil, in.resolved.Findings.Errors()
	}
	return ray.Render(in.resolved, workload.Options{ServerVersion: version, SkipManifest: true})
}

// queueFindings: a group Kueue can never admit to the gpu_queue, judged
// as its own pod set (ray.CheckQueue), and a group's topology the queue's
// flavor of its pool cannot place by.
func (in clusterIntent) queueFindings(rendered *ray.Rendered) gpudiag.Diagnostics {
	if in.queue == nil || rendered == nil {
		return nil
	}
	findings := ray.CheckQueue(*in.queue, rendered)
	for i, g := range in.cluster.WorkerGroups {
		findings = append(findings, topologyblock.QueueFindings(*in.queue, g.Topology, g.NodePool, "worker_group", i, "topology")...)
	}
	return findings
}

// usesDRA: a group's GPUs come from a DRA claim, whose resource.k8s.io
// version depends on the server.
func (in clusterIntent) usesDRA() bool {
	groups := append([]spec.RayGroup{in.cluster.Head}, in.cluster.WorkerGroups...)
	for _, g := range groups {
		if g.GPU != nil && (g.GPU.DRA != nil || (g.NodePool != nil && g.NodePool.UsesDRA())) {
			return true
		}
	}
	return false
}
