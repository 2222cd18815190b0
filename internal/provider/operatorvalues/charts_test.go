package operatorvalues

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/resourcekit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values"
)

// TestChartBlocksServeEveryTarget: the provider offers exactly the targets
// render registers (a chart package linked without an entry in chartBlocks
// fails here); every target reads a block that has an entry, and that
// entry's conversion gives the input type the chart reads (render names a
// block it cannot find "Missing block"); every entry serves some target.
func TestChartBlocksServeEveryTarget(t *testing.T) {
	ctx := context.Background()
	if got, want := slices.Sorted(slices.Values(targetNames())), values.TargetNames(); !slices.Equal(got, want) {
		t.Errorf("the provider offers targets %q, render registers %q", got, want)
	}
	served := map[string]bool{}
	for _, target := range values.TargetNames() {
		block := missingBlock(t, target, values.Input{Cloud: "gke"})
		i := slices.IndexFunc(chartBlocks, func(b chartBlock) bool { return b.name == block })
		if i < 0 {
			t.Errorf("target %s reads block %q, which has no chartBlocks entry", target, block)
			continue
		}
		served[block] = true
		c := newValuesConverter(ctx)
		in, ok := chartBlocks[i].input(c, emptyBlock(t, chartBlocks[i]))
		if !ok || c.Diags.HasError() {
			t.Fatalf("%s: an empty block does not convert: %v", block, c.Diags)
		}
		if got := missingBlock(t, target, values.Input{Cloud: "gke", Blocks: map[string]any{block: in}}); got != "" {
			t.Errorf("target %s: render does not read the %s entry's %T as its block", target, block, in)
		}
	}
	for _, b := range chartBlocks {
		if !served[b.name] {
			t.Errorf("chartBlocks entry %q serves no target", b.name)
		}
	}
}

// missingBlock is the block render reports missing for target, "" when none.
func missingBlock(t *testing.T, target string, in values.Input) string {
	t.Helper()
	_, diags := values.Generate(target, in)
	for _, d := range diags {
		if d.Severity == gpudiag.SeverityError && d.Summary == "Missing block" && len(d.Path) == 1 {
			name, _ := d.Path[0].(string)
			return name
		}
	}
	return ""
}

// emptyBlock is b's block present with every attribute null.
func emptyBlock(t *testing.T, b chartBlock) types.Object {
	t.Helper()
	ctx := context.Background()
	objectType, ok := b.schema().Type().(types.ObjectType)
	if !ok {
		t.Fatalf("%s: block type %T", b.name, b.schema().Type())
	}
	nulls := map[string]attr.Value{}
	for name, at := range objectType.AttrTypes {
		v, err := at.ValueFromTerraform(ctx, tftypes.NewValue(at.TerraformType(ctx), nil))
		if err != nil {
			t.Fatal(err)
		}
		nulls[name] = v
	}
	obj, diags := types.ObjectValue(objectType.AttrTypes, nulls)
	if diags.HasError() {
		t.Fatal(diags)
	}
	return obj
}

// The model's Intent holds the chart blocks and nothing else: an attribute
// every target shares needs a model field, or it would be read by no one.
func TestModelIntentIsTheChartBlocks(t *testing.T) {
	ctx := context.Background()
	var resp resource.SchemaResponse
	(&valuesResource{}).Schema(ctx, resource.SchemaRequest{}, &resp)
	intent, diags := resourcekit.CodecOf[operatorValuesModel]().AttributesTypes(ctx, resp.Schema, operatorValuesModel{})
	if diags.HasError() {
		t.Fatal(diags)
	}
	var blocks []string
	for _, b := range chartBlocks {
		blocks = append(blocks, b.name)
	}
	if got := slices.Sorted(maps.Keys(intent)); !slices.Equal(got, slices.Sorted(slices.Values(blocks))) {
		t.Fatalf("Intent holds %v, the chart blocks are %v", got, blocks)
	}
}
