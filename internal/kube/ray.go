package kube

import (
	"context"
	"fmt"
	"strings"

	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The KubeRay kinds gpu_ray_cluster applies (docs/design/ray.md), at the
// ray.io/v1 API KubeRay v1.5 serves.
var (
	GVKRayCluster = rayv1.GroupVersion.WithKind("RayCluster")
	GVKRayJob     = rayv1.GroupVersion.WithKind("RayJob")
	GVKRayService = rayv1.GroupVersion.WithKind("RayService")
)

// rayResources are the Ray kinds' REST resources, added to the table
// Apply, Get and Delete use.
var rayResources = map[schema.GroupVersionKind]string{
	GVKRayCluster: "rayclusters",
	GVKRayJob:     "rayjobs",
	GVKRayService: "rayservices",
}

func init() {
	for gvk, name := range rayResources {
		resources[gvk] = name
		cachedKinds[gvk.Kind] = true // labelled managed-by like every workload the provider renders
	}
}

// RayCRDMissing reports whether the cluster lacks KubeRay's CRD of the
// kind (the operator is not installed): an apply then stops with that
// reason instead of the API server's bare 404. A CRD that cannot be read
// (no permission) is not reported missing: KubeRay may well be there.
func (c *Client) RayCRDMissing(ctx context.Context, gvk schema.GroupVersionKind) bool {
	crd := rayResources[gvk] + "." + gvk.Group
	_, err := c.Dynamic.Resource(gvrCRD).Get(ctx, crd, metav1.GetOptions{})
	return apierrors.IsNotFound(err)
}

// RayStatus is KubeRay's summary of a Ray object's status, for the
// resource's state attribute and its messages: a RayCluster's state
// ("ready", "suspended", or "" while provisioning), a RayJob's
// jobDeploymentStatus ("Running", "Complete", "Suspended", ...) and a
// RayService's "Ready" or "NotReady".
func RayStatus(live *unstructured.Unstructured, kind string) string {
	if live == nil {
		return ""
	}
	switch kind {
	case GVKRayJob.Kind:
		s, _, _ := unstructured.NestedString(live.Object, "status", "jobDeploymentStatus")
		return s
	case GVKRayService.Kind:
		if rayServiceReady(live) {
			return "Ready"
		}
		return "NotReady"
	}
	s, _, _ := unstructured.NestedString(live.Object, "status", "state")
	return s
}

// DescribeRayStatus is RayStatus for messages: a RayCluster's state with
// its workers and conditions (rayClusterStatus).
func DescribeRayStatus(live *unstructured.Unstructured, kind string) string {
	if live == nil || kind != GVKRayCluster.Kind {
		return RayStatus(live, kind)
	}
	return rayClusterStatus(live)
}

// rayClusterStatus is a RayCluster's state, its workers ready of desired
// and its conditions: KubeRay sets no state until every pod has been
// ready once, so before that the conditions say where it is.
func rayClusterStatus(live *unstructured.Unstructured) string {
	var parts []string
	if state, _, _ := unstructured.NestedString(live.Object, "status", "state"); state != "" {
		parts = append(parts, "state "+state)
	}
	desired, found, _ := unstructured.NestedInt64(live.Object, "status", "desiredWorkerReplicas")
	if found {
		ready, _, _ := unstructured.NestedInt64(live.Object, "status", "readyWorkerReplicas")
		parts = append(parts, fmt.Sprintf("%d of %d workers ready", ready, desired))
	}
	conditions, _, _ := unstructured.NestedSlice(live.Object, "status", "conditions")
	for _, c := range conditions {
		cond, ok := c.(map[string]any)
		if !ok {
			continue
		}
		s := fmt.Sprintf("%v=%v", cond["type"], cond["status"])
		if reason, _ := cond["reason"].(string); reason != "" {
			s += " (" + reason + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// judgeRay is judge for the Ray kinds, which kstatus does not know:
// KubeRay v1.5.0's status fields (apis/ray/v1). WaitComplete waits for a
// RayJob's Complete; any other mode for the object to be ready: a
// RayCluster provisioned (every pod ready once, RayClusterProvisioned, or
// the older state "ready"), a RayJob's job submitted or done, a
// RayService serving (its Ready condition, or serviceStatus "Running").
// A status older than the object's generation says nothing yet.
func judgeRay(live *unstructured.Unstructured, kind string, mode WaitMode) (bool, string) {
	if observed, found, _ := unstructured.NestedInt64(live.Object, "status", "observedGeneration"); found && observed < live.GetGeneration() {
		return false, ""
	}
	switch kind {
	case GVKRayJob.Kind:
		return rayJobDone(live, mode)
	case GVKRayService.Kind:
		return rayServiceReady(live), ""
	}
	if cond := condition(live, string(rayv1.RayClusterReplicaFailure)); cond != nil && cond["status"] == string(metav1.ConditionTrue) {
		return false, fmt.Sprintf("KubeRay could not create the cluster's pods: %v: %v", cond["reason"], cond["message"])
	}
	if state, _, _ := unstructured.NestedString(live.Object, "status", "state"); state == string(rayv1.Failed) {
		reason, _, _ := unstructured.NestedString(live.Object, "status", "reason")
		return false, "KubeRay reports the cluster failed: " + reason
	}
	if cond := condition(live, string(rayv1.RayClusterProvisioned)); cond != nil {
		return cond["status"] == string(metav1.ConditionTrue) && headReady(live), ""
	}
	state, _, _ := unstructured.NestedString(live.Object, "status", "state")
	return state == string(rayv1.Ready), ""
}

// headReady: the head pod answers (HeadPodReady), where KubeRay reports it.
func headReady(live *unstructured.Unstructured) bool {
	cond := condition(live, string(rayv1.HeadPodReady))
	return cond == nil || cond["status"] == string(metav1.ConditionTrue)
}

// rayJobDone judges a RayJob by its jobDeploymentStatus: Failed and
// ValidationFailed end the wait with KubeRay's reason and message; a
// suspended job (Kueue holds it until admission) is still waiting.
func rayJobDone(live *unstructured.Unstructured, mode WaitMode) (bool, string) {
	status, _, _ := unstructured.NestedString(live.Object, "status", "jobDeploymentStatus")
	switch rayv1.JobDeploymentStatus(status) {
	case rayv1.JobDeploymentStatusFailed, rayv1.JobDeploymentStatusValidationFailed:
		reason, _, _ := unstructured.NestedString(live.Object, "status", "reason")
		message, _, _ := unstructured.NestedString(live.Object, "status", "message")
		return false, fmt.Sprintf("RayJob %s: %s: %s", status, reason, message)
	case rayv1.JobDeploymentStatusComplete:
		return true, ""
	case rayv1.JobDeploymentStatusRunning:
		return mode != WaitComplete, ""
	}
	return false, ""
}

// rayServiceReady: the Ready condition (KubeRay v1.3 and later), or the
// deprecated serviceStatus it is equivalent to.
func rayServiceReady(live *unstructured.Unstructured) bool {
	if cond := condition(live, string(rayv1.RayServiceReady)); cond != nil {
		return cond["status"] == string(metav1.ConditionTrue)
	}
	status, _, _ := unstructured.NestedString(live.Object, "status", "serviceStatus")
	return status == string(rayv1.Running)
}
