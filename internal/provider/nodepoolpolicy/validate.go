package nodepoolpolicy

import (
	"context"
	"slices"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// minSharedReplicas: sharing a GPU means at least two pods on it.
const minSharedReplicas = 2

// withoutSchemaErrors blanks the values the schema's validators reject, so
// render, which treats blank as unknown, does not report the same mistake a
// second time ("Unknown cloud" next to "Invalid Attribute Value Match").
// A known cloud without node pools (its profile's PoolsUnsupported) is
// kept: render says why it has none and what to use instead, which the
// schema's list of allowed values does not.
func withoutSchemaErrors(p spec.PoolPolicy) spec.PoolPolicy {
	p.Cloud = onlyIfIn(p.Cloud, clouds.Names())
	p.Accelerator = onlyIfIn(p.Accelerator, catalog.AcceleratorNames())
	p.MIGStrategy = onlyIfIn(p.MIGStrategy, spec.MIGStrategyNames())
	p.Sharing = onlyIfIn(p.Sharing, spec.SharingNames())
	p.GPUAllocation = onlyIfIn(p.GPUAllocation, spec.GPUAllocationNames())
	if p.GPUsPerNode < 1 || p.GPUsPerNode > spec.MaxGPUsPerPod {
		p.GPUsPerNode = 0
	}
	if p.Replicas < minSharedReplicas {
		p.Replicas = 0
	}
	return p
}

func onlyIfIn(value string, allowed []string) string {
	if slices.Contains(allowed, value) {
		return value
	}
	return ""
}

// locatable shortens paths into the objects of the taints list to the
// list element. Terraform shows the source line of a list element, but
// not of an attribute inside a nested attribute's object: for
// taints[0].effect it would quote only the resource's first line. The
// summary names the field ("Invalid taint effect").
func locatable(ds gpudiag.Diagnostics) gpudiag.Diagnostics {
	out := make(gpudiag.Diagnostics, len(ds))
	for i, d := range ds {
		if len(d.Path) > 2 && d.Path[0] == "taints" {
			d.Path = d.Path[:2]
		}
		out[i] = d
	}
	return out
}

// fromDefaultCloud explains diagnostics that only the provider's
// default_cloud causes: the resource's own configuration has no cloud line
// to blame.
func fromDefaultCloud(ds gpudiag.Diagnostics, cloud string) gpudiag.Diagnostics {
	out := make(gpudiag.Diagnostics, len(ds))
	for i, d := range ds {
		d.Detail += " (cloud is " + strconv.Quote(cloud) + " from default_cloud in the provider \"gpu\" block; " +
			"set cloud on this resource to use another.)"
		out[i] = d
	}
	return out
}

// requireBlockAttributes enforces what the nested blocks need when present
// (attributes of an optional block cannot be marked required). Each error
// is on the missing attribute, which Terraform shows as the block's line.
func requireBlockAttributes(ctx context.Context, m nodePoolPolicyModel) diag.Diagnostics {
	var diags diag.Diagnostics
	conv := &tfconv.Converter{Ctx: ctx}
	var nodes manageNodesModel
	if conv.Object(m.ManageNodes, &nodes) && nodes.Selector.IsNull() {
		diags.AddAttributeError(path.Root("manage_nodes").AtName("selector"), "Missing selector",
			"manage_nodes needs selector: a label selector of the nodes to manage, e.g. \"cloud.google.com/gke-nodepool=a100\".")
	}
	var cm configMapRefModel
	if conv.Object(m.DevicePluginConfig, &cm) {
		requireRef(&diags, "namespace", cm.Namespace, "\"gpu-operator\"")
		requireRef(&diags, "name", cm.Name, "the GPU Operator's devicePlugin.config.name, e.g. \"device-plugin-config\"")
		refuseOnDRAPool(&diags, m)
	}
	return append(diags, conv.Diags...)
}

// refuseOnDRAPool: one node, one way. device_plugin_config writes the
// device plugin's configuration for nodes whose GPUs the DRA driver hands
// out, where no device plugin may run (docs/design/dra.md §1.4).
func refuseOnDRAPool(diags *diag.Diagnostics, m nodePoolPolicyModel) {
	if m.GPUAllocation.ValueString() != spec.GPUAllocationDRA {
		return
	}
	// On name, the entry's line: Terraform shows a block's own path as the
	// resource's first line.
	diags.AddAttributeError(path.Root("device_plugin_config").AtName("name"), "device_plugin_config on a DRA pool",
		"A DRA pool's GPUs are handed out by NVIDIA's DRA driver alone: a node that also runs the device plugin "+
			"advertises every GPU twice and over-admits pods, which is why the driver's chart refuses to render beside "+
			"the device plugin, and no device plugin reads a configuration for these nodes. Allowed: remove "+
			"device_plugin_config, or gpu_allocation = \""+spec.GPUAllocationDevicePlugin+"\".")
}

func requireRef(diags *diag.Diagnostics, attribute string, v types.String, example string) {
	if !v.IsNull() {
		return
	}
	diags.AddAttributeError(path.Root("device_plugin_config").AtName(attribute), "Missing ConfigMap "+attribute,
		"device_plugin_config needs the namespace and name of the ConfigMap the device plugin reads. Allowed: "+
			attribute+" = "+example+".")
}
