package kube

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	typedfake "k8s.io/client-go/kubernetes/fake"
)

func workloadCRD(labels map[string]string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("apiextensions.k8s.io/v1")
	u.SetKind("CustomResourceDefinition")
	u.SetName(kueueWorkloadCRD)
	u.SetLabels(labels)
	return u
}

func kueueDeployment(labels map[string]string, image string) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: kueueManager, Namespace: kueueNamespace, Labels: labels},
		Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{
			{Name: "kube-rbac-proxy", Image: "proxy:v0.16.0"}, {Name: "manager", Image: image}}}}},
	}
}

// TestKueueRelease: the Helm chart's label on the Workload CRD first, then
// the release manifests' Deployment (its label, then the manager's image
// tag); unknown, with the reason, where nothing names the release (the
// local cluster: unlabelled CRDs, Kueue run as a process).
func TestKueueRelease(t *testing.T) {
	helm := map[string]string{kueueVersionLabel: "v0.19.2"}
	for _, tc := range []struct {
		name          string
		crd           *unstructured.Unstructured
		deployment    *appsv1.Deployment
		want, whereIs string
	}{
		{"helm", workloadCRD(helm), nil, "v0.19.2", "CRD workloads.kueue.x-k8s.io label"},
		{"manifests", workloadCRD(nil), kueueDeployment(nil, "registry.invalid:5000/kueue/kueue:v0.20.7"), "v0.20.7", "image tag"},
		{"manifests by digest", workloadCRD(nil), kueueDeployment(nil, "registry.invalid/kueue/kueue:v0.18.5@sha256:abc"), "v0.18.5", "image tag"},
		{"deployment label", workloadCRD(nil), kueueDeployment(helm, "registry.invalid/kueue/kueue:main"), "v0.19.2", "Deployment kueue-system/kueue-controller-manager label"},
		{"no tag", workloadCRD(nil), kueueDeployment(nil, "registry.invalid/kueue/kueue@sha256:abc"), "", "names no release"},
		{"local cluster", workloadCRD(nil), nil, "", "nor Deployment kueue-system/kueue-controller-manager"},
		{"no Kueue", nil, nil, "", "no Kueue"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var dynObjs, typedObjs []runtime.Object
			if tc.crd != nil {
				dynObjs = append(dynObjs, tc.crd)
			}
			if tc.deployment != nil {
				typedObjs = append(typedObjs, tc.deployment)
			}
			c := &Client{
				Dynamic: dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
					map[schema.GroupVersionResource]string{gvrCRD: "CustomResourceDefinitionList"}, dynObjs...),
				Typed: typedfake.NewClientset(typedObjs...),
			}
			got, where := c.KueueRelease(context.Background())
			if got != tc.want || !strings.Contains(where, tc.whereIs) {
				t.Errorf("got %q from %q, want %q from something naming %q", got, where, tc.want, tc.whereIs)
			}
		})
	}
}

func TestImageTag(t *testing.T) {
	for image, want := range map[string]string{
		"kueue:v0.19.2": "v0.19.2", "host:5000/kueue": "", "host:5000/k/kueue:v0.17.0": "v0.17.0",
		"kueue@sha256:00": "", "kueue:v0.18.5@sha256:00": "v0.18.5",
	} {
		if got := imageTag(image); got != want {
			t.Errorf("imageTag(%q) = %q, want %q", image, got, want)
		}
	}
}
