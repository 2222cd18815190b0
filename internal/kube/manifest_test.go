package kube

import "testing"

func TestProject_keepsManagedFieldsOnly(t *testing.T) {
	desired := map[string]any{"spec": map[string]any{
		"replicas":   int64(1),
		"containers": []any{map[string]any{"name": "main", "image": "a"}},
	}}
	live := map[string]any{"status": "x", "spec": map[string]any{
		"replicas":         int64(3),
		"progressDeadline": int64(600),
		"containers":       []any{map[string]any{"name": "main", "image": "a", "imagePullPolicy": "Always"}},
	}}
	got := Project(live, desired)
	spec, _ := got["spec"].(map[string]any)
	if _, ok := got["status"]; ok {
		t.Error("status must be dropped")
	}
	if spec["replicas"] != int64(3) {
		t.Errorf("drifted replicas must show, got %v", spec["replicas"])
	}
	if _, ok := spec["progressDeadline"]; ok {
		t.Error("server defaults must be dropped")
	}
	containers, _ := spec["containers"].([]any)
	if len(containers) != 1 {
		t.Fatalf("want one container, got %v", spec["containers"])
	}
	c, _ := containers[0].(map[string]any)
	if _, ok := c["imagePullPolicy"]; ok || c["image"] != "a" {
		t.Errorf("container should be projected to managed fields, got %v", c)
	}
}
