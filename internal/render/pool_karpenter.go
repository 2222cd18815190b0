package render

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// karpenterNodePoolManifest mirrors the fields of a karpenter.sh/v1
// NodePool that a GPU pool sets. Karpenter's Go types are not a dependency
// of this module; the JSON names are Karpenter's (pkg/apis/v1/nodepool.go).
type karpenterNodePoolManifest struct {
	APIVersion string                `json:"apiVersion"`
	Kind       string                `json:"kind"`
	Metadata   karpenterMeta         `json:"metadata"`
	Spec       karpenterNodePoolSpec `json:"spec"`
}

type karpenterMeta struct {
	Name   string            `json:"name,omitempty"`
	Labels map[string]string `json:"labels,omitempty"`
}

type karpenterNodePoolSpec struct {
	Template karpenterTemplate `json:"template"`
}

type karpenterTemplate struct {
	Metadata *karpenterMeta        `json:"metadata,omitempty"` // nil without labels
	Spec     karpenterTemplateSpec `json:"spec"`
}

type karpenterTemplateSpec struct {
	NodeClassRef karpenterNodeClassRef            `json:"nodeClassRef"`
	Requirements []corev1.NodeSelectorRequirement `json:"requirements"`
	Taints       []corev1.Taint                   `json:"taints,omitempty"`
}

type karpenterNodeClassRef struct {
	Group string `json:"group"`
	Kind  string `json:"kind"`
	Name  string `json:"name"`
}

// karpenterNodePool renders the NodePool for self-managed Karpenter
// (EC2NodeClass) or EKS Auto Mode (NodeClass). The node class is a
// placeholder named "default": networking, AMI and IAM belong to the
// cluster, not to the GPU pool.
//
// Requirements are exactly the pool's cloud-set labels (instance GPU name,
// count and, where AWS uses one GPU name for two models, memory; capacity
// type; the GFD product for "single" MIG), each "In [value]". Karpenter
// only launches a node for a pod whose selectors its requirements and
// template labels satisfy, so deriving both from the labels the placement
// selects on keeps NodePool and workloads in step. A requirement on a key
// Karpenter does not know (nvidia.com/gpu.product) with one value is also
// applied as a node label at launch, until GPU Feature Discovery sets the
// same value.
func karpenterNodePool(pi poolIntent, labels, cloudSet map[string]string, taints []poolTaint) string {
	ref := karpenterNodeClassRef{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"}
	if pi.cloud == CloudEKSAuto {
		ref = karpenterNodeClassRef{Group: "eks.amazonaws.com", Kind: "NodeClass", Name: "default"}
	}
	np := karpenterNodePoolManifest{
		APIVersion: "karpenter.sh/v1",
		Kind:       "NodePool",
		Metadata:   karpenterMeta{Name: pi.name, Labels: map[string]string{LabelManagedBy: ManagedBy}},
		Spec: karpenterNodePoolSpec{Template: karpenterTemplate{
			Spec: karpenterTemplateSpec{
				NodeClassRef: ref,
				Requirements: karpenterRequirements(cloudSet),
				Taints:       taintList(taints),
			},
		}},
	}
	if len(labels) > 0 {
		np.Spec.Template.Metadata = &karpenterMeta{Labels: maps.Clone(labels)}
	}
	out, err := yaml.Marshal(np)
	if err != nil {
		return "" // unreachable: plain strings and maps always marshal
	}
	return string(out)
}

// karpenterRequirements turns cloud-set labels into NodePool requirements,
// sorted by key. karpenter.sh/nodepool is left out: Karpenter sets it and
// rejects it as a requirement.
func karpenterRequirements(cloudSet map[string]string) []corev1.NodeSelectorRequirement {
	var out []corev1.NodeSelectorRequirement
	for _, key := range slices.Sorted(maps.Keys(cloudSet)) {
		if key == karpenterLabelNodePool {
			continue
		}
		out = append(out, corev1.NodeSelectorRequirement{
			Key: key, Operator: corev1.NodeSelectorOpIn, Values: []string{cloudSet[key]},
		})
	}
	return out
}
