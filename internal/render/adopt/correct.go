package adopt

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// correct makes in the live object what the GPU rules require and it
// lacks, and says why for each change. What the object adds beyond the
// rules (its own selectors, tolerations, affinity) stays.
func correct(lw liveWorkload, gpuIndex int, cloud string, r *workload.Rendered) (workload.Object, []string) {
	want := r.PodTemplate().Spec
	pod := &lw.template.Spec
	var fixes []string
	fixes = append(fixes, correctGPURequest(&pod.Containers[gpuIndex], want.Containers[0])...)
	fixes = append(fixes, correctEnv(&pod.Containers[gpuIndex], want.Containers[0])...)
	for _, k := range slices.Sorted(maps.Keys(r.NodeSelector)) {
		if v := r.NodeSelector[k]; pod.NodeSelector[k] != v {
			if pod.NodeSelector == nil {
				pod.NodeSelector = map[string]string{}
			}
			pod.NodeSelector[k] = v
			fixes = append(fixes, fmt.Sprintf("adds nodeSelector %s=%s, the node label %s's rules select this GPU by", k, v, cloud))
		}
	}
	for _, t := range r.Tolerations {
		if !slices.ContainsFunc(pod.Tolerations, func(u corev1.Toleration) bool { return equality.Semantic.DeepEqual(t, u) }) {
			pod.Tolerations = append(pod.Tolerations, t)
			fixes = append(fixes, fmt.Sprintf("adds the toleration %s: the GPU nodes carry that taint, and a pod that "+
				"does not tolerate it exactly stays Pending", workload.DescribeToleration(t)))
		}
	}
	if !workload.RequiredAffinityKept(r.Affinity, pod.Affinity) {
		requireAffinity(pod, r.Affinity)
		fixes = append(fixes, "adds the required node affinity "+describeTerms(workload.RequiredTerms(r.Affinity))+", which "+cloud+
			"'s rules require for this GPU request: without it the pod can land on a node that gives it other hardware, "+
			"a MIG slice or a shared GPU")
	}
	if want.HostIPC && !pod.HostIPC {
		pod.HostIPC = true
		fixes = append(fixes, "sets hostIPC: the MPS daemon serves the pod's GPU through host IPC")
	}
	if gpuIndex > 0 {
		gpu := pod.Containers[gpuIndex]
		pod.Containers = append([]corev1.Container{gpu}, slices.Delete(pod.Containers, gpuIndex, gpuIndex+1)...)
		fixes = append(fixes, fmt.Sprintf("moves container %q first, where the provider keeps the GPU container", gpu.Name))
	}
	return lw.obj, fixes
}

// correctGPURequest: the GPU is asked for in limits, with an equal request.
func correctGPURequest(c *corev1.Container, want corev1.Container) []string {
	var fixes []string
	for _, part := range []struct {
		name string
		list *corev1.ResourceList
		want corev1.ResourceList
	}{{"limits", &c.Resources.Limits, want.Resources.Limits}, {"requests", &c.Resources.Requests, want.Resources.Requests}} {
		for name, q := range part.want {
			if !strings.HasPrefix(string(name), "nvidia.com/") {
				continue
			}
			got, ok := (*part.list)[name]
			if ok && got.Cmp(q) == 0 || !ok && part.name == "requests" {
				continue // a missing request is defaulted to the limit on every pod
			}
			if *part.list == nil {
				*part.list = corev1.ResourceList{}
			}
			(*part.list)[name] = q
			fixes = append(fixes, fmt.Sprintf("sets resources.%s[%q] = %s: a GPU is asked for in limits, with an equal "+
				"request (extended resources are never overcommitted)", part.name, name, q.String()))
		}
	}
	return fixes
}

// correctEnv adds the cloud's driver environment the container lacks.
func correctEnv(c *corev1.Container, want corev1.Container) []string {
	var fixes []string
	for _, e := range want.Env {
		if e.ValueFrom != nil || slices.ContainsFunc(c.Env, func(have corev1.EnvVar) bool { return have.Name == e.Name }) {
			continue
		}
		c.Env = append(c.Env, e)
		fixes = append(fixes, fmt.Sprintf("adds env %s=%s, which the cloud's GPU driver needs in the container", e.Name, e.Value))
	}
	return fixes
}

// requireAffinity ANDs the placement's required terms into the pod's own:
// each of the pod's terms becomes one term per placement term.
func requireAffinity(pod *corev1.PodSpec, want *corev1.Affinity) {
	wantTerms := workload.RequiredTerms(want)
	have := workload.RequiredTerms(pod.Affinity)
	var terms []corev1.NodeSelectorTerm
	if len(have) == 0 {
		for _, w := range wantTerms {
			terms = append(terms, *w.DeepCopy())
		}
	}
	for _, h := range have {
		for _, w := range wantTerms {
			merged := *h.DeepCopy()
			for _, r := range w.MatchExpressions {
				if !slices.ContainsFunc(merged.MatchExpressions, func(x corev1.NodeSelectorRequirement) bool { return equality.Semantic.DeepEqual(x, r) }) {
					merged.MatchExpressions = append(merged.MatchExpressions, *r.DeepCopy())
				}
			}
			merged.MatchFields = append(merged.MatchFields, w.MatchFields...)
			terms = append(terms, merged)
		}
	}
	if pod.Affinity == nil {
		pod.Affinity = &corev1.Affinity{}
	}
	if pod.Affinity.NodeAffinity == nil {
		pod.Affinity.NodeAffinity = &corev1.NodeAffinity{}
	}
	pod.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{NodeSelectorTerms: terms}
}

func describeTerms(terms []corev1.NodeSelectorTerm) string {
	parts := make([]string, 0, len(terms))
	for _, t := range terms {
		exprs := make([]string, 0, len(t.MatchExpressions))
		for _, r := range t.MatchExpressions {
			exprs = append(exprs, strings.TrimSpace(r.Key+" "+string(r.Operator)+" "+strings.Join(r.Values, ",")))
		}
		parts = append(parts, "("+strings.Join(exprs, " and ")+")")
	}
	return strings.Join(parts, " or ")
}
