package provider

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// A state written before manifests existed (the attribute absent) plans
// with no change, for an applied workload and a render-only one: the
// refresh fills manifests in, so upgrading the provider updates nothing,
// and the next apply stores them.
func TestAccWorkload_stateWithoutManifestsPlansEmpty(t *testing.T) {
	ns := acctest.Namespace(t)
	config := acctest.ProviderBlock(t) +
		workloadConfig("applied", "applied", ns, "deployment", landingCase{cloud: "eks", accelerator: "a10g", count: 1}) +
		workloadConfig("rendered", "rendered", ns, "deployment", landingCase{cloud: "gke", accelerator: "l4", count: 1, extra: "apply = false"})
	tf := acctest.NewTerraform(t, testAccProtoV6ProviderFactories["gpu"], config)
	t.Cleanup(func() { _, _ = tf.Destroy() })
	if out, err := tf.Apply(); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
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

// dropAttribute removes one attribute from every instance of a resource
// type in a local state file, as a state written by an older release.
func dropAttribute(t *testing.T, path, resourceType, attribute string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var state map[string]any
	if err := json.Unmarshal(raw, &state); err != nil {
		t.Fatal(err)
	}
	dropped := 0
	resources, _ := state["resources"].([]any)
	for _, r := range resources {
		res, _ := r.(map[string]any)
		if res["type"] != resourceType {
			continue
		}
		instances, _ := res["instances"].([]any)
		for _, i := range instances {
			attrs, _ := i.(map[string]any)["attributes"].(map[string]any)
			if _, ok := attrs[attribute]; ok {
				delete(attrs, attribute)
				dropped++
			}
		}
	}
	if dropped == 0 {
		t.Fatalf("no %s.%s in the state", resourceType, attribute)
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
