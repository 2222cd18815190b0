package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// The provider's, each resource's, data source's and function's description
// is a Markdown file embedded beside its schema (tfconv.MarkdownFile): an
// embed of a missing or emptied file, or one whose file-ending newline was
// kept, would change the docs without a compile error.
func TestDescriptionsAreWholeMarkdown(t *testing.T) {
	ctx := context.Background()
	p := &GPUProvider{}
	descriptions := map[string]string{}
	var ps provider.SchemaResponse
	p.Schema(ctx, provider.SchemaRequest{}, &ps)
	descriptions["provider"] = ps.Schema.MarkdownDescription
	for _, newResource := range p.Resources(ctx) {
		r := newResource()
		var resp resource.SchemaResponse
		r.Schema(ctx, resource.SchemaRequest{}, &resp)
		descriptions[resourceTypeName(r)] = resp.Schema.MarkdownDescription
	}
	for _, newDataSource := range p.DataSources(ctx) {
		d := newDataSource()
		var resp datasource.SchemaResponse
		d.Schema(ctx, datasource.SchemaRequest{}, &resp)
		descriptions["data "+dataSourceTypeName(d)] = resp.Schema.MarkdownDescription
	}
	for _, newFunction := range p.Functions(ctx) {
		f := newFunction()
		var meta function.MetadataResponse
		f.Metadata(ctx, function.MetadataRequest{}, &meta)
		var resp function.DefinitionResponse
		f.Definition(ctx, function.DefinitionRequest{}, &resp)
		descriptions["function "+meta.Name] = resp.Definition.MarkdownDescription
	}
	for name, d := range descriptions {
		if strings.TrimSpace(d) != d || d == "" {
			t.Errorf("%s's description is empty or has white space around it: %q", name, d)
		}
	}
}
