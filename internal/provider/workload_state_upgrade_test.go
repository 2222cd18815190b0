package provider

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// A state written before manifests existed (the attribute absent) plans
// with no change, for an applied workload and a render-only one: the
// refresh fills manifests in, so upgrading the provider updates nothing,
// and the next apply stores them.
func TestAccWorkload_stateWithoutManifestsPlansEmpty(t *testing.T) {
	tf := appliedAndRendered(t)
	dropAttribute(t, filepath.Join(tf.Dir, "terraform.tfstate"), "gpu_workload", "manifests")
	if changes, out := tf.PlanHasChanges(); changes {
		t.Fatalf("a state without manifests plans changes:\n%s", out)
	}
	// An apply with nothing to change stores the refreshed state.
	if out, err := tf.Apply(); err != nil {
		t.Fatalf("second apply: %v\n%s", err, out)
	}
	for _, r := range tf.State() {
		if docs, _ := r.Values["manifests"].([]any); len(docs) == 0 {
			t.Errorf("%s: manifests not filled in by the refresh: %v", r.Address, r.Values["manifests"])
		}
	}
}

// A state written while gpu_workload kept its objects twice (manifest, one
// YAML stream, next to manifests) plans with no change: the attribute is
// read away with the schema that no longer has it, and the next apply
// stores the state without it.
func TestAccWorkload_stateWithManifestPlansEmpty(t *testing.T) {
	tf := appliedAndRendered(t)
	for _, r := range tf.State() {
		if _, kept := r.Values["manifest"]; kept {
			t.Fatalf("%s: the state still has manifest", r.Address)
		}
	}
	addOldManifest(t, filepath.Join(tf.Dir, "terraform.tfstate"), "gpu_workload")
	if changes, out := tf.PlanHasChanges(); changes {
		t.Fatalf("a state with the old manifest attribute plans changes:\n%s", out)
	}
	if out, err := tf.Apply(); err != nil {
		t.Fatalf("second apply: %v\n%s", err, out)
	}
	raw, err := os.ReadFile(filepath.Join(tf.Dir, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), `"manifest":`) {
		t.Error("the state written after the upgrade still holds manifest")
	}
}

// addOldManifest writes, next to every instance's manifests, the manifest
// attribute an older release kept: the documents joined into one stream.
func addOldManifest(t *testing.T, path, resourceType string) {
	t.Helper()
	editState(t, path, resourceType, func(attrs map[string]any) bool {
		docs, _ := attrs["manifests"].([]any)
		parts := make([]string, 0, len(docs))
		for _, d := range docs {
			s, _ := d.(string)
			parts = append(parts, s)
		}
		attrs["manifest"] = strings.Join(parts, "---\n")
		return true
	})
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

// dropAttribute removes one attribute from every instance of a resource
// type in a local state file, as a state written by an older release.
func dropAttribute(t *testing.T, path, resourceType, attribute string) {
	t.Helper()
	editState(t, path, resourceType, func(attrs map[string]any) bool {
		_, ok := attrs[attribute]
		delete(attrs, attribute)
		return ok
	})
}

// editState changes the attributes of every instance of a resource type in
// a local state file; edit reports whether it changed any.
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
			attrs, _ := i.(map[string]any)["attributes"].(map[string]any)
			if edit(attrs) {
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
