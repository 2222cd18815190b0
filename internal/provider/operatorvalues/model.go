package operatorvalues

import (
	"context"
	"reflect"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/refs"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values"
)

// operatorValuesModel is gpu_operator_values' Terraform data: the
// attributes every target shares, and the chart blocks in Intent for their
// chartBlocks entries to decode.
type operatorValuesModel struct {
	Intent           tfconv.Attributes
	ID               types.String  `tfsdk:"id"`
	Target           types.String  `tfsdk:"target"`
	Cloud            types.String  `tfsdk:"cloud"`
	BaseValuesYAML   types.List    `tfsdk:"base_values_yaml"`
	ChartPath        types.String  `tfsdk:"chart_path"`
	RenderPreview    types.Bool    `tfsdk:"render_preview"`
	ValuesYAML       types.String  `tfsdk:"values_yaml"`
	Values           types.Dynamic `tfsdk:"values"`
	PodFragmentsYAML types.String  `tfsdk:"pod_fragments_yaml"`
	PreviewManifests types.Map     `tfsdk:"preview_manifests"`
}

// block is the chart block named name (null when the schema has none).
func (m operatorValuesModel) block(name string) types.Object {
	if b, ok := m.Intent[name].(types.Object); ok {
		return b
	}
	return types.ObjectNull(nil)
}

// valuesConverter builds values.Input from the model. Pool ids that
// do not decode become error findings on the attribute that holds them, so
// they are reported with render's own diagnostics.
type valuesConverter struct {
	*tfconv.Converter
	findings gpudiag.Diagnostics
	// poolClouds are the clouds of the pools decoded so far, so an unset
	// cloud can follow the pools as gpu_workload's does.
	poolClouds []string
	// poolUnknown: some pool ref is not known yet, so neither is the cloud
	// an unset cloud attribute would follow.
	poolUnknown bool
	// draPools point at the decoded DRA pools inside the input, so the
	// plan can set the Kubernetes version they are judged by (setKubernetes).
	draPools []*spec.PoolPolicy
}

// valuesInputFromModel converts the chart blocks; Cloud is left to the caller,
// which decides between configuration, pools and default_cloud.
func (c *valuesConverter) valuesInputFromModel(m operatorValuesModel) values.Input {
	in := values.Input{Blocks: map[string]any{}}
	for _, b := range chartBlocks {
		if v, ok := b.input(c, m.block(b.name)); ok {
			in.Blocks[b.name] = v
		}
	}
	return in
}

// newValuesConverter is a converter whose pool ids decode into their
// policies (pool, pools) wherever a chart's render input has a pool field.
func newValuesConverter(ctx context.Context) *valuesConverter {
	c := &valuesConverter{Converter: &tfconv.Converter{Ctx: ctx}}
	poolType, poolHook := tfconv.HookFor(func(_ []any, v attr.Value) *spec.PoolPolicy {
		o, _ := v.(types.Object)
		return c.pool(o)
	})
	poolsType, poolsHook := tfconv.HookFor(func(_ []any, v attr.Value) []spec.PoolPolicy {
		l, _ := v.(types.List)
		return c.pools(l)
	})
	c.Hooks = map[reflect.Type]tfconv.DecodeHook{poolType: poolHook, poolsType: poolsHook}
	return c
}

// pool decodes one gpu_node_pool_policy ref. An unknown ref gives an
// empty policy (zero values are "unknown" to render), so rules that depend
// on a pool being present still see one.
func (c *valuesConverter) pool(v types.Object) *spec.PoolPolicy {
	if refs.PoolCloudUnknown(v) {
		c.Unknown, c.poolUnknown = true, true
		return &spec.PoolPolicy{}
	}
	p := c.poolFromObject(v)
	if p != nil && p.UsesDRA() {
		c.draPools = append(c.draPools, p)
	}
	return p
}

func (c *valuesConverter) poolFromObject(v types.Object) *spec.PoolPolicy {
	p := refs.Pool(c.Converter, v)
	if p == nil {
		return nil
	}
	c.poolClouds = append(c.poolClouds, p.Cloud)
	return p
}

// pools decodes a list of refs, keeping positions so diagnostics name the
// right element: unknown entries become empty policies.
func (c *valuesConverter) pools(v types.List) []spec.PoolPolicy {
	if v.IsUnknown() {
		c.Unknown, c.poolUnknown = true, true
		return nil
	}
	if v.IsNull() {
		return nil
	}
	out := make([]spec.PoolPolicy, 0, len(v.Elements()))
	for _, e := range v.Elements() {
		o, ok := e.(types.Object)
		if !ok {
			continue
		}
		if refs.PoolCloudUnknown(o) {
			c.Unknown, c.poolUnknown = true, true
			out = append(out, spec.PoolPolicy{})
		} else if p := c.poolFromObject(o); p != nil {
			out = append(out, *p)
		} else {
			out = append(out, spec.PoolPolicy{})
		}
	}
	for i := range out {
		if out[i].UsesDRA() {
			c.draPools = append(c.draPools, &out[i])
		}
	}
	return out
}
