package protocol

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// appendPlan is a string plan modifier that records the request it got and
// plans the value it was given with its suffix appended (or fails).
type appendPlan struct {
	suffix string
	fail   bool
	seen   *[]planmodifier.StringRequest
}

func (appendPlan) Description(context.Context) string         { return "appends to the plan" }
func (appendPlan) MarkdownDescription(context.Context) string { return "appends to the plan" }

func (m appendPlan) PlanModifyString(_ context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	*m.seen = append(*m.seen, req)
	if m.fail {
		resp.Diagnostics.AddError("refused", "by the test")
		return
	}
	resp.PlanValue = types.StringValue(req.PlanValue.ValueString() + m.suffix)
	resp.RequiresReplace = m.suffix == "+replace"
}

// The generic request conversion: each modifier gets the attribute's path,
// the configuration and state values, and the plan value the one before it
// planned (as the framework chains them); the first that fails ends them.
func TestRunModifiers_chainsPlanValuesAsTheFramework(t *testing.T) {
	ctx := context.Background()
	in := modifierInput{
		configValue: tftypes.NewValue(tftypes.String, "config"),
		planValue:   tftypes.NewValue(tftypes.String, "plan"),
		stateValue:  tftypes.NewValue(tftypes.String, "state"),
	}
	var seen []planmodifier.StringRequest
	out := modifyString(ctx, "x", []planmodifier.String{
		appendPlan{suffix: "+a", seen: &seen}, appendPlan{suffix: "+replace", seen: &seen},
	}, in)
	if out.diags.HasError() {
		t.Fatalf("unexpected diagnostics: %v", out.diags)
	}
	if want := tftypes.NewValue(tftypes.String, "plan+a+replace"); !out.planValue.Equal(want) {
		t.Errorf("planned %v, want %v", out.planValue, want)
	}
	if !out.requiresReplace {
		t.Error("the second modifier's RequiresReplace was lost")
	}
	if len(seen) != 2 {
		t.Fatalf("%d modifiers ran, want 2", len(seen))
	}
	for i, wantPlan := range []string{"plan", "plan+a"} {
		req := seen[i]
		if !req.Path.Equal(path.Root("x")) || req.ConfigValue.ValueString() != "config" || req.StateValue.ValueString() != "state" ||
			req.PlanValue.ValueString() != wantPlan {
			t.Errorf("modifier %d got path %s, config %s, state %s, plan %s; want x, config, state, %s",
				i, req.Path, req.ConfigValue, req.StateValue, req.PlanValue, wantPlan)
		}
	}

	seen = nil
	out = modifyString(ctx, "x", []planmodifier.String{
		appendPlan{fail: true, seen: &seen}, appendPlan{suffix: "+never", seen: &seen},
	}, in)
	if !out.diags.HasError() || len(seen) != 1 {
		t.Errorf("after a failing modifier: diagnostics %v, %d modifiers ran; want an error and 1", out.diags, len(seen))
	}
}
