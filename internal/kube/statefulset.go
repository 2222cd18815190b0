package kube

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds"
)

// RecreateStuckPods lets an apply repair a workload whose previous template
// never became ready, for kinds whose controller would wait for it forever
// (kindkit.Wait.DeleteStuckPods: a StatefulSet). With the default rolling
// update the StatefulSet controller does not replace a pod that is not
// Running and Ready, so an apply fixing a bad template (a removed
// toleration, a wrong image) would never roll out. The documented remedy is
// deleting those pods; this does it for the pods that run an older revision
// than the one just applied and are not ready, once the controller has
// seen the new template. Ready pods are left to the rolling update.
func (c *Client) RecreateStuckPods(ctx context.Context, target WaitTarget, podSelector string) error {
	if k, ok := kinds.ForGroupKind(target.Ref.GVK.GroupKind()); !ok || !k.Wait.DeleteStuckPods {
		return nil
	}
	controller := target.Ref.GVK.Kind
	objects, release, err := c.followObject(ctx, target.Ref, c.cache.holds(target.Labels))
	if err != nil {
		return fmt.Errorf("waiting for the %s controller to see %s: %w", controller, target.Ref, err)
	}
	defer release()
	waitCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var updateRevision string
	err = c.waitUntil(waitCtx, func() (bool, time.Time, error) {
		live := objects.get(target.Ref.Namespace, target.Ref.Name)
		if live == nil {
			return false, time.Time{}, nil
		}
		observed, _, _ := unstructured.NestedInt64(live.Object, "status", "observedGeneration")
		updateRevision, _, _ = unstructured.NestedString(live.Object, "status", "updateRevision")
		return observed >= target.Generation && updateRevision != "", time.Time{}, nil
	}, objects)
	if err != nil {
		return fmt.Errorf("waiting for the %s controller to see %s: %w", controller, target.Ref, err)
	}
	pods, err := c.Typed.CoreV1().Pods(target.Ref.Namespace).List(ctx, metav1.ListOptions{LabelSelector: podSelector})
	if apierrors.IsForbidden(err) {
		return nil // without list or delete on pods, the wait reports the stuck pod instead
	}
	if err != nil {
		return c.explain(target.Ref, "list the pods of", err)
	}
	for _, p := range pods.Items {
		if p.Labels[appsv1.ControllerRevisionHashLabelKey] == updateRevision || podReady(p) || p.DeletionTimestamp != nil {
			continue
		}
		err := c.Typed.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsForbidden(err) {
			return fmt.Errorf("recreating stuck pod %s/%s of %s: %w", p.Namespace, p.Name, target.Ref, err)
		}
	}
	return nil
}

func podReady(p corev1.Pod) bool {
	for _, cond := range p.Status.Conditions {
		if cond.Type == corev1.PodReady {
			return cond.Status == corev1.ConditionTrue
		}
	}
	return false
}
