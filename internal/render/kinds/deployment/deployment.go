// Package deployment is the deployment kind: a Deployment of identical
// replicas, rolled out in place. It is the kind of a workload that leaves
// kind unset.
package deployment

import (
	"maps"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds/kindkit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// Kind is the deployment kind.
func Kind() kindkit.Kind {
	return kindkit.Kind{
		Name:        spec.KindDeployment,
		Default:     true,
		GVK:         appsv1.SchemeGroupVersion.WithKind("Deployment"),
		Resource:    "deployments",
		New:         func() kindkit.Object { return &appsv1.Deployment{} },
		Build:       func(in kindkit.BuildInput) (kindkit.Object, bool) { return build(in), true },
		PodTemplate: kindkit.Typed(func(d *appsv1.Deployment) *corev1.PodTemplateSpec { return &d.Spec.Template }),
		Selector:    kindkit.Typed(func(d *appsv1.Deployment) *metav1.LabelSelector { return d.Spec.Selector }),
		Replicas:    kindkit.Typed(func(d *appsv1.Deployment) *int32 { return d.Spec.Replicas }),
		Pods:        ReplicaPods,
		Accepts:     []string{kindkit.AttributeReplicas, kindkit.AttributeUpdateStrategy},
		Wait:        kindkit.Wait{Default: kindkit.WaitRollout},
		// Kueue's pod integration admits a Deployment's pods one by one.
		Kueue: kindkit.Kueue{PodByPod: true},
		Adopt: &kindkit.Adopt{Attributes: func(obj kindkit.Object, w *spec.Workload) {
			if d, ok := obj.(*appsv1.Deployment); ok {
				w.UpdateStrategy = updateStrategyOf(d.Spec.Strategy, d.Spec.Replicas)
			}
		}},
		PrepareAdoption: kindkit.Typed(prepareAdoption),
	}
}

// ReplicaPods is the pod count of kinds scaled by replicas: unset, the
// server or an autoscaler decides.
func ReplicaPods(w spec.Workload) (int64, string) {
	if w.Replicas != nil {
		return int64(*w.Replicas), "replicas"
	}
	return 0, ""
}

// build wraps the pod template with the update strategy.
func build(in kindkit.BuildInput) *appsv1.Deployment {
	w := in.Workload
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: in.Meta,
		Spec: appsv1.DeploymentSpec{
			// Unset replicas stay unset: the server defaults them to 1 and a
			// HorizontalPodAutoscaler can own them without a tug of war.
			Replicas: w.Replicas,
			Selector: &metav1.LabelSelector{MatchLabels: maps.Clone(in.Selector)},
			Strategy: strategy(w),
			Template: in.Pod,
		},
	}
}

// strategy is update_strategy's strategy. Unset, it never needs a spare
// GPU: a surge pod would wait for a free GPU that a fully used node pool
// does not have (or force a scale-up of an expensive node), so
//   - one replica: Recreate (the old pod releases its GPU first);
//   - several: RollingUpdate with maxSurge 0 and maxUnavailable 1, replacing
//     pods one at a time inside the GPUs already held.
func strategy(w spec.Workload) appsv1.DeploymentStrategy {
	mode := w.UpdateStrategy
	if mode == "" {
		mode = spec.UpdateRecreate
		if w.Replicas != nil && *w.Replicas > 1 {
			mode = spec.UpdateRolling
		}
	}
	rolling := func(surge, unavailable int32) appsv1.DeploymentStrategy {
		maxSurge, maxUnavailable := intstr.FromInt32(surge), intstr.FromInt32(unavailable)
		return appsv1.DeploymentStrategy{
			Type:          appsv1.RollingUpdateDeploymentStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &maxSurge, MaxUnavailable: &maxUnavailable},
		}
	}
	switch mode {
	case spec.UpdateRolling:
		return rolling(0, 1)
	case spec.UpdateSurge:
		return rolling(1, 0)
	default:
		return appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	}
}

// prepareAdoption: a Deployment another tool created carries defaulted
// rollingUpdate parameters that tool owns, and server-side apply cannot
// remove another manager's fields, so switching it to Recreate would be
// refused ("may not be specified when strategy type is 'Recreate'"). A
// merge patch clears them first, as kubectl does.
func prepareAdoption(d *appsv1.Deployment) []byte {
	if d.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType {
		return nil
	}
	return []byte(`{"spec":{"strategy":{"type":"Recreate","rollingUpdate":null}}}`)
}

// updateStrategyOf names a Deployment's strategy as update_strategy when it
// has one of that attribute's shapes and differs from what replicas give
// without it; any other strategy (Kubernetes' default of 25% and 25% among
// them) stays in the patch.
func updateStrategyOf(s appsv1.DeploymentStrategy, replicas *int32) string {
	isInt := func(v *intstr.IntOrString, n int32) bool {
		return v != nil && v.Type == intstr.Int && v.IntVal == n
	}
	name := ""
	switch {
	case s.Type == appsv1.RecreateDeploymentStrategyType:
		name = spec.UpdateRecreate
	case s.Type == appsv1.RollingUpdateDeploymentStrategyType && s.RollingUpdate != nil:
		r := s.RollingUpdate
		if isInt(r.MaxSurge, 0) && isInt(r.MaxUnavailable, 1) {
			name = spec.UpdateRolling
		} else if isInt(r.MaxSurge, 1) && isInt(r.MaxUnavailable, 0) {
			name = spec.UpdateSurge
		}
	}
	derived := spec.UpdateRecreate
	if replicas != nil && *replicas > 1 {
		derived = spec.UpdateRolling
	}
	if name == derived {
		return ""
	}
	return name
}
