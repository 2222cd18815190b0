package gpuraycluster

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/render/ray"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// Adopting a hand-written RayCluster, RayJob or RayService: what import
// can read from the object alone. Per group: its name, replicas, image,
// CPU and memory requests, environment, start parameters (without a
// num-gpus that equals the GPU limit, which the provider writes), and a
// GPU count from an nvidia.com/gpu limit. What the object cannot say is
// listed as a warning: the node pool (selectors are the pool's and the
// cloud's), MIG, sharing and DRA. The next plan shows, as the manifests'
// diff, what the provider's render changes.

// adoptSpec infers the intent of a live Ray object.
func adoptSpec(live *unstructured.Unstructured, defaultCloud string, diags *diag.Diagnostics) (clusterSpec, bool) {
	kind := live.GetKind()
	cs, err := liveClusterSpec(live, kind)
	if err != nil || cs == nil {
		diags.AddError("Cannot adopt the Ray object", fmt.Sprintf("%s %s/%s has no readable cluster spec: %v", kind,
			live.GetNamespace(), live.GetName(), err))
		return clusterSpec{}, false
	}
	c := spec.RayCluster{Name: live.GetName(), Namespace: live.GetNamespace(), RayVersion: cs.RayVersion, Cloud: defaultCloud}
	if c.Cloud == "" {
		c.Cloud = string(spec.CloudGeneric)
	}
	head := cs.HeadGroupSpec
	c.Image = firstImage(head.Template)
	var notes []string
	c.Head, notes = adoptGroup("head", head.Template, head.RayStartParams, c.Image)
	for _, wg := range cs.WorkerGroupSpecs {
		g, more := adoptGroup("worker group "+strconv.Quote(wg.GroupName), wg.Template, wg.RayStartParams, c.Image)
		g.Name, g.Replicas, g.MinReplicas, g.MaxReplicas = wg.GroupName, wg.Replicas, wg.MinReplicas, wg.MaxReplicas
		c.WorkerGroups = append(c.WorkerGroups, g)
		notes = append(notes, more...)
	}
	if cs.EnableInTreeAutoscaling != nil && *cs.EnableInTreeAutoscaling {
		c.Autoscaling = &spec.RayAutoscaling{}
		if o := cs.AutoscalerOptions; o != nil {
			c.Autoscaling.IdleTimeoutSeconds = o.IdleTimeoutSeconds
		}
	} else {
		for i := range c.WorkerGroups {
			c.WorkerGroups[i].MinReplicas, c.WorkerGroups[i].MaxReplicas = nil, nil // the render writes replicas for both
		}
	}
	c.Queue = live.GetLabels()["kueue.x-k8s.io/queue-name"]
	adoptJobOrServe(live, &c)
	diags.AddWarning("Adopted a Ray object gpu_ray_cluster did not create", fmt.Sprintf("%s %s/%s has no %s annotation, "+
		"so its intent was inferred from the object: cloud %q (the provider's default_cloud, or generic), each group's "+
		"GPU count from its nvidia.com/gpu limit.%s\n\nRun terraform plan: the manifests' diff is what the next apply "+
		"changes (the provider's selectors, tolerations, /dev/shm and num-gpus).", kind, c.Namespace, c.Name,
		specAnnotation, c.Cloud, bulleted(notes)))
	return clusterSpec{Cluster: c}, true
}

// adoptGroup reads one group's pod template.
func adoptGroup(label string, t corev1.PodTemplateSpec, params map[string]string, image string) (spec.RayGroup, []string) {
	var g spec.RayGroup
	var notes []string
	if len(t.Spec.Containers) == 0 {
		return g, []string{label + ": no container"}
	}
	ctr := t.Spec.Containers[0] // KubeRay runs ray start in the first container
	if ctr.Image != image {
		g.Image = ctr.Image
	}
	if q, ok := ctr.Resources.Requests[corev1.ResourceCPU]; ok {
		g.CPU = q.String()
	}
	if q, ok := ctr.Resources.Limits[corev1.ResourceMemory]; ok {
		g.Memory = q.String()
	} else if q, ok := ctr.Resources.Requests[corev1.ResourceMemory]; ok {
		g.Memory = q.String()
	}
	for _, e := range ctr.Env {
		if e.ValueFrom == nil && e.Name != ray.EnvVisibleDevices {
			if g.Env == nil {
				g.Env = map[string]string{}
			}
			g.Env[e.Name] = e.Value
		}
	}
	gpus := int64(0)
	for name, q := range ctr.Resources.Limits {
		switch {
		case name == "nvidia.com/gpu":
			gpus = q.Value()
			g.GPU = &spec.GPU{Count: gpus}
		case strings.HasPrefix(string(name), "nvidia.com/"):
			notes = append(notes, fmt.Sprintf("%s: its %s limit (MIG or shared GPUs) is not adopted: add a gpu block with "+
				"partition or sharing, or a node_pool", label, name))
		}
	}
	if len(ctr.Resources.Claims) > 0 {
		notes = append(notes, label+": its DRA claim is not adopted: add a gpu block with dra, or a DRA node_pool")
	}
	if g.GPU != nil || len(t.Spec.NodeSelector) > 0 {
		notes = append(notes, label+": its node pool cannot be inferred from its selectors: set node_pool to the "+
			"gpu_node_pool_policy it runs on")
	}
	g.RayStartParams = adoptParams(params, gpus, label, &notes)
	return g, notes
}

// adoptParams keeps the start parameters but a num-gpus that equals the
// limits (the provider writes it); one that contradicts them is the
// correction the import lists.
func adoptParams(params map[string]string, gpus int64, label string, notes *[]string) map[string]string {
	out := maps.Clone(params)
	if v, ok := out[ray.ParamNumGPUs]; ok {
		if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err != nil || n != gpus {
			*notes = append(*notes, fmt.Sprintf("%s: num-gpus %q contradicts its %d GPUs; the next apply writes %d",
				label, v, gpus, gpus))
		}
		delete(out, ray.ParamNumGPUs)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// adoptJobOrServe reads a RayJob's job or a RayService's serve config.
func adoptJobOrServe(live *unstructured.Unstructured, c *spec.RayCluster) {
	str := func(path ...string) string { s, _, _ := unstructured.NestedString(live.Object, path...); return s }
	switch live.GetKind() {
	case kube.GVKRayJob.Kind:
		shutdown, _, _ := unstructured.NestedBool(live.Object, "spec", "shutdownAfterJobFinishes")
		c.Job = &spec.RayJobControls{Entrypoint: str("spec", "entrypoint"), RuntimeEnvYAML: str("spec", "runtimeEnvYAML"),
			ShutdownAfterJobFinishes: &shutdown}
		if shutdown {
			c.Job.ShutdownAfterJobFinishes = nil // the default
		}
	case kube.GVKRayService.Kind:
		c.Serve = &spec.RayServeControls{ConfigYAML: str("spec", "serveConfigV2")}
	}
}

func firstImage(t corev1.PodTemplateSpec) string {
	if len(t.Spec.Containers) == 0 {
		return ""
	}
	return t.Spec.Containers[0].Image
}

func bulleted(notes []string) string {
	if len(notes) == 0 {
		return ""
	}
	slices.Sort(notes)
	return "\n\nNot inferred:\n  - " + strings.Join(notes, "\n  - ")
}
