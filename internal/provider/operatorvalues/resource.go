package operatorvalues

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
)

// NewResource returns the gpu_operator_values resource.
func NewResource() resource.Resource {
	return resourcekit.New[valuesResource]("_operator_values")
}

// operatorValuesResource is pure computation: every output is derived in
// ModifyPlan from configuration (and, with chart_path, a local chart), so
// it never needs a cluster, and its state is just the last plan.
type valuesResource struct{ resourcekit.Resource }

// ValidateConfig runs every rule that configuration alone decides.
// Terraform points these diagnostics at the offending line, which it does
// not do for plan-time ones, so this is where they belong.
func (r *valuesResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	config, ok := resourcekit.Get[operatorValuesModel](ctx, req.Config, &resp.Diagnostics)
	if !ok {
		return
	}
	in := valuesIntentFromModel(ctx, config, "")
	resp.Diagnostics.Append(in.diags...)
	resp.Diagnostics.Append(valuesDiagnostics(append(in.findings, validateValuesSources(ctx, config)...))...)
}

// validateValuesSources checks what render does not see: base_values_yaml,
// render_preview, and each chart block's own checks (Numaflow's gpu block).
func validateValuesSources(ctx context.Context, m operatorValuesModel) gpudiag.Diagnostics {
	var diags gpudiag.Diagnostics
	if m.RenderPreview.ValueBool() && m.ChartPath.IsNull() {
		diags = append(diags, errorAt([]any{"render_preview"}, "render_preview needs chart_path",
			"Previewing renders a local chart. Allowed: set chart_path to the chart's directory or .tgz, or remove render_preview."))
	}
	for i, e := range m.BaseValuesYAML.Elements() {
		if s, ok := e.(types.String); ok && !s.IsUnknown() && !s.IsNull() {
			if _, err := parseValuesYAML(s.ValueString()); err != nil {
				diags = append(diags, baseValuesError(i, err))
			}
		}
	}
	// Conversion problems were reported with the intent's diagnostics.
	conv := newValuesConverter(ctx)
	for _, b := range chartBlocks {
		diags = append(diags, b.check(conv, m.block(b.name))...)
	}
	return diags
}

// valuesDiagnostics converts render diagnostics. A path that ends at a
// block (fiftyone, fiftyone.deployment[1], numaflow.gpu) gets one more,
// unmatched step: Terraform then descends into that block and quotes its
// first line, where for the block itself it would quote the resource's.
func valuesDiagnostics(in gpudiag.Diagnostics) diag.Diagnostics {
	blocks := operatorValuesBlocks()
	out := make(gpudiag.Diagnostics, len(in))
	for i, d := range in {
		if isBlockPath(blocks, d.Path) {
			d.Path = append(append([]any{}, d.Path...), blockSubjectStep)
		}
		out[i] = d
	}
	return resourcekit.RenderDiagnostics(out)
}

// blockSubjectStep names no attribute (attribute names have no
// parentheses), so Terraform stops inside the block.
const blockSubjectStep = "(block)"

// isBlockPath reports whether steps name a block of the schema (an element
// of a list block included) rather than an attribute.
func isBlockPath(blocks map[string]schema.Block, steps []any) bool {
	if len(steps) == 0 {
		return false
	}
	name, _ := steps[0].(string)
	b, ok := blocks[name]
	if !ok {
		return false
	}
	rest := steps[1:]
	if len(rest) > 0 {
		if _, index := rest[0].(int); index {
			rest = rest[1:]
		}
	}
	if len(rest) == 0 {
		return true
	}
	nested := map[string]schema.Block{}
	for n, nb := range b.GetNestedObject().GetBlocks() {
		if sb, ok := nb.(schema.Block); ok {
			nested[n] = sb
		}
	}
	return isBlockPath(nested, rest)
}

// ModifyPlan computes every output from configuration when it is known:
// no cluster call happens, ever.
func (r *valuesResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	plan, ok := resourcekit.Get[operatorValuesModel](ctx, req.Plan, &resp.Diagnostics)
	if !ok {
		return
	}
	var configuredCloud types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("cloud"), &configuredCloud)...)
	if configuredCloud.IsNull() {
		plan.Cloud = types.StringNull() // decided below: node pools, then default_cloud
	}
	in := valuesIntentFromModel(ctx, plan, r.DefaultCloud())
	resp.Diagnostics.Append(in.diags...)
	// ValidateConfig reported what configuration alone decides; report only
	// what the provider's default cloud adds.
	resp.Diagnostics.Append(valuesDiagnostics(resourcekit.Subtract(in.findings, valuesIntentFromModel(ctx, plan, "").findings))...)
	if configuredCloud.IsNull() {
		switch {
		case in.cloudUnknown:
			plan.Cloud = types.StringUnknown()
		case in.input.Cloud == "":
			resp.Diagnostics.AddAttributeError(path.Root("cloud"), "Missing cloud",
				"Set cloud on this resource, node pools of one cloud, or default_cloud in the provider \"gpu\" block. "+
					"Allowed clouds: "+tfconv.MarkdownList(clouds.Names())+".")
			return
		default:
			plan.Cloud = types.StringValue(in.input.Cloud)
		}
	}
	if resp.Diagnostics.HasError() || in.findings.HasError() {
		return
	}
	src, known := sourcesOf(plan)
	if in.target == "" || in.unknown || in.cloudUnknown || !known {
		setValuesOutputsUnknown(&plan)
		resp.Diagnostics.Append(resourcekit.SetPlan(ctx, &resp.Plan, &plan)...)
		return
	}
	if len(in.draPools) > 0 {
		k, kdiags := r.Data.Kubernetes(ctx)
		resp.Diagnostics.Append(kdiags...)
		in.setKubernetes(k)
	}
	built, findings := in.build(src)
	resp.Diagnostics.Append(valuesDiagnostics(findings)...)
	if resp.Diagnostics.HasError() || built == nil {
		return
	}
	resp.Diagnostics.Append(setValuesOutputs(&plan, in.target, built)...)
	resp.Diagnostics.Append(resourcekit.SetPlan(ctx, &resp.Plan, &plan)...)
}

func setValuesOutputs(m *operatorValuesModel, target string, b *valuesBuild) diag.Diagnostics {
	var diags diag.Diagnostics
	values, err := tfconv.DynamicFrom(b.values)
	if err != nil {
		diags.AddError("Cannot encode the values", err.Error())
		return diags
	}
	m.ID = types.StringValue(valuesID(target, b.yaml))
	m.ValuesYAML = types.StringValue(b.yaml)
	m.Values = values
	m.PodFragmentsYAML = tfconv.NullableString(b.fragments)
	m.PreviewManifests = types.MapNull(types.StringType)
	if b.manifests != nil {
		m.PreviewManifests = tfconv.NullableMap(b.manifests)
	}
	return diags
}

// setValuesOutputsUnknown is for plans whose inputs are not known yet;
// Terraform plans again at apply, when they are.
func setValuesOutputsUnknown(m *operatorValuesModel) {
	m.ID = types.StringUnknown()
	m.ValuesYAML = types.StringUnknown()
	m.Values = types.DynamicUnknown()
	m.PodFragmentsYAML = types.StringUnknown()
	m.PreviewManifests = types.MapUnknown(types.StringType)
}

// Create stores the plan: the values were computed while planning.
func (r *valuesResource) Create(_ context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	resp.State.Raw = req.Plan.Raw
}

// Read keeps the state: nothing outside Terraform holds these values, so
// there is nothing to refresh or drift from.
func (r *valuesResource) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {
}

// Update stores the new plan, like Create.
func (r *valuesResource) Update(_ context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.State.Raw = req.Plan.Raw
}

// Delete does nothing: the values live only in Terraform's state, and a
// chart installed with them is managed (and uninstalled) by whoever
// installed it, e.g. a helm_release.
func (r *valuesResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {
}
