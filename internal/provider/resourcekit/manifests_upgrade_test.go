package resourcekit

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// A version-0 state of gpu_workload or gpu_queue becomes the current shape:
// manifests from manifest where it is missing, manifest gone, every other
// attribute as stored.
func TestUpgradeManifests(t *testing.T) {
	for name, c := range map[string]struct{ in, want map[string]any }{
		"queue, manifest only": {
			in:   map[string]any{"name": "team-a", "manifest": "kind: A\n---\nkind: B\n"},
			want: map[string]any{"name": "team-a", "manifests": []any{"kind: A\n", "kind: B\n"}},
		},
		"workload, both": {
			in:   map[string]any{"name": "w", "manifest": "kind: A\n", "manifests": []any{"kind: A\n"}},
			want: map[string]any{"name": "w", "manifests": []any{"kind: A\n"}},
		},
		"render-only unknown never stored, null kept": {
			in:   map[string]any{"name": "w", "manifest": nil},
			want: map[string]any{"name": "w"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			raw, _ := json.Marshal(c.in)
			var resp resource.UpgradeStateResponse
			RawStateUpgrader(UpgradeManifests).StateUpgrader(context.Background(), resource.UpgradeStateRequest{RawState: &tfprotov6.RawState{JSON: raw}}, &resp)
			if resp.Diagnostics.HasError() || resp.DynamicValue == nil {
				t.Fatalf("upgrade failed: %v", resp.Diagnostics)
			}
			var got map[string]any
			if err := json.Unmarshal(resp.DynamicValue.JSON, &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
	var resp resource.UpgradeStateResponse
	RawStateUpgrader(UpgradeManifests).StateUpgrader(context.Background(), resource.UpgradeStateRequest{RawState: &tfprotov6.RawState{JSON: []byte("[1]")}}, &resp)
	if !resp.Diagnostics.HasError() {
		t.Error("a state that is not an object upgrades without an error")
	}
}
