package ray

import (
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
)

// checkRayView checks that Ray's view of a group agrees with what
// Kubernetes gives its pod, on the group as it will be applied (after its
// patch): num-gpus against the GPU limit of the Ray container (the first),
// or, for a DRA group, against the devices rendered; and no Ray labels in
// the start parameters (KubeRay v1.5 refuses them). Findings are on at.
func checkRayView(params map[string]string, pod corev1.PodTemplateSpec, g GroupRendered, at []any, diags *gpudiag.Diagnostics) {
	if _, set := params[paramLabels]; set {
		diags.AddError(at, "Ray labels in rayStartParams", "KubeRay v1.5 refuses rayStartParams[\"labels\"]; the "+
			"provider sets the group's Ray labels (the accelerator type) through the labels field. Allowed: leave it out.")
	}
	want := podGPUs(pod, g)
	value, set := params[ParamNumGPUs]
	if n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64); set && (err != nil || n != want) {
		label := "head"
		if !g.Head {
			label = "worker group " + quote(g.Name)
		}
		diags.AddError(at, "num-gpus contradicts the GPUs the pod gets", numGPUsDetail(label, value, want))
	}
}

// podGPUs is the GPUs the pod's Ray container gets: its limit of the
// group's GPU resource, or the group's DRA devices while the pod still
// claims them.
func podGPUs(pod corev1.PodTemplateSpec, g GroupRendered) int64 {
	if len(pod.Spec.Containers) == 0 {
		return 0
	}
	c := pod.Spec.Containers[0]
	if g.DRA {
		if len(c.Resources.Claims) == 0 {
			return 0
		}
		return g.GPUs
	}
	if g.ResourceName == "" {
		return 0
	}
	q := c.Resources.Limits[corev1.ResourceName(g.ResourceName)]
	return q.Value()
}
