package workload

import (
	"fmt"

	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilversion "k8s.io/apimachinery/pkg/util/version"
)

// DRA API versions Render can emit (docs/design/kubernetes.md#dra-api-versions).
const (
	// DRAAPIVersionV1 is GA DRA (Kubernetes 1.34+): requests wrap their
	// fields in "exactly".
	DRAAPIVersionV1 = "resource.k8s.io/v1"
	// DRAAPIVersionV1beta1 (1.32–1.33) has the fields directly on the
	// request. Upstream serves beta APIs only with --runtime-config; some
	// managed services (e.g. EKS 1.33) enable it.
	DRAAPIVersionV1beta1 = "resource.k8s.io/v1beta1"
)

// minDRAVersion is the first release with structured-parameters DRA in a
// version we can render (v1beta1). Older v1alpha2/v1alpha3 shapes are gone.
var minDRAVersion = utilversion.MajorMinor(1, 32)

// v1DRAVersion is the first release serving resource.k8s.io/v1.
var v1DRAVersion = utilversion.MajorMinor(1, 34)

// DRAAPIVersion chooses the ResourceClaimTemplate API for a server. With an
// unknown server (plan time) it assumes v1 and says so, so the provider can
// tell the user the manifest may change at apply.
func DRAAPIVersion(v *utilversion.Version) (apiVersion string, assumed bool) {
	if v == nil {
		return DRAAPIVersionV1, true
	}
	if v.AtLeast(v1DRAVersion) {
		return DRAAPIVersionV1, false
	}
	return DRAAPIVersionV1beta1, false
}

// ServerVersionCheck holds the apply-time rules that depend on the cluster
// version: DRA needs Kubernetes 1.32 or newer.
func ServerVersionCheck(w spec.Workload, v *utilversion.Version) gpudiag.Diagnostics {
	var diags gpudiag.Diagnostics
	if w.GPU.DRA != nil && v != nil && !v.AtLeast(minDRAVersion) {
		diags.AddError(gpudiag.At("gpu", "dra"), "Cluster too old for DRA",
			"The cluster runs Kubernetes "+majorMinor(v)+"; GPU requests through Dynamic Resource Allocation need "+
				majorMinor(minDRAVersion)+" or newer (resource.k8s.io/v1beta1 on 1.32–1.33, resource.k8s.io/v1 from 1.34). "+
				"Allowed: upgrade the cluster, or remove gpu.dra to request nvidia.com/gpu.")
	}
	return diags
}

// majorMinor prints "1.33", whatever the version carries beyond the minor.
func majorMinor(v *utilversion.Version) string { return fmt.Sprintf("%d.%d", v.Major(), v.Minor()) }

// draClaimName is the claim's name inside the pod (pod.spec.resourceClaims
// and container resources.claims must agree,
// docs/design/kubernetes.md#the-pod-side-of-a-claim).
const draClaimName = "gpu"

func draClaimTemplateName(workloadName string) string { return workloadName + "-gpu" }

func draDeviceClass(d *spec.DRA) string {
	if d.DeviceClass == "" {
		return spec.DefaultDeviceClass
	}
	return d.DeviceClass
}

// DRAClaimTemplate returns the ResourceClaimTemplate for apiVersion, asking
// for exactly count devices of the class, filtered by the CEL selectors
// (docs/design/kubernetes.md#resourceclaimtemplate-shapes). meta is the
// workload's: the template is named after it.
func DRAClaimTemplate(dra *spec.DRA, meta metav1.ObjectMeta, apiVersion string, count int64) Object {
	meta.Name = draClaimTemplateName(meta.Name)
	class := draDeviceClass(dra)
	if apiVersion == DRAAPIVersionV1beta1 {
		return &resourcev1beta1.ResourceClaimTemplate{
			TypeMeta:   metav1.TypeMeta{APIVersion: DRAAPIVersionV1beta1, Kind: "ResourceClaimTemplate"},
			ObjectMeta: meta,
			Spec: resourcev1beta1.ResourceClaimTemplateSpec{Spec: resourcev1beta1.ResourceClaimSpec{
				Devices: resourcev1beta1.DeviceClaim{Requests: []resourcev1beta1.DeviceRequest{{
					Name:            draClaimName,
					DeviceClassName: class,
					Selectors:       draSelectorsV1beta1(dra.Selectors),
					AllocationMode:  resourcev1beta1.DeviceAllocationModeExactCount,
					Count:           count,
				}}},
			}},
		}
	}
	return &resourcev1.ResourceClaimTemplate{
		TypeMeta:   metav1.TypeMeta{APIVersion: DRAAPIVersionV1, Kind: "ResourceClaimTemplate"},
		ObjectMeta: meta,
		Spec: resourcev1.ResourceClaimTemplateSpec{Spec: resourcev1.ResourceClaimSpec{
			Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{
				Name: draClaimName,
				Exactly: &resourcev1.ExactDeviceRequest{
					DeviceClassName: class,
					Selectors:       draSelectorsV1(dra.Selectors),
					AllocationMode:  resourcev1.DeviceAllocationModeExactCount,
					Count:           count,
				},
			}}},
		}},
	}
}

func draSelectorsV1(expressions []string) []resourcev1.DeviceSelector {
	var out []resourcev1.DeviceSelector
	for _, e := range expressions {
		out = append(out, resourcev1.DeviceSelector{CEL: &resourcev1.CELDeviceSelector{Expression: e}})
	}
	return out
}

func draSelectorsV1beta1(expressions []string) []resourcev1beta1.DeviceSelector {
	var out []resourcev1beta1.DeviceSelector
	for _, e := range expressions {
		out = append(out, resourcev1beta1.DeviceSelector{CEL: &resourcev1beta1.CELDeviceSelector{Expression: e}})
	}
	return out
}

// DRAPodClaims references the template from the pod (flat
// resourceClaimTemplateName, core/v1 since 1.31;
// docs/design/kubernetes.md#the-pod-side-of-a-claim).
func DRAPodClaims(workloadName string) []corev1.PodResourceClaim {
	template := draClaimTemplateName(workloadName)
	return []corev1.PodResourceClaim{{Name: draClaimName, ResourceClaimTemplateName: &template}}
}
