package operatorvalues

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
)

// described is what attributes and blocks share for this check.
type described interface{ GetMarkdownDescription() string }

// Every attribute and block of gpu_operator_values is documented, and the
// schema is one the framework accepts.
func TestOperatorValuesSchemaIsDocumented(t *testing.T) {
	var resp resource.SchemaResponse
	NewResource().Schema(context.Background(), resource.SchemaRequest{}, &resp)
	if diags := resp.Schema.ValidateImplementation(context.Background()); diags.HasError() {
		t.Fatalf("invalid schema: %v", diags)
	}
	check := func(path string, d described) {
		if strings.TrimSpace(d.GetMarkdownDescription()) == "" {
			t.Errorf("%s has no MarkdownDescription", path)
		}
	}
	var walk func(prefix string, blocks map[string]schema.Block)
	walk = func(prefix string, blocks map[string]schema.Block) {
		for name, b := range blocks {
			check(prefix+name, b)
			object := b.GetNestedObject()
			for attr, a := range object.GetAttributes() {
				check(prefix+name+"."+attr, a)
			}
			nested := map[string]schema.Block{}
			for n, nb := range object.GetBlocks() {
				if sb, ok := nb.(schema.Block); ok {
					nested[n] = sb
				}
			}
			walk(prefix+name+".", nested)
		}
	}
	for name, a := range resp.Schema.Attributes {
		check(name, a)
	}
	walk("", resp.Schema.Blocks)
}

// isBlockPath tells blocks (where diagnostics get a step into the block)
// from attributes.
func TestOperatorValuesBlockPaths(t *testing.T) {
	blocks := operatorValuesBlocks()
	for _, c := range []struct {
		path  []any
		block bool
	}{
		{[]any{"fiftyone"}, true},
		{[]any{"fiftyone", "deployment", 2}, true},
		{[]any{"fiftyone", "deployment", 2, "gpu"}, true},
		{[]any{"fiftyone", "job_template", 0, "gpu", "dra"}, true},
		{[]any{"gpu_operator", "mig_layout", 1}, true},
		{[]any{"flyte", "default_tolerations", 0}, true},
		{[]any{"fiftyone", "deployment", 2, "gpu", "count"}, false},
		{[]any{"flyte", "node_pools", 1}, false},
		{[]any{"flyte", "default_tolerations", 0, "key"}, false},
		{[]any{"cloud"}, false},
		{nil, false},
	} {
		if got := isBlockPath(blocks, c.path); got != c.block {
			t.Errorf("isBlockPath(%v) = %v, want %v", c.path, got, c.block)
		}
	}
}
