package kube

import (
	"fmt"

	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"

	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds"
)

// judge says whether a workload is ready in the given mode, or why it
// failed. Rollouts are kstatus's judgment (sigs.k8s.io/cli-utils, the one
// kubectl's and Flux's waits use): Current is rolled out, Failed (a
// Deployment past its progress deadline) ends the wait.
func judge(live *unstructured.Unstructured, gvk schema.GroupVersionKind, mode WaitMode) (bool, string) {
	if live.GetKind() == "" {
		// kstatus picks its rules by kind, which a cached list item may
		// lack; the cache's objects are shared, so set it on a copy.
		live = live.DeepCopy()
		live.SetGroupVersionKind(gvk)
	}
	if gvk.Group == rayv1.GroupVersion.Group {
		return judgeRay(live, gvk.Kind, mode)
	}
	result, err := status.Compute(live)
	if err != nil {
		return false, ""
	}
	if mode == WaitComplete || runsToCompletion(gvk) {
		return jobDone(live, result)
	}
	switch result.Status {
	case status.CurrentStatus:
		return true, ""
	case status.FailedStatus:
		return false, failureOf(result)
	}
	return false, ""
}

// runsToCompletion: the kind's object is done when it completes, whatever
// the wait mode (a Job).
func runsToCompletion(gvk schema.GroupVersionKind) bool {
	k, ok := kinds.ForGroupKind(gvk.GroupKind())
	return ok && k.Wait.Completes
}

// jobDone adapts kstatus to wait_for = "complete": kstatus calls a Job
// Current as soon as it started (its "ready" is "running"), while the
// provider waits for the Complete condition. A suspended Job (Kueue holds
// it until admission) is InProgress for both. kstatus's Failed is kept, but
// reported with the Job's own Failed condition ("BackoffLimitExceeded: Job
// has reached the specified backoff limit"), which kstatus reduces to
// counts.
func jobDone(job *unstructured.Unstructured, result *status.Result) (bool, string) {
	if result.Status == status.FailedStatus {
		if cond := condition(job, "Failed"); cond != nil {
			return false, fmt.Sprintf("%v: %v", cond["reason"], cond["message"])
		}
		return false, failureOf(result)
	}
	cond := condition(job, "Complete")
	return cond != nil && cond["status"] == "True", ""
}

// failureOf words a Failed result: kstatus's message, and the controller's
// own when it gave one (a Deployment's ProgressDeadlineExceeded message
// names the ReplicaSet that timed out).
func failureOf(result *status.Result) string {
	for _, cond := range result.Conditions {
		if cond.Type == status.ConditionStalled && cond.Message != "" {
			return fmt.Sprintf("%s: %s", result.Message, cond.Message)
		}
	}
	return result.Message
}

func condition(obj *unstructured.Unstructured, condType string) map[string]any {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, raw := range conds {
		cond, ok := raw.(map[string]any)
		if ok && cond["type"] == condType {
			return cond
		}
	}
	return nil
}
