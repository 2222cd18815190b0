package workload

import (
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds/kindkit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// NVLink domains (issue #33): pods on several trays of an NVL72 rack share
// GPU memory over NVLink only through a ComputeDomain of NVIDIA's DRA driver
// (docs/design/dra.md §1.6). The workload renders the ComputeDomain; the
// driver's controller creates the channel's ResourceClaimTemplate, which the
// pods reference. The provider never writes that template, so it is neither
// rendered nor read back for drift.

// ComputeDomain's group, version and kind (resource.nvidia.com/v1beta1, namespaced).
const (
	ComputeDomainAPIVersion = "resource.nvidia.com/v1beta1"
	ComputeDomainKind       = "ComputeDomain"
)

// channelClaimName is the channel's claim inside the pod
// (pod.spec.resourceClaims and the container's resources.claims agree).
const channelClaimName = "channel"

// ChannelClaimTemplateName is the ResourceClaimTemplate the ComputeDomain
// controller creates for the workload's channel.
func ChannelClaimTemplateName(workloadName string) string { return workloadName + "-channel" }

// checkNVLinkDomain: a ComputeDomain joins nodes of one NVLink domain, so
// it needs an NVL72-class model and the pods in one clique. It reports
// whether the ComputeDomain is rendered.
func checkNVLinkDomain(w spec.Workload, kind kindkit.Kind, in clouds.GPUIntent, pool *spec.PoolPolicy, req *TopologyRequest, strict bool,
	diags *gpudiag.Diagnostics,
) bool {
	if w.Topology == nil || !w.Topology.NVLinkDomain {
		return false
	}
	ok := checkNVLinkAccelerator(in, pool, strict, diags)
	if req != nil && req.LevelLabel != clouds.LabelGFDClique {
		diags.AddError(topologyPath("nvlink_domain"), "An NVLink domain needs the clique level", "A ComputeDomain "+
			"joins nodes of one NVLink domain, and level "+strconv.Quote(w.Topology.Level)+" ("+req.LevelLabel+") does "+
			"not keep the pods in one. Allowed: level = \"clique\" (the node label "+clouds.LabelGFDClique+
			") with nvlink_domain, or no nvlink_domain.")
		ok = false
	}
	if pods, attr := topologyPods(kind, w); strict && pods == 1 && attr != "" {
		diags.AddWarning(topologyPath("nvlink_domain"), "An NVLink domain for one pod", "The workload runs one pod ("+
			attr+"), whose GPUs share NVLink within their node without a ComputeDomain. It matters from two pods up.")
	}
	return ok && req != nil
}

// checkNVLinkAccelerator: the pool's model, else every model the workload
// asks for, must be NVL72-class. "Any GPU" is refused once values are final.
func checkNVLinkAccelerator(in clouds.GPUIntent, pool *spec.PoolPolicy, strict bool, diags *gpudiag.Diagnostics) bool {
	var names []string
	if pool != nil && pool.Accelerator != "" {
		names = []string{pool.Accelerator}
	} else {
		for _, a := range in.Accelerators {
			names = append(names, a.Name)
		}
	}
	allowed := "Allowed: a workload on a node pool (or with gpu.accelerator) of " +
		gpudiag.QuoteList(catalog.NVLinkDomainAcceleratorNames()) + ", or no nvlink_domain."
	if len(names) == 0 {
		if strict {
			diags.AddError(topologyPath("nvlink_domain"), "An NVLink domain needs an NVL72 model", "nvlink_domain joins "+
				"NVLink domains that span nodes, which only rack-scale NVL72 systems have, and the workload names no "+
				"GPU model. "+allowed)
		}
		return !strict
	}
	for _, name := range names {
		if a := catalog.Find(name); a == nil || !a.NVLinkDomains {
			diags.AddError(topologyPath("nvlink_domain"), "No NVLink domain across nodes on "+name, "nvlink_domain joins "+
				"NVLink domains that span nodes, which only rack-scale NVL72 systems have; on "+strconv.Quote(name)+
				" NVLink ends at the node. "+allowed)
			return false
		}
	}
	return true
}

// computeDomain is the workload's ComputeDomain: named after it, one IMEX
// channel per pod (allocationMode Single, the CRD's default, written so the
// manifest says it). numNodes is deprecated, optional and 0 by default from
// the driver's v0.4.0 (still resource.nvidia.com/v1beta1 in v0.5.0, the
// CRD unchanged since v0.4.1), where 0 is the recommended value; the v25.x
// CRDs (v25.3.0 to v25.12.0) require the field, so it is written as 0,
// which every release accepts and v0.4.0 on would default to anyway.
func computeDomain(w spec.Workload) *unstructured.Unstructured {
	meta := ObjectMeta(w)
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": ComputeDomainAPIVersion,
		"kind":       ComputeDomainKind,
		"spec": map[string]any{
			"channel": map[string]any{
				"resourceClaimTemplate": map[string]any{"name": ChannelClaimTemplateName(w.Name)},
				"allocationMode":        "Single",
			},
			"numNodes": int64(0),
		},
	}}
	u.SetName(meta.Name)
	u.SetNamespace(meta.Namespace)
	u.SetLabels(meta.Labels)
	if len(meta.Annotations) > 0 {
		u.SetAnnotations(meta.Annotations)
	}
	return u
}

// addChannelClaim makes the pod claim the channel from the controller's
// template and gives it to the GPU container.
func addChannelClaim(pod *corev1.PodTemplateSpec, w spec.Workload) {
	template := ChannelClaimTemplateName(w.Name)
	pod.Spec.ResourceClaims = append(slices.Clone(pod.Spec.ResourceClaims),
		corev1.PodResourceClaim{Name: channelClaimName, ResourceClaimTemplateName: &template})
	name := ContainerName(w)
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		if c.Name == name {
			c.Resources.Claims = append(slices.Clone(c.Resources.Claims), corev1.ResourceClaim{Name: channelClaimName})
		}
	}
}
