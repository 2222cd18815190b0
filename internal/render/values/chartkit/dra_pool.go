package chartkit

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kubever"
	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// A chart whose GPU pods have no resourceClaims in their values (FiftyOne's
// deployments, Flyte's task pods) can use a DRA pool only the way a pod
// written for the device plugin does: by asking an extended resource that
// the pool's DeviceClass answers to (extendedResourceName). Kubernetes maps
// such a request to a claim on the class from 1.36, where
// DRAExtendedResource is on by default; before, the pod would wait for a
// resource no node advertises, so that is a plan error naming the version
// (docs/design/dra-versions.md#3-charts-and-hand-written-pods-on-dra-pools).

// DRAPoolResource is the extended resource chart pods ask on a DRA pool
// (nvidia.com/gpu, or nvidia.com/mig-<profile> for a MIG pool). ok is
// false, with an error at path (the pool's attribute) saying which version
// lacks what, when the pool's cluster is judged by a version without
// DRAExtendedResource on. chart names the chart in the message.
func DRAPoolResource(p spec.PoolPolicy, chart string, path []any) (corev1.ResourceName, gpudiag.Diagnostics, bool) {
	var diags gpudiag.Diagnostics
	r, more := pool.Render(p)
	if r == nil {
		return "", more, false
	}
	if r.ExtendedResourceName != "" {
		return corev1.ResourceName(r.ExtendedResourceName), diags, true
	}
	detail := chart + "'s GPU pods have no resourceClaims in their values, so on the DRA pool " + strconv.Quote(p.Name) +
		" they can only ask an extended resource that the pool's DeviceClass " + strconv.Quote(r.DeviceClassName) +
		" answers to (extendedResourceName), which Kubernetes maps to a claim. But " + kubever.ExtendedResource.Lacks(p.Kubernetes) +
		". The pods would wait for a resource no node advertises. Allowed: a pool with gpu_allocation = \"" +
		spec.GPUAllocationDevicePlugin + "\", or a cluster on Kubernetes " + kubever.ExtendedResource.FirstOn() + " or newer."
	if !p.Kubernetes.Known() {
		detail += " " + kubever.HowToSet
	}
	diags.AddError(path, "DRA pool needs Kubernetes "+kubever.ExtendedResource.FirstOn()+" for "+chart, detail)
	return "", diags, false
}

// RequestExtendedResource turns a DRA placement (a claim on the pool's
// class) into the extended-resource request DRAPoolResource allows: the
// claim's device count of name as limit and equal request, no claims.
func (p *ValuesPlacement) RequestExtendedResource(name corev1.ResourceName) {
	q := *resource.NewQuantity(p.draCount, resource.DecimalSI)
	if p.Resources.Limits == nil {
		p.Resources.Limits = corev1.ResourceList{}
	}
	if p.Resources.Requests == nil {
		p.Resources.Requests = corev1.ResourceList{}
	}
	p.Resources.Limits[name], p.Resources.Requests[name] = q, q
	p.resourceName = string(name)
	p.Claims, p.ClaimTemplate = nil, nil
}
