package resourcekit

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// UpgradeManifests is the version-0 edit of a raw state.
func UpgradeManifests(_ context.Context, attrs map[string]any) error {
	if stream, ok := attrs["manifest"].(string); ok && attrs["manifests"] == nil {
		attrs["manifests"] = splitManifest(stream)
	}
	delete(attrs, "manifest")
	return nil
}

// ManifestsThenRefsUpgraders are the state upgraders of a resource of
// schema version 2 whose version 0 kept the rendered objects in manifest
// and whose versions 0 and 1 held legacy ids where refs are now (gpu_queue,
// gpu_workload): upgradeRefs is the resource's edit of those ids.
func ManifestsThenRefsUpgraders(upgradeRefs RawStateEdit) map[int64]resource.StateUpgrader {
	return map[int64]resource.StateUpgrader{
		0: RawStateUpgrader(UpgradeManifests, upgradeRefs),
		1: RawStateUpgrader(upgradeRefs),
	}
}

// RawStateEdit changes a stored state's attributes in place, as JSON.
type RawStateEdit func(ctx context.Context, attrs map[string]any) error

// RawStateUpgrader upgrades a state by editing its raw JSON with each edit
// in turn, not by decoding it with an old schema: every attribute the edits
// leave alone passes through exactly as stored.
func RawStateUpgrader(edits ...RawStateEdit) resource.StateUpgrader {
	return resource.StateUpgrader{StateUpgrader: func(ctx context.Context, req resource.UpgradeStateRequest, resp *resource.UpgradeStateResponse) {
		if req.RawState == nil {
			resp.Diagnostics.AddError("Cannot upgrade the state", "the state has no raw value")
			return
		}
		var attrs map[string]any
		if err := json.Unmarshal(req.RawState.JSON, &attrs); err != nil {
			resp.Diagnostics.AddError("Cannot upgrade the state", "the stored state is not a JSON object: "+err.Error())
			return
		}
		for _, edit := range edits {
			if err := edit(ctx, attrs); err != nil {
				resp.Diagnostics.AddError("Cannot upgrade the state", err.Error())
				return
			}
		}
		out, err := json.Marshal(attrs)
		if err != nil {
			resp.Diagnostics.AddError("Cannot upgrade the state", err.Error())
			return
		}
		resp.DynamicValue = &tfprotov6.DynamicValue{JSON: out}
	}}
}

// splitManifest is manifestDocs on a plain string.
func splitManifest(stream string) []string {
	docs := []string{}
	for _, doc := range strings.Split(stream, "---\n") {
		if strings.TrimSpace(doc) != "" {
			docs = append(docs, doc)
		}
	}
	return docs
}
