package nodepoolpolicy

import (
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// The pool's network topology (issue #33): the topology block in, the
// resolved topology_levels out. The levels each cloud knows are in that
// cloud's file under internal/render/clouds.

// maxTopologyLevelsConfigured leaves room for the node level Kueue's 16
// levels end with.
const maxTopologyLevelsConfigured = 15

func topologyBlock() schema.SingleNestedBlock {
	return schema.SingleNestedBlock{
		MarkdownDescription: "The pool's network topology, for multi-node work that must stay close together " +
			"(Kueue's Topology Aware Scheduling). With this block, `gpu_queue` renders a Kueue `Topology` for the pool " +
			"and sets its flavor's `topologyName`, and a `gpu_workload` on the pool can ask for one domain of a level " +
			"(`topology.level`). An empty block takes the cloud's levels. Levels per cloud: " + levelsMarkdown() +
			". `node` (`kubernetes.io/hostname`) is always the innermost level. Only add the block when the nodes " +
			"carry the labels (on GKE: reserved or compact-placed A3/A4 capacity): Kueue leaves out nodes without them.",
		Attributes: map[string]schema.Attribute{
			"levels": schema.ListAttribute{
				ElementType: types.StringType,
				Optional:    true,
				MarkdownDescription: "Levels outermost first, replacing the cloud's: level names of the cloud (see the " +
					"block) or node label keys such as `example.com/rack`. Required on clouds without standard levels " +
					"(`generic`: e.g. `[\"clique\"]` for GB200/GB300 NVL72 NVLink domains; `aks`). `node` is added " +
					"last when not listed.",
				Validators: []validator.List{
					listvalidator.SizeBetween(1, maxTopologyLevelsConfigured),
					listvalidator.UniqueValues(),
					listvalidator.ValueStringsAre(tfconv.LabelKeyOrName()),
				},
			},
			"nodes_per_domain": schema.MapAttribute{
				ElementType: types.Int64Type,
				Optional:    true,
				MarkdownDescription: "The pool's shape where you know it: nodes in one domain of a level, keyed by " +
					"level name, e.g. `{ block = 4, subblock = 2 }`. A workload whose pods cannot fit one domain of " +
					"the level it requires is then a plan error.",
				Validators: []validator.Map{mapvalidator.ValueInt64sAre(int64validator.AtLeast(1))},
			},
		},
	}
}

// levelsMarkdown lists each pool cloud's levels, defaults marked.
func levelsMarkdown() string {
	var parts []string
	for _, name := range clouds.PoolNames() {
		c := clouds.Lookup(spec.Cloud(name))
		var levels []string
		for _, l := range c.TopologyLevels() {
			if l.Name == clouds.TopologyLevelNode {
				continue
			}
			entry := "`" + l.Name + "` (`" + l.NodeLabel + "`"
			if !l.Default {
				entry += ", not by default"
			}
			levels = append(levels, entry+")")
		}
		if len(levels) == 0 {
			levels = []string{"none: list them in `levels`"}
		}
		parts = append(parts, "`"+name+"`: "+strings.Join(levels, ", "))
	}
	return strings.Join(parts, "; ")
}

// topologyLevelAttrTypes is one element of topology_levels.
var topologyLevelAttrTypes = map[string]attr.Type{
	"name": types.StringType, "node_label": types.StringType, "nodes": types.Int64Type,
}

func topologyLevelsAttribute() schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		Computed: true,
		MarkdownDescription: "With the `topology` block: the pool's levels as the Kueue `Topology` lists them, outermost " +
			"first and ending with `node`. Empty without the block.",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"name": schema.StringAttribute{Computed: true, MarkdownDescription: "Level name, e.g. `block` (a level given " +
				"as a node label key is named by the key); what `gpu_workload.topology.level` names."},
			"node_label": schema.StringAttribute{Computed: true, MarkdownDescription: "The node label holding a node's " +
				"domain at this level, e.g. `cloud.google.com/gce-topology-block`."},
			"nodes": schema.Int64Attribute{Computed: true, MarkdownDescription: "Nodes in one domain, from " +
				"`nodes_per_domain` (1 for `node`); null when not given."},
		}},
	}
}

// topologyLevelsFrom is topology_levels from the rendered pool.
func topologyLevelsFrom(levels []spec.TopologyLevel, diags *diag.Diagnostics) types.List {
	values := make([]attr.Value, 0, len(levels))
	for _, l := range levels {
		obj, d := types.ObjectValue(topologyLevelAttrTypes, map[string]attr.Value{
			"name": types.StringValue(l.Name), "node_label": types.StringValue(l.NodeLabel),
			"nodes": tfconv.NullableInt64Of(l.Nodes),
		})
		diags.Append(d...)
		values = append(values, obj)
	}
	list, d := types.ListValue(types.ObjectType{AttrTypes: topologyLevelAttrTypes}, values)
	diags.Append(d...)
	return list
}
