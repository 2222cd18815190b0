package kube

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Where a Kueue install names its release (docs/design/kueue-versions.md,
// "How the release is known"): the Helm chart labels its objects, CRDs
// included, with app.kubernetes.io/version; the release manifests run
// Deployment kueue-system/kueue-controller-manager with the manager image
// tagged with the release.
const (
	kueueVersionLabel    = "app.kubernetes.io/version"
	kueueWorkloadCRD     = "workloads.kueue.x-k8s.io"
	kueueNamespace       = "kueue-system"
	kueueManager         = "kueue-controller-manager"
	kueueManagerImageTag = "manager"
)

var gvrCRD = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// KueueRelease is what the cluster says of its Kueue release: the raw
// value ("v0.19.2") and where it was read, or "" and why nothing says it.
// It never fails: a release it cannot read is unknown, and the caller
// judges by the oldest one.
func (c *Client) KueueRelease(ctx context.Context) (release, where string) {
	crd, err := c.Dynamic.Resource(gvrCRD).Get(ctx, kueueWorkloadCRD, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return "", "the cluster has no " + kueueWorkloadCRD + " CRD, so no Kueue"
	case err != nil:
		return "", "reading CRD " + kueueWorkloadCRD + ": " + shortError(err)
	}
	if v := crd.GetLabels()[kueueVersionLabel]; v != "" {
		return v, fmt.Sprintf("CRD %s label %s", kueueWorkloadCRD, kueueVersionLabel)
	}
	d, err := c.Typed.AppsV1().Deployments(kueueNamespace).Get(ctx, kueueManager, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return "", fmt.Sprintf("neither the %s label on CRD %s nor Deployment %s/%s is there", kueueVersionLabel,
			kueueWorkloadCRD, kueueNamespace, kueueManager)
	case err != nil:
		return "", fmt.Sprintf("reading Deployment %s/%s: %s", kueueNamespace, kueueManager, shortError(err))
	}
	if v := d.Labels[kueueVersionLabel]; v != "" {
		return v, fmt.Sprintf("Deployment %s/%s label %s", kueueNamespace, kueueManager, kueueVersionLabel)
	}
	for _, ctr := range d.Spec.Template.Spec.Containers {
		if ctr.Name == kueueManagerImageTag {
			if tag := imageTag(ctr.Image); tag != "" {
				return tag, fmt.Sprintf("Deployment %s/%s image tag", kueueNamespace, kueueManager)
			}
		}
	}
	return "", fmt.Sprintf("Deployment %s/%s names no release (no %s label, no image tag)", kueueNamespace, kueueManager,
		kueueVersionLabel)
}

// imageTag is an image reference's tag ("" for none or a digest only):
// "repo:5000/kueue:v0.19.2@sha256:..." has "v0.19.2".
func imageTag(image string) string {
	image, _, _ = strings.Cut(image, "@")
	slash := strings.LastIndex(image, "/")
	if colon := strings.LastIndex(image, ":"); colon > slash {
		return image[colon+1:]
	}
	return ""
}

// shortError is an API error's message without the request's details.
func shortError(err error) string {
	if status, ok := err.(apierrors.APIStatus); ok && status.Status().Message != "" {
		return status.Status().Message
	}
	return err.Error()
}
