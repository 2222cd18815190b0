package gpuworkload

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/gpuintent"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// workloadModel is gpu_workload's Terraform data.
type workloadModel struct {
	// Intent holds the attributes only render reads (image, env, probes,
	// sizes, ...): workloadFromModel decodes them into spec.Workload by name, so a
	// new one is its schema entry and its render field.
	Intent tfconv.Attributes
	// RenderedAttributes are the attributes gpu_ray_cluster has too (listed
	// where they are declared, in resourcekit).
	resourcekit.RenderedAttributes
	Kind           types.String `tfsdk:"kind"`
	QueueScheduler types.String `tfsdk:"queue_scheduler"`
	GPU            types.Object `tfsdk:"gpu"`
	Job            types.Object `tfsdk:"job"`
	Topology       types.Object `tfsdk:"topology"`
	NodePool       types.Object `tfsdk:"node_pool"`
	Adopt          types.Bool   `tfsdk:"adopt"`
	ResourceName   types.String `tfsdk:"resource_name"`
	NodeSelector   types.Map    `tfsdk:"node_selector"`
	Tolerations    types.List   `tfsdk:"tolerations"`
	ScheduledNodes types.List   `tfsdk:"scheduled_nodes"`
}

// workloadFromModel converts the plan or state into render's input, as
// configured: the cloud is picked later (pickCloud), after the node pool.
func workloadFromModel(c *tfconv.Converter, m workloadModel) spec.Workload {
	w := spec.Workload{
		Name:           c.Str(m.Name),
		Namespace:      c.Str(m.Namespace),
		Kind:           c.Str(m.Kind),
		Cloud:          c.Str(m.Cloud),
		QueueScheduler: c.Str(m.QueueScheduler),
		GPU:            gpuintent.GPUFromObject(c, m.GPU),
		Job:            tfconv.Decode[spec.JobControls](c, m.Job),
		Topology:       tfconv.Decode[spec.WorkloadTopology](c, m.Topology),
	}
	m.Intent.DecodeInto(c, &w)
	if w.Kind == "" && !m.Kind.IsUnknown() {
		w.Kind = kinds.Default().Name
	}
	return w
}

// setRenderedOutputs copies render's outputs into the computed attributes.
func setRenderedOutputs(ctx context.Context, m *workloadModel, rendered *workload.Rendered) diag.Diagnostics {
	var diags diag.Diagnostics
	manifest, err := workload.ManifestOf(rendered.Objects)
	if err != nil {
		diags.AddError("Cannot encode the rendered workload", err.Error())
		return diags
	}
	m.Manifest = types.StringValue(manifest)
	diags.Append(setPlacementOutputs(ctx, m, rendered)...)
	return diags
}

// setPlacementOutputs copies render's placement (resource name, node
// selector, tolerations) into the computed attributes, without encoding the
// manifest: a refresh writes the manifest the cluster holds instead.
func setPlacementOutputs(ctx context.Context, m *workloadModel, rendered *workload.Rendered) diag.Diagnostics {
	var diags diag.Diagnostics
	m.ResourceName = types.StringValue(rendered.ResourceName)
	selector, d := types.MapValueFrom(ctx, types.StringType, rendered.NodeSelector)
	diags.Append(d...)
	m.NodeSelector = selector
	m.Tolerations = tfconv.TolerationList(rendered.Tolerations, &diags)
	return diags
}
