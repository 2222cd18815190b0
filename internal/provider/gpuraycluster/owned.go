package gpuraycluster

import (
	"context"
	"reflect"
	"slices"

	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/render/ray"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// What KubeRay's autoscaler and Kueue own in the Ray object
// (docs/design/ray.md, "What the operator and Kueue own"): the provider
// never sends spec.suspend or scaleStrategy (the render sets neither), so
// server-side apply leaves them alone. What it does send and another owner
// changes is handled here: the replicas of autoscaled worker groups, and
// the node selector entries and tolerations Kueue merges into the pod
// templates at admission. Status is never projected (kube.Project keeps
// only rendered fields).

// clusterSpecPath is where the RayClusterSpec sits in each Ray kind.
func clusterSpecPath(kind string) []string {
	switch kind {
	case kube.GVKRayJob.Kind:
		return []string{"spec", "rayClusterSpec"}
	case kube.GVKRayService.Kind:
		return []string{"spec", "rayClusterConfig"}
	}
	return []string{"spec"}
}

// liveClusterSpec decodes the cluster spec of a live Ray object.
func liveClusterSpec(live *unstructured.Unstructured, kind string) (*rayv1.RayClusterSpec, error) {
	raw, found, err := unstructured.NestedMap(live.Object, clusterSpecPath(kind)...)
	if err != nil || !found {
		return nil, err
	}
	var s rayv1.RayClusterSpec
	return &s, runtime.DefaultUnstructuredConverter.FromUnstructured(raw, &s)
}

// keepOwnedFields carries over, before an update's apply, what others own
// in the live object: the autoscaler's replicas (applying ours would scale
// the group back), and Kueue's additions to the pod templates (the node
// selector is an atomic map: applying ours alone would drop the flavor's
// labels from an admitted cluster).
func keepOwnedFields(ctx context.Context, client *kube.Client, rendered *ray.Rendered, c spec.RayCluster) error {
	ref, err := kube.RefOf(rendered.Object())
	if err != nil {
		return err
	}
	live, err := client.GetFresh(ctx, ref)
	if err != nil || live == nil {
		return err
	}
	got, err := liveClusterSpec(live, ref.GVK.Kind)
	if err != nil || got == nil {
		return err
	}
	want := rendered.ClusterSpec()
	if queueName(rendered) != "" {
		keepKueueAdditions(&want.HeadGroupSpec.Template, got.HeadGroupSpec.Template)
	}
	for i := range want.WorkerGroupSpecs {
		w := &want.WorkerGroupSpecs[i]
		j := slices.IndexFunc(got.WorkerGroupSpecs, func(g rayv1.WorkerGroupSpec) bool { return g.GroupName == w.GroupName })
		if j < 0 {
			continue
		}
		if c.Autoscaling != nil && got.WorkerGroupSpecs[j].Replicas != nil {
			w.Replicas = got.WorkerGroupSpecs[j].Replicas
		}
		if queueName(rendered) != "" {
			keepKueueAdditions(&w.Template, got.WorkerGroupSpecs[j].Template)
		}
	}
	return nil
}

// keepKueueAdditions adds to a rendered pod template the live template's
// node selector entries of keys it lacks and tolerations it lacks: those
// Kueue added from the admitted flavor.
func keepKueueAdditions(want *corev1.PodTemplateSpec, live corev1.PodTemplateSpec) {
	for k, v := range live.Spec.NodeSelector {
		if _, ours := want.Spec.NodeSelector[k]; ours {
			continue
		}
		if want.Spec.NodeSelector == nil {
			want.Spec.NodeSelector = map[string]string{}
		}
		want.Spec.NodeSelector[k] = v
	}
	for _, t := range live.Spec.Tolerations {
		if !slices.ContainsFunc(want.Spec.Tolerations, func(w corev1.Toleration) bool { return reflect.DeepEqual(w, t) }) {
			want.Spec.Tolerations = append(want.Spec.Tolerations, t)
		}
	}
}

// withoutOwnedFields removes from a projected live Ray object what others
// own, so that a refresh shows no drift for it: autoscaled replicas become
// the rendered ones, and tolerations the render lacks (Kueue's) go.
// Kueue's node selector entries are gone already: the projection keeps
// only rendered keys.
func withoutOwnedFields(projected, desired map[string]any, c spec.RayCluster) {
	at := clusterSpecPath(kindOfObject(desired))
	dropAddedTolerations(projected, desired, append(at, "headGroupSpec")...)
	got, _, _ := unstructured.NestedSlice(projected, append(at, "workerGroupSpecs")...)
	want, _, _ := unstructured.NestedSlice(desired, append(at, "workerGroupSpecs")...)
	for i := range min(len(got), len(want)) {
		g, okG := got[i].(map[string]any)
		w, okW := want[i].(map[string]any)
		if !okG || !okW {
			continue
		}
		if c.Autoscaling != nil {
			g["replicas"] = w["replicas"]
		}
		dropAddedTolerations(g, w)
	}
	if len(got) > 0 {
		// Cannot fail: NestedSlice just found a slice at this path.
		_ = unstructured.SetNestedSlice(projected, got, append(at, "workerGroupSpecs")...)
	}
}

// dropAddedTolerations drops, at the group spec under at, the pod
// template's tolerations the rendered one lacks.
func dropAddedTolerations(projected, desired map[string]any, at ...string) {
	tolerations := append(slices.Clone(at), "template", "spec", "tolerations")
	want, _, _ := unstructured.NestedSlice(desired, tolerations...)
	got, found, err := unstructured.NestedSlice(projected, tolerations...)
	if !found || err != nil {
		return
	}
	kept := slices.DeleteFunc(got, func(item any) bool {
		return !slices.ContainsFunc(want, func(w any) bool { return reflect.DeepEqual(w, item) })
	})
	_ = unstructured.SetNestedSlice(projected, kept, tolerations...)
}

func kindOfObject(obj map[string]any) string {
	kind, _ := obj["kind"].(string)
	return kind
}

// queueName is the LocalQueue the Ray object is labelled with, "" when
// Kueue does not manage it.
func queueName(r *ray.Rendered) string {
	return r.Object().GetLabels()[workload.LabelKueueQueueName]
}
