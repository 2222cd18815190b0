package provider

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// The states of the two earlier releases plan with no change, for an
// applied workload and a render-only one (which no refresh fills in), and
// the next apply stores the current shape: manifests alone, schema version
// 2 (refs). The release before manifests existed kept the objects in manifest
// only; the one after kept both.
func TestAccWorkload_olderStatesPlanEmpty(t *testing.T) {
	for name, old := range map[string]func(map[string]any){
		"manifest only": func(attrs map[string]any) {
			attrs["manifest"] = joinedDocs(attrs["manifests"])
			delete(attrs, "manifests")
		},
		"manifest and manifests": func(attrs map[string]any) {
			attrs["manifest"] = joinedDocs(attrs["manifests"])
		},
	} {
		t.Run(name, func(t *testing.T) {
			tf := appliedAndRendered(t)
			statePath := filepath.Join(tf.Dir, "terraform.tfstate")
			writeVersion0(t, statePath, "gpu_workload", old)
			if changes, out := tf.PlanHasChanges(); changes {
				t.Fatalf("a state of the earlier release plans changes:\n%s", out)
			}
			if out, err := tf.Apply(); err != nil {
				t.Fatalf("second apply: %v\n%s", err, out)
			}
			raw, err := os.ReadFile(statePath)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(raw), `"manifest":`) || !strings.Contains(string(raw), `"schema_version": 2`) {
				t.Errorf("the state written after the upgrade is not the current shape:\n%s", raw)
			}
			for _, r := range tf.State() {
				if docs, _ := r.Values["manifests"].([]any); len(docs) == 0 {
					t.Errorf("%s: manifests empty after the upgrade: %v", r.Address, r.Values["manifests"])
				}
			}
		})
	}
}

// writeVersion0 turns every instance of a resource type in a local state
// file into what the earlier release wrote: schema version 0, attributes
// changed by old.
func writeVersion0(t *testing.T, path, resourceType string, old func(map[string]any)) {
	t.Helper()
	editState(t, path, resourceType, func(instance map[string]any) bool {
		instance["schema_version"] = 0
		attrs, _ := instance["attributes"].(map[string]any)
		old(attrs)
		return true
	})
}

// joinedDocs is a state's manifests list as one YAML stream.
func joinedDocs(list any) string {
	docs, _ := list.([]any)
	parts := make([]string, 0, len(docs))
	for _, d := range docs {
		s, _ := d.(string)
		parts = append(parts, s)
	}
	return strings.Join(parts, "---\n")
}

// appliedAndRendered applies an applied and a render-only workload, the two
// states an upgrade meets.
func appliedAndRendered(t *testing.T) *acctest.Terraform {
	t.Helper()
	ns := acctest.Namespace(t)
	config := acctest.ProviderBlock(t) +
		workloadConfig("applied", "applied", ns, "deployment", landingCase{cloud: "eks", accelerator: "a10g", count: 1}) +
		workloadConfig("rendered", "rendered", ns, "deployment", landingCase{cloud: "gke", accelerator: "l4", count: 1, extra: "apply = false"})
	tf := acctest.NewTerraform(t, testAccProtoV6ProviderFactories["gpu"], config)
	t.Cleanup(func() { _, _ = tf.Destroy() })
	if out, err := tf.Apply(); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	return tf
}

// editState changes every instance of a resource type in a local state
// file; edit reports whether it changed the instance.
func editState(t *testing.T, path, resourceType string, edit func(map[string]any) bool) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var state map[string]any
	if err := json.Unmarshal(raw, &state); err != nil {
		t.Fatal(err)
	}
	changed := 0
	resources, _ := state["resources"].([]any)
	for _, r := range resources {
		res, _ := r.(map[string]any)
		if res["type"] != resourceType {
			continue
		}
		instances, _ := res["instances"].([]any)
		for _, i := range instances {
			instance, _ := i.(map[string]any)
			if edit(instance) {
				changed++
			}
		}
	}
	if changed == 0 {
		t.Fatalf("no %s instance in the state was changed", resourceType)
	}
	serial, _ := state["serial"].(float64)
	state["serial"] = serial + 1
	out, err := json.MarshalIndent(state, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
}
