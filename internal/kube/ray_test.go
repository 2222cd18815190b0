package kube

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// A RayCluster's status for messages says where it is before KubeRay sets
// a state (its workers and conditions), and the state once it has one;
// its state attribute stays the bare state.
func TestDescribeRayStatus(t *testing.T) {
	provisioning := &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{
		"desiredWorkerReplicas": int64(2), "readyWorkerReplicas": int64(1),
		"conditions": []any{
			map[string]any{"type": "HeadPodReady", "status": "True", "reason": "HeadPodRunningAndReady"},
			map[string]any{"type": "RayClusterProvisioned", "status": "False", "reason": "RayClusterPodsProvisioning"},
		},
	}}}
	if got, want := DescribeRayStatus(provisioning, GVKRayCluster.Kind),
		"1 of 2 workers ready, HeadPodReady=True (HeadPodRunningAndReady), RayClusterProvisioned=False (RayClusterPodsProvisioning)"; got != want {
		t.Errorf("provisioning: %q, want %q", got, want)
	}
	if got := RayStatus(provisioning, GVKRayCluster.Kind); got != "" {
		t.Errorf("state attribute of a provisioning cluster %q, want empty", got)
	}
	ready := &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"state": "ready"}}}
	if got := DescribeRayStatus(ready, GVKRayCluster.Kind); got != "state ready" {
		t.Errorf("ready: %q", got)
	}
	if got := DescribeRayStatus(&unstructured.Unstructured{Object: map[string]any{}}, GVKRayCluster.Kind); got != "" {
		t.Errorf("no status: %q, want empty", got)
	}
	job := &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"jobDeploymentStatus": "Suspended"}}}
	if got := DescribeRayStatus(job, GVKRayJob.Kind); got != "Suspended" {
		t.Errorf("RayJob: %q", got)
	}
}
