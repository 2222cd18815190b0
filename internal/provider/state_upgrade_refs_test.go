package provider

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// The state fixture testdata/state-upgrade/before-refs.json is what the
// provider at 2fb58d4 (before refs) stored for before-refs.tf, applied with
// that binary: pools and a queue whose ids carried their settings, render-
// only workloads whose node_pool and queue held those ids (and a queue
// managed elsewhere by name, and no pool), and operator values with
// node_pool and node_pools. With the configuration changed as the CHANGELOG
// says (.id becomes .ref), the upgraded states plan no change except the
// one the CHANGELOG names: the ClusterQueue's spec annotation, which now
// holds the pool's settings instead of its id. The next apply stores every
// resource at its current schema version, with names for ids.
func TestAccStateUpgrade_legacyIDsBecomeRefs(t *testing.T) {
	clearClusterEnv(t)
	old, err := os.ReadFile(filepath.Join("testdata", "state-upgrade", "before-refs.tf"))
	if err != nil {
		t.Fatal(err)
	}
	config := `provider "gpu" {}` + "\n" + regexp.MustCompile(`(gpu_(?:node_pool_policy|queue)\.[a-z0-9_]+)\.id\b`).
		ReplaceAllString(string(old), "$1.ref")
	tf := acctest.NewTerraform(t, testAccProtoV6ProviderFactories["gpu"], config)
	if out, err := tf.Apply(); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	statePath := filepath.Join(tf.Dir, "terraform.tfstate")
	replaceWithFixture(t, statePath)

	// Besides the queue's annotation, the EKS p5 pool's GPU network (issue
	// #42, added after 2fb58d4) plans what it adds: the pool's EFA
	// interfaces and placement group, MOFED off in the operator's device
	// plugin, and EFA and huge pages in the queue's quota.
	changes, out := tf.PlanHasChanges()
	if !changes || !strings.Contains(out, "Plan: 0 to add, 3 to change, 0 to destroy.") ||
		!strings.Contains(out, "gpu_queue.team will be updated in-place") ||
		!strings.Contains(out, "gpu_node_pool_policy.h100 will be updated in-place") ||
		!strings.Contains(out, "gpu_operator_values.operator will be updated in-place") {
		t.Fatalf("the upgraded states must plan only the queue's annotation and the p5 pool's GPU network:\n%s", out)
	}
	if out, err := tf.Apply(); err != nil {
		t.Fatalf("apply after the upgrade: %v\n%s", err, out)
	}
	if changes, out := tf.PlanHasChanges(); changes {
		t.Fatalf("a plan after the upgrade's apply has changes:\n%s", out)
	}
	checkUpgradedIDs(t, statePath)
}

// replaceWithFixture puts each instance of the fixture in place of the
// state's: its schema version and attributes as 2fb58d4 stored them.
func replaceWithFixture(t *testing.T, statePath string) {
	t.Helper()
	var fixture map[string]map[string]any
	readJSON(t, filepath.Join("testdata", "state-upgrade", "before-refs.json"), &fixture)
	var state map[string]any
	readJSON(t, statePath, &state)
	replaced := 0
	forEachInstance(state, func(address string, instance map[string]any) {
		if old, ok := fixture[address]; ok {
			instance["schema_version"], instance["attributes"] = old["schema_version"], old["attributes"]
			replaced++
		}
	})
	if replaced != len(fixture) {
		t.Fatalf("replaced %d of the fixture's %d instances", replaced, len(fixture))
	}
	serial, _ := state["serial"].(float64)
	state["serial"] = serial + 1
	writeJSON(t, statePath, state)
}

// forEachInstance calls visit with each resource instance of a local
// state and its address (type.name).
func forEachInstance(state map[string]any, visit func(address string, instance map[string]any)) {
	resources, _ := state["resources"].([]any)
	for _, r := range resources {
		res, _ := r.(map[string]any)
		typ, _ := res["type"].(string)
		name, _ := res["name"].(string)
		instances, _ := res["instances"].([]any)
		for _, i := range instances {
			if instance, ok := i.(map[string]any); ok {
				visit(typ+"."+name, instance)
			}
		}
	}
}

// checkUpgradedIDs: every resource is at its current schema version, and
// the pools' and queue's ids are their names.
func checkUpgradedIDs(t *testing.T, statePath string) {
	t.Helper()
	wantVersion := map[string]float64{"gpu_node_pool_policy": 1, "gpu_queue": 2, "gpu_workload": 2, "gpu_operator_values": 1}
	wantID := map[string]string{"gpu_node_pool_policy.a100": "a100", "gpu_node_pool_policy.h100": "h100-tas",
		"gpu_node_pool_policy.dra": "dra-h100", "gpu_queue.team": "team-a"}
	var state map[string]any
	readJSON(t, statePath, &state)
	forEachInstance(state, func(address string, instance map[string]any) {
		typ, _, _ := strings.Cut(address, ".")
		if v := instance["schema_version"]; v != wantVersion[typ] {
			t.Errorf("%s: schema version %v, want %v", address, v, wantVersion[typ])
		}
		attrs, _ := instance["attributes"].(map[string]any)
		if want, ok := wantID[address]; ok && attrs["id"] != want {
			t.Errorf("%s: id %v, want %q", address, attrs["id"], want)
		}
	})
}

func readJSON(t *testing.T, path string, into any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, into); err != nil {
		t.Fatal(err)
	}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
}
