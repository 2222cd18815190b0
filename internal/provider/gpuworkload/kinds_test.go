package gpuworkload

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds"
)

// TestEveryKindInTheSchema is the provider's registration-driven table:
// every registered kind is a value the kind attribute allows and describes,
// waits by default in a mode the apply knows, and names only attributes
// and blocks the schema has (those it reads, those that reach its
// immutable fields). A kind registered with a misspelt attribute, or one
// the schema lacks, fails here.
func TestEveryKindInTheSchema(t *testing.T) {
	ctx := context.Background()
	resp := &resource.SchemaResponse{}
	(&workloadResource{}).Schema(ctx, resource.SchemaRequest{}, resp)
	s := resp.Schema
	description := s.Attributes["kind"].GetMarkdownDescription()
	for _, k := range kinds.All() {
		t.Run(k.Name, func(t *testing.T) {
			if !strings.Contains(description, "`"+k.Name+"`") || !strings.Contains(description, k.Doc) {
				t.Errorf("the kind attribute's description does not tell %q: %s", k.Name, description)
			}
			mode := waitMode(workloadModel{Kind: types.StringValue(k.Name)})
			if string(mode) != k.Wait.Default || !slices.Contains(kube.WaitModes(), string(mode)) {
				t.Errorf("default wait %q, want the kind's %q, one of %v", mode, k.Wait.Default, kube.WaitModes())
			}
			for _, name := range k.Accepts {
				if !inSchema(ctx, s, path.Root(name)) {
					t.Errorf("the kind reads %q, which the schema does not have", name)
				}
			}
			for _, p := range immutableAttributes(k.Immutable) {
				if !inSchema(ctx, s, p) {
					t.Errorf("attribute %s reaches an immutable field, but the schema does not have it", p)
				}
			}
		})
	}
	if got := objectKinds(); got != "Deployment, StatefulSet, Job or CronJob" {
		t.Errorf("import looks for %s", got)
	}
}

// inSchema: the path is a top-level attribute or block, or an attribute
// inside a block.
func inSchema(ctx context.Context, s schema.Schema, p path.Path) bool {
	if _, ok := s.Blocks[p.String()]; ok {
		return true
	}
	_, diags := s.AttributeAtPath(ctx, p)
	return !diags.HasError()
}
