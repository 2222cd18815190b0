package resourcekit

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Every resource that renders objects keeps them in one attribute,
// manifests: one canonical YAML document per object, so a configuration can
// yamldecode each (yamldecode reads one document) or join them into one file
// with join("---\n", ...). The code compares and parses them as one stream.

// ManifestDocs splits a YAML stream into its documents.
func ManifestDocs(stream types.String) types.List {
	switch {
	case stream.IsUnknown():
		return types.ListUnknown(types.StringType)
	case stream.IsNull():
		return types.ListNull(types.StringType)
	}
	docs := []attr.Value{}
	for _, doc := range strings.Split(stream.ValueString(), "---\n") {
		if strings.TrimSpace(doc) != "" {
			docs = append(docs, types.StringValue(doc))
		}
	}
	return types.ListValueMust(types.StringType, docs)
}

// StateManifest is the state's rendered objects as one YAML stream, read
// from manifests alone: a Get of the whole model reflects over every
// field, a measurable part of a large plan.
func StateManifest(ctx context.Context, state tfsdk.State) (types.String, diag.Diagnostics) {
	var docs types.List
	diags := state.GetAttribute(ctx, path.Root("manifests"), &docs)
	return JoinManifests(docs), diags
}

// JoinManifests is the manifests list as one YAML stream, the inverse of
// manifestDocs.
func JoinManifests(docs types.List) types.String {
	switch {
	case docs.IsUnknown():
		return types.StringUnknown()
	case docs.IsNull():
		return types.StringNull()
	}
	parts := make([]string, 0, len(docs.Elements()))
	for _, e := range docs.Elements() {
		s, ok := e.(types.String)
		if !ok || s.IsUnknown() {
			return types.StringUnknown()
		}
		parts = append(parts, s.ValueString())
	}
	return types.StringValue(strings.Join(parts, "---\n"))
}
