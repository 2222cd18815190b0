package workload

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilversion "k8s.io/apimachinery/pkg/util/version"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/dra"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
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
	if w.Topology != nil && w.Topology.NVLinkDomain && v != nil && !v.AtLeast(minDRAVersion) {
		diags.AddError(gpudiag.At("topology", "nvlink_domain"), "Cluster too old for an NVLink domain",
			"The cluster runs Kubernetes "+majorMinor(v)+"; the pods claim a ComputeDomain's channel through Dynamic "+
				"Resource Allocation, which needs "+majorMinor(minDRAVersion)+" or newer. Allowed: upgrade the cluster, "+
				"or remove nvlink_domain.")
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

// DRARequestOf is the claim a GPU intent asks for, for dra.BuildClaim. It
// does not need g.DRA: a workload on a DRA pool asks for the claim of its
// count, accelerator and partition alone. Values validation refused (an
// unparsable min_memory) are left out.
func DRARequestOf(g spec.GPU, in clouds.GPUIntent) dra.Request {
	r := dra.Request{Count: in.Count, Accelerators: in.Accelerators, Partition: in.Partition}
	if d := g.DRA; d != nil {
		r.DeviceClass, r.Same, r.Selectors = d.DeviceClass, d.Same, d.Selectors
		if q, err := resource.ParseQuantity(d.MinMemory); err == nil && d.MinMemory != "" {
			r.MinMemory = &q
		}
	}
	return r
}

// DRAClaimTemplate returns the ResourceClaimTemplate of a request for
// apiVersion (docs/design/kubernetes.md#resourceclaimtemplate-shapes; the
// claim itself is dra.BuildClaim's). meta is the workload's: the template
// is named after it. A claim with firstAvailable cannot be served before
// v1 (CheckDRAAPIVersion); rendered anyway, v1beta1 carries it as is.
func DRAClaimTemplate(req dra.Request, meta metav1.ObjectMeta, apiVersion string) Object {
	meta.Name = draClaimTemplateName(meta.Name)
	claim := dra.BuildClaim(req)
	if apiVersion == DRAAPIVersionV1beta1 {
		return &resourcev1beta1.ResourceClaimTemplate{
			TypeMeta:   metav1.TypeMeta{APIVersion: DRAAPIVersionV1beta1, Kind: "ResourceClaimTemplate"},
			ObjectMeta: meta,
			Spec:       resourcev1beta1.ResourceClaimTemplateSpec{Spec: claim.V1beta1()},
		}
	}
	return &resourcev1.ResourceClaimTemplate{
		TypeMeta:   metav1.TypeMeta{APIVersion: DRAAPIVersionV1, Kind: "ResourceClaimTemplate"},
		ObjectMeta: meta,
		Spec:       resourcev1.ResourceClaimTemplateSpec{Spec: claim.V1()},
	}
}

// CheckDRAAPIVersion refuses what a request's claim needs that the
// ResourceClaimTemplate API version cannot carry: a preference list
// (firstAvailable) is off by default before 1.34, where v1beta1 is
// rendered, so the server would drop it and reject the request
// (docs/design/dra.md#6-claims-from-intent).
func CheckDRAAPIVersion(req dra.Request, apiVersion string) gpudiag.Diagnostics {
	var diags gpudiag.Diagnostics
	if apiVersion == DRAAPIVersionV1beta1 && req.UsesPreferences() {
		diags.AddError(gpudiag.At("gpu", "accelerators"), "Preference list needs Kubernetes 1.34",
			"Through DRA, accelerators becomes the claim's firstAvailable list, which Kubernetes serves by default "+
				"from 1.34 (the DRAPrioritizedList gate is alpha and off in 1.33, absent in 1.32); this cluster "+
				"gets "+DRAAPIVersionV1beta1+". Allowed: one accelerator, or upgrade the cluster to 1.34 or newer.")
	}
	return diags
}

// DRAPodClaims references the template from the pod (flat
// resourceClaimTemplateName, core/v1 since 1.31;
// docs/design/kubernetes.md#the-pod-side-of-a-claim).
func DRAPodClaims(workloadName string) []corev1.PodResourceClaim {
	template := draClaimTemplateName(workloadName)
	return []corev1.PodResourceClaim{{Name: draClaimName, ResourceClaimTemplateName: &template}}
}
