package ray

import (
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/validate"
)

// Resolved is a Ray cluster resolved once: every group placed on its pool
// and checked by gpu_workload's pod rules, and the cluster's own rules
// run. Render builds the objects from it.
type Resolved struct {
	Cluster spec.RayCluster
	groups  []group // the head first, then the worker groups in order
	// Findings are every rule's diagnostics, on the cluster's attribute
	// paths (head.gpu.count, worker_group[1].replicas).
	Findings gpudiag.Diagnostics
	// Strict is true when every value was final (workload.Resolved).
	Strict bool
}

// Resolve runs every rule on c. The groups' node pools are in c
// (RayGroup.NodePool, decoded by the caller).
func Resolve(c spec.RayCluster, strict bool) Resolved {
	var diags gpudiag.Diagnostics
	validate.RequireSet(&diags, strict, c.Name, gpudiag.At("name"), "the object name, a DNS-1035 label such as \"llm-train\"")
	checkClusterName(c, &diags)
	validate.RequireSet(&diags, strict, c.Image, gpudiag.At("image"), "the Ray image every group runs, such as \"rayproject/ray:2.52.0-gpu\"")
	if c.Cloud != "" || strict {
		validate.Cloud(c.Cloud, strict && !allPooled(c), &diags)
	}
	checkGroupNames(c.WorkerGroups, strict, &diags)
	checkKueue(c, &diags)
	checkJob(c, strict, &diags)
	checkServe(c, strict, &diags)
	groups := make([]group, 0, 1+len(c.WorkerGroups))
	head, headDiags := resolveGroup(c, group{RayGroup: c.Head, head: true, index: -1}, strict)
	groups = append(groups, head)
	diags.Append(headDiags)
	checkHead(head, &diags)
	for i, wg := range c.WorkerGroups {
		checkReplicas(wg, i, c.Autoscaling != nil, &diags)
		g, groupDiags := resolveGroup(c, group{RayGroup: wg, index: i}, strict)
		groups = append(groups, g)
		diags.Append(groupDiags)
	}
	for _, g := range groups {
		checkStartParams(g, &diags)
		readGroupPatch(g, &diags) // its effect is checked by Render, on the rendered group
	}
	if c.Autoscaling != nil {
		validate.Min32(&diags, c.Autoscaling.IdleTimeoutSeconds, 0, gpudiag.At("autoscaling", "idle_timeout_seconds"))
	}
	return Resolved{Cluster: c, groups: groups, Findings: dedupe(diags), Strict: strict}
}

// allPooled: every group has a pool, which names the cloud, so the
// cluster's cloud may be unset.
func allPooled(c spec.RayCluster) bool {
	if c.Head.NodePool == nil {
		return false
	}
	for _, g := range c.WorkerGroups {
		if g.NodePool == nil {
			return false
		}
	}
	return true
}

// checkHead: the head's pods are its own kind of group: no replicas.
func checkHead(g group, diags *gpudiag.Diagnostics) {
	for _, f := range []struct {
		attr string
		set  bool
	}{{"name", g.Name != ""}, {"replicas", g.Replicas != nil}, {"min_replicas", g.MinReplicas != nil},
		{"max_replicas", g.MaxReplicas != nil}} {
		if f.set {
			diags.AddError(headPath(f.attr), "Not a head setting", "A Ray cluster has one head pod, named after the cluster; "+
				f.attr+" is a worker group's. Allowed: remove it.")
		}
	}
	if g.NodePool != nil && !g.gpus {
		diags.AddWarning(headPath("node_pool"), "A head without GPUs on a GPU pool", "The head asks for no GPU and runs on "+
			"node pool "+quote(g.NodePool.Name)+", whose nodes have GPUs: it holds a GPU node's CPU and memory, and the "+
			"provider hides the node's GPUs from it (NVIDIA_VISIBLE_DEVICES=void, num-gpus 0). Allowed: leave node_pool "+
			"unset to run the head on any node without a GPU taint.")
	}
}
