package ray

import (
	"strconv"
	"strings"

	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
)

// CheckRayView checks that Ray's view of each group's GPUs agrees with
// what Kubernetes gives its pods, on a cluster spec as it will be applied
// (after the provider's patch path merged a user's patch into the render):
// num-gpus against the GPU limit of the Ray container (the first), or,
// for a DRA group, against the devices rendered. groups are the render's.
func CheckRayView(s *rayv1.RayClusterSpec, groups []GroupRendered) gpudiag.Diagnostics {
	var diags gpudiag.Diagnostics
	for i, g := range groups {
		var params map[string]string
		var pod corev1.PodTemplateSpec
		path := headPath("patch")
		switch {
		case g.Head:
			params, pod = s.HeadGroupSpec.RayStartParams, s.HeadGroupSpec.Template
		case i-1 < len(s.WorkerGroupSpecs):
			wg := s.WorkerGroupSpecs[i-1]
			params, pod, path = wg.RayStartParams, wg.Template, workerPath(i-1, "patch")
		default:
			continue
		}
		want := podGPUs(pod, g)
		value, set := params[ParamNumGPUs]
		if n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64); set && (err != nil || n != want) {
			label := "head"
			if !g.Head {
				label = "worker group " + quote(g.Name)
			}
			diags.AddError(path, "num-gpus contradicts the GPUs the pod gets", numGPUsDetail(label, value, want))
		}
	}
	return diags
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
