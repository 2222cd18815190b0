package kube

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gpuform/terraform-provider-gpu/internal/render/capacity"
)

var (
	statefulSetGVK = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "StatefulSet"}
	jobGVK         = schema.GroupVersionKind{Group: "batch", Version: "v1", Kind: "Job"}
)

// workloadIn is an object of generation 1 with the given spec and status,
// without kind: the judgment must not depend on a cached item carrying one.
func workloadIn(spec, status map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"namespace": "ns", "name": "w", "generation": int64(1)},
		"spec":     spec, "status": status,
	}}
}

func TestJudge_deployment(t *testing.T) {
	oneReplica := map[string]any{"replicas": int64(1), "progressDeadlineSeconds": int64(600)}
	cases := []struct {
		name       string
		status     map[string]any
		done       bool
		failureHas string
	}{
		{"rolled out", deploymentStatus(1, "NewReplicaSetAvailable"), true, ""},
		{"pod not ready yet", deploymentStatus(0, "ReplicaSetUpdated"), false, ""},
		{"generation not observed", map[string]any{"observedGeneration": int64(0)}, false, ""},
		{"past its progress deadline", deploymentStatus(0, "ProgressDeadlineExceeded"), false, `ReplicaSet "w-1" has timed out progressing.`},
	}
	for _, tc := range cases {
		done, failure := judge(workloadIn(oneReplica, tc.status), deploymentGVK, WaitRollout)
		if done != tc.done || (tc.failureHas == "") != (failure == "") || !strings.Contains(failure, tc.failureHas) {
			t.Errorf("%s: got %v, %q; want %v and a failure naming %q", tc.name, done, failure, tc.done, tc.failureHas)
		}
	}
}

// Every replica ready and running the revision just applied.
func TestJudge_statefulSet(t *testing.T) {
	spec := map[string]any{"replicas": int64(2)}
	status := func(ready int64, current string) map[string]any {
		return map[string]any{"observedGeneration": int64(1), "replicas": int64(2), "readyReplicas": ready,
			"currentReplicas": int64(2), "updatedReplicas": int64(2), "currentRevision": current, "updateRevision": "w-2"}
	}
	if done, _ := judge(workloadIn(spec, status(2, "w-2")), statefulSetGVK, WaitRollout); !done {
		t.Error("a StatefulSet with every replica ready on the update revision is rolled out")
	}
	if done, _ := judge(workloadIn(spec, status(1, "w-2")), statefulSetGVK, WaitRollout); done {
		t.Error("a StatefulSet with a replica not ready is not rolled out")
	}
	if done, _ := judge(workloadIn(spec, status(2, "w-1")), statefulSetGVK, WaitRollout); done {
		t.Error("a StatefulSet still running the previous revision is not rolled out")
	}
}

// A Job is done when Complete, not when kstatus calls it Current (running);
// a suspended one (held by Kueue) is not done; a failed one says why in the
// controller's words.
func TestJudge_job(t *testing.T) {
	cond := func(condType, reason, message string) map[string]any {
		return map[string]any{"type": condType, "status": "True", "reason": reason, "message": message}
	}
	cases := []struct {
		name    string
		spec    map[string]any
		status  map[string]any
		done    bool
		failure string
	}{
		{"running", map[string]any{}, map[string]any{"startTime": "2026-01-01T00:00:00Z", "active": int64(1)}, false, ""},
		{"suspended by Kueue", map[string]any{"suspend": true}, map[string]any{"conditions": []any{cond("Suspended", "JobSuspended", "")}}, false, ""},
		{"complete", map[string]any{}, map[string]any{"startTime": "2026-01-01T00:00:00Z", "succeeded": int64(1),
			"conditions": []any{cond("Complete", "", "")}}, true, ""},
		{"failed", map[string]any{}, map[string]any{"startTime": "2026-01-01T00:00:00Z", "failed": int64(2),
			"conditions": []any{cond("Failed", "BackoffLimitExceeded", "Job has reached the specified backoff limit")}},
			false, "BackoffLimitExceeded: Job has reached the specified backoff limit"},
	}
	for _, tc := range cases {
		for _, mode := range []WaitMode{WaitComplete, WaitRollout} {
			done, failure := judge(workloadIn(tc.spec, tc.status), jobGVK, mode)
			if done != tc.done || failure != tc.failure {
				t.Errorf("%s (%s): got %v, %q; want %v, %q", tc.name, mode, done, failure, tc.done, tc.failure)
			}
		}
	}
}

// kube compares taints without importing render; its identity must stay
// the one render/capacity judges pools with.
func TestHasTaint_isCapacitysIdentity(t *testing.T) {
	taints := []corev1.Taint{
		{Key: "nvidia.com/gpu", Value: "present", Effect: corev1.TaintEffectNoSchedule},
		{Key: "nvidia.com/gpu", Effect: corev1.TaintEffectNoSchedule},
		{Key: "nvidia.com/gpu", Value: "present", Effect: corev1.TaintEffectNoExecute},
		{Key: "gpuform.io/pool", Value: "present", Effect: corev1.TaintEffectNoSchedule},
	}
	for _, list := range [][]corev1.Taint{taints[:1], taints[1:3], taints} {
		for _, t0 := range taints {
			if got, want := hasTaint(list, t0), capacity.HasTaint(list, t0); got != want {
				t.Errorf("hasTaint(%v, %v) = %v, capacity.HasTaint says %v", list, t0, got, want)
			}
		}
	}
}
