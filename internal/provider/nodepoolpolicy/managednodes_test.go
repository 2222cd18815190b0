package nodepoolpolicy

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// A managed_nodes list that cannot be read was once read as empty, so an
// update or destroy left the nodes labelled and tainted without a word.
func TestManagedNodesRefusesAnUnreadableList(t *testing.T) {
	ctx := context.Background()
	var diags diag.Diagnostics
	got, ok := managedNodes(ctx, types.ListValueMust(types.StringType, []attr.Value{types.StringValue("node-a"), types.StringValue("node-b")}), &diags)
	if !ok || diags.HasError() || !slices.Equal(got, []string{"node-a", "node-b"}) {
		t.Fatalf("a readable list: %v %v %v", got, ok, diags)
	}
	for _, l := range []types.List{types.ListNull(types.StringType), types.ListUnknown(types.StringType)} {
		if got, ok := managedNodes(ctx, l, &diags); !ok || got != nil || diags.HasError() {
			t.Fatalf("%v: no nodes and no error, got %v %v %v", l, got, ok, diags)
		}
	}

	broken := types.ListValueMust(types.StringType, []attr.Value{types.StringValue("node-a"), types.StringNull()})
	if _, ok := managedNodes(ctx, broken, &diags); ok {
		t.Fatal("a list with a null node name must not be read")
	}
	if len(diags) != 1 {
		t.Fatalf("want one error, got %v", diags)
	}
	d, hasPath := diags[0].(diag.DiagnosticWithPath)
	if !hasPath || !d.Path().Equal(path.Root("managed_nodes")) || !strings.Contains(d.Detail(), "Allowed:") {
		t.Fatalf("want an error on managed_nodes saying what is allowed, got %v", diags)
	}
}
