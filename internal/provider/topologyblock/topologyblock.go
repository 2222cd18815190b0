// Package topologyblock is the `topology` block, declared once: a
// gpu_workload's and each gpu_ray_cluster worker group's pods kept in one
// domain of the pool's network topology (issue #33;
// internal/render/workload/topology.go resolves and renders it), and the
// check of it against a gpu_queue's flavors.
package topologyblock

import (
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/queue"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// Block is the topology block; pods says whose pods it keeps together,
// e.g. "the pods of a multi-pod workload (...)", and note ends the
// description with what holds only for them.
func Block(pods, note string) schema.SingleNestedBlock {
	return schema.SingleNestedBlock{
		MarkdownDescription: "Keep " + pods + " in one domain of the node pool's network topology, e.g. one block. " +
			"Levels are the pool's (`gpu_node_pool_policy.topology`), or without one the cloud's. In a Kueue queue " +
			"(`queue` a `gpu_queue` over a pool with a `topology` block) it becomes Kueue's Topology Aware " +
			"Scheduling annotations: Kueue admits the pods together only when one domain has room, and otherwise " +
			"keeps the workload queued with its reason. Without a queue it becomes required (or preferred) pod " +
			"affinity among these pods on the level's node label: the default scheduler has no gang, so " +
			"the first pod picks the domain and the rest follow it or stay Pending when it is full. " + note,
		Attributes: map[string]schema.Attribute{
			"nvlink_domain": nvlinkDomainAttribute(),
			"level": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "The level all pods share one domain of: a level name of the pool such as `block`, " +
					"`subblock`, `host` (GKE), `layer-1` to `layer-4` (AWS), `clique` (NVLink domain) or `node`, or the " +
					"level's node label. Required in the block.",
				Validators: []validator.String{stringvalidator.LengthAtLeast(1), tfconv.LabelKeyOrName()},
			},
			"mode": tfconv.OneOf(spec.TopologyModeNames(), "One of ", " (default `"+spec.TopologyRequired+
				"`): `required` runs the pods only in one domain; `preferred` packs them into one when one has room "+
				"and spreads them otherwise."),
			"slice_size": schema.Int64Attribute{
				Optional: true,
				MarkdownDescription: "Kueue only: pods per slice; every slice runs in one domain of `slice_level` " +
					"(Kueue's `podset-slice-size`). Must divide the pod count. Requires `slice_level`.",
				Validators: []validator.Int64{
					int64validator.AtLeast(1),
					int64validator.AlsoRequires(path.MatchRelative().AtParent().AtName("slice_level")),
				},
			},
			"slice_level": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Kueue only: the level each slice shares one domain of, `level` or one inside it " +
					"(Kueue's `podset-slice-required-topology`). Requires `slice_size`.",
				Validators: []validator.String{
					tfconv.LabelKeyOrName(),
					stringvalidator.AlsoRequires(path.MatchRelative().AtParent().AtName("slice_size")),
				},
			},
		},
	}
}

// nvlinkDomainAttribute: an explicit switch rather than implied by
// level = "clique", because the ComputeDomain needs NVIDIA's DRA driver in
// the cluster, and a workload that only wants its pods in one rack must not
// start depending on it.
func nvlinkDomainAttribute() schema.BoolAttribute {
	return schema.BoolAttribute{
		Optional: true,
		MarkdownDescription: "Let the pods use NVLink across nodes (multi-node NVLink on NVL72 racks: " +
			tfconv.MarkdownList(catalog.NVLinkDomainAcceleratorNames()) + "). The provider then also applies a " +
			"`ComputeDomain` (`resource.nvidia.com/v1beta1`, NVIDIA's DRA driver) named after the workload (a Ray " +
			"worker group's: `<cluster>-<group>`), before the pods' object, with one IMEX channel per pod (`allocationMode = Single`); the driver's controller " +
			"creates the channel's ResourceClaimTemplate `<name>-channel`, and the pod template claims it " +
			"(`resourceClaims` entry `channel`, also in the GPU container's `resources.claims`). The provider never " +
			"writes that template, so it shows no drift. Needs `level = \"clique\"` (GPU Feature Discovery's " +
			"`nvidia.com/gpu.clique`), a node pool (or `gpu.accelerator`) of an NVL72 model, NVIDIA's DRA driver " +
			"with ComputeDomains in the cluster, and Kubernetes 1.32 or newer. Pods wait in ContainerCreating until " +
			"their node's IMEX daemon runs. Default `false`.",
	}
}

// QueueFindings: Kueue places by topology only through a flavor with a
// Topology. The pool's own topology block is checked by render; this
// catches a gpu_queue whose flavor of the pool was rendered without one (the
// queue's id predates the pool's topology block, or names another pool).
// at is the topology block's path (gpu_workload's topology, a worker
// group's worker_group[i].topology).
func QueueFindings(ref queue.Ref, topology *spec.WorkloadTopology, pool *spec.PoolPolicy, at ...any) gpudiag.Diagnostics {
	var diags gpudiag.Diagnostics
	if topology == nil || pool == nil || pool.Topology == nil {
		return diags
	}
	for _, f := range ref.Flavors {
		if f.Name == pool.Name && len(f.TopologyLevels) == 0 {
			diags.AddError(append(at, "level"), "The queue's flavor has no topology", "gpu_queue "+strconv.Quote(ref.Name)+
				" was planned with node pool "+strconv.Quote(pool.Name)+" before its topology block, so its ResourceFlavor "+
				"has no Kueue Topology and Kueue cannot place by topology. Allowed: apply the gpu_queue with the pool's "+
				"current id (gpu_node_pool_policy.<name>.id), or remove topology.")
		}
	}
	return diags
}
