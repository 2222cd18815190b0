// Package statefulset is the statefulset kind: replicas with stable names
// and, with a created model cache, a volume each.
package statefulset

import (
	"maps"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds/deployment"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds/kindkit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// Kind is the statefulset kind.
func Kind() kindkit.Kind {
	return kindkit.Kind{
		Name: spec.KindStatefulSet,
		Doc: "A `statefulset` gives each replica a stable name and, with `model_cache.size`, a cache volume of its " +
			"own (a claim template; the claims are deleted with the StatefulSet, not on scale-down); Kubernetes " +
			"cannot change claim templates, so a change to `model_cache` (or a patch of an immutable field) replaces it.",
		GVK:              appsv1.SchemeGroupVersion.WithKind("StatefulSet"),
		Resource:         "statefulsets",
		New:              func() kindkit.Object { return &appsv1.StatefulSet{} },
		Build:            func(in kindkit.BuildInput) (kindkit.Object, bool) { return build(in), true },
		PodTemplate:      kindkit.Typed(func(s *appsv1.StatefulSet) *corev1.PodTemplateSpec { return &s.Spec.Template }),
		Selector:         kindkit.Typed(func(s *appsv1.StatefulSet) *metav1.LabelSelector { return s.Spec.Selector }),
		Replicas:         kindkit.Typed(func(s *appsv1.StatefulSet) *int32 { return s.Spec.Replicas }),
		Pods:             deployment.ReplicaPods,
		ModelCachePerPod: true,
		Accepts:          []string{kindkit.AttributeReplicas},
		// The rolling update waits forever for a pod of a bad template to
		// become ready; the apply deletes such pods instead.
		Wait: kindkit.Wait{Default: kindkit.WaitRollout, DeleteStuckPods: true},
		// Kueue admits a StatefulSet's pods as one group.
		Kueue: kindkit.Kueue{AdmittedTogether: kindkit.Typed(func(s *appsv1.StatefulSet) int64 {
			return int64(valueOr(s.Spec.Replicas, 1))
		})},
		Immutable: kindkit.Immutable{
			// apps/v1 validation allows changing only replicas, template,
			// updateStrategy, the retention policy, minReadySeconds and
			// ordinals. The model cache becomes the claim template, and a
			// patch may set any of them.
			SpecFields:   []string{"volumeClaimTemplates", "serviceName", "podManagementPolicy", "selector"},
			Attributes:   []string{"model_cache", "patch"},
			DriftSummary: "This StatefulSet's claim templates would change",
			DriftDetail: "The provider now renders this StatefulSet's immutable fields (volume claim templates, service name) " +
				"differently, although no attribute changed. Kubernetes does not allow changing them, so the update " +
				"will be refused. Allowed: replace it (terraform apply -replace=<address>), or leave it as it is.",
		},
		Adopt: &kindkit.Adopt{},
	}
}

// build gives each replica a stable identity (<name>-0, <name>-1, ...),
// the serving pattern of sharded inference servers. A created model cache
// becomes a volume claim template, so every replica keeps its own
// downloaded weights across restarts instead of all sharing one volume; the
// claims are deleted with the StatefulSet (not on scale-down), so destroy
// leaves no storage behind. serviceName names the governing headless
// Service that stable DNS names need; the workload does not create it.
func build(in kindkit.BuildInput) *appsv1.StatefulSet {
	var retention *appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy
	if len(in.ClaimTemplates) > 0 {
		retention = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
			WhenDeleted: appsv1.DeletePersistentVolumeClaimRetentionPolicyType,
			WhenScaled:  appsv1.RetainPersistentVolumeClaimRetentionPolicyType,
		}
	}
	return &appsv1.StatefulSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"},
		ObjectMeta: in.Meta,
		Spec: appsv1.StatefulSetSpec{
			Replicas:    in.Workload.Replicas,
			Selector:    &metav1.LabelSelector{MatchLabels: maps.Clone(in.Selector)},
			ServiceName: in.Workload.Name,
			// Replicas of a GPU server start together: ordered startup would
			// hold each one behind the previous one's model download.
			PodManagementPolicy:                  appsv1.ParallelPodManagement,
			Template:                             in.Pod,
			VolumeClaimTemplates:                 in.ClaimTemplates,
			PersistentVolumeClaimRetentionPolicy: retention,
			// One replica at a time, highest ordinal first: a sharded
			// server keeps serving while each shard restarts.
			UpdateStrategy: appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType},
		},
	}
}

func valueOr(p *int32, fallback int32) int32 {
	if p == nil {
		return fallback
	}
	return *p
}
