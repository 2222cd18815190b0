package tfconv

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	corev1 "k8s.io/api/core/v1"
)

// The kubernetes provider's typed kubernetes_deployment_v1 spells a pod's
// affinity as snake_case nested blocks, not in the API's camelCase JSON
// that the `affinity` outputs hold. This file
// gives the same node affinity in the shape of kubernetes_deployment_v1's
// documented `affinity` block, so `dynamic` blocks can copy it across:
//
//	affinity.node_affinity
//	  .required_during_scheduling_ignored_during_execution.node_selector_term
//	      .match_expressions / .match_fields { key, operator, values }
//	  .preferred_during_scheduling_ignored_during_execution { weight }
//	      .preference.match_expressions / .match_fields { key, operator, values }
//
// The value is a fully typed object, not a DynamicAttribute: every block
// below the top is a list (as kubernetes_deployment_v1's blocks are lists),
// empty where the affinity has nothing, never null or missing, so each
// `dynamic` block reads `for_each = <parent>.value.<block name>` with no
// try() or null check; its type is known even while the plan value is not,
// so a misspelt block name fails the plan instead of the apply; and
// `cond ? x : []` never meets the inconsistent tuple types a dynamic value
// would give. One
// type serves gpu_node_pool_policy and gpu_pod_placement alike.

// KubernetesV1AffinityDescription documents the attribute on the resource
// and the data source; source names the API-shaped attribute it mirrors,
// companions the node selector and tolerations that go with it.
func KubernetesV1AffinityDescription(source, companions string) string {
	return "The same node affinity as `" + source + "`, in the snake_case shape of " +
		"`kubernetes_deployment_v1`'s `affinity` block (hashicorp/kubernetes), as its documentation lists it: " +
		"`node_affinity`, `required_during_scheduling_ignored_during_execution`, `node_selector_term`, " +
		"`preferred_during_scheduling_ignored_during_execution` (`weight`, `preference`), `match_expressions` and " +
		"`match_fields` (`key`, `operator`, `values`). Every block is a list, empty where there is nothing, for " +
		"`dynamic` blocks: `for_each = <parent>.value.<block name>`, starting with `for_each = " +
		"<this attribute>[*]` for `affinity` itself. Null when there is no affinity. Pass it on together with " +
		companions + ": without it a pod can land on a MIG or shared pool."
}

func listOf(elem attr.Type) types.ListType { return types.ListType{ElemType: elem} }

var (
	kubernetesV1RequirementType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"key": types.StringType, "operator": types.StringType, "values": listOf(types.StringType),
	}}
	kubernetesV1TermType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"match_expressions": listOf(kubernetesV1RequirementType),
		"match_fields":      listOf(kubernetesV1RequirementType),
	}}
	kubernetesV1NodeAffinityType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"required_during_scheduling_ignored_during_execution": listOf(types.ObjectType{AttrTypes: map[string]attr.Type{
			"node_selector_term": listOf(kubernetesV1TermType),
		}}),
		"preferred_during_scheduling_ignored_during_execution": listOf(types.ObjectType{AttrTypes: map[string]attr.Type{
			"weight": types.Int64Type, "preference": listOf(kubernetesV1TermType),
		}}),
	}}
	// kubernetesV1AffinityAttrTypes is the `affinity` block itself.
	KubernetesV1AffinityAttrTypes = map[string]attr.Type{"node_affinity": listOf(kubernetesV1NodeAffinityType)}
)

// The Go mirror of those types, for types.ObjectValueFrom. Every slice
// must be non-nil: the framework turns a nil slice into a null list, and
// for_each refuses null.
type kubernetesV1Affinity struct {
	NodeAffinity []kubernetesV1NodeAffinity `tfsdk:"node_affinity"`
}

type kubernetesV1NodeAffinity struct {
	Required  []kubernetesV1NodeSelector  `tfsdk:"required_during_scheduling_ignored_during_execution"`
	Preferred []kubernetesV1PreferredTerm `tfsdk:"preferred_during_scheduling_ignored_during_execution"`
}

type kubernetesV1NodeSelector struct {
	Terms []kubernetesV1Term `tfsdk:"node_selector_term"`
}

type kubernetesV1PreferredTerm struct {
	Weight     int64              `tfsdk:"weight"`
	Preference []kubernetesV1Term `tfsdk:"preference"`
}

type kubernetesV1Term struct {
	MatchExpressions []kubernetesV1Requirement `tfsdk:"match_expressions"`
	MatchFields      []kubernetesV1Requirement `tfsdk:"match_fields"`
}

type kubernetesV1Requirement struct {
	Key      string   `tfsdk:"key"`
	Operator string   `tfsdk:"operator"`
	Values   []string `tfsdk:"values"`
}

// KubernetesV1AffinityFrom gives a in kubernetes_deployment_v1's shape,
// null when a has no node affinity. Pod affinity and anti-affinity have no place
// in it (the rendered placements never carry them); rather than drop them,
// which would misplace pods silently, they are an error.
func KubernetesV1AffinityFrom(ctx context.Context, a *corev1.Affinity) (types.Object, diag.Diagnostics) {
	var diags diag.Diagnostics
	null := types.ObjectNull(KubernetesV1AffinityAttrTypes)
	if a == nil {
		return null, diags
	}
	if a.PodAffinity != nil || a.PodAntiAffinity != nil {
		diags.AddError("Cannot give the affinity in kubernetes_deployment_v1's shape",
			"It holds pod affinity, which kubernetes_v1_affinity does not carry; this is a bug.")
		return null, diags
	}
	if a.NodeAffinity == nil {
		return null, diags
	}
	shape := kubernetesV1Affinity{NodeAffinity: []kubernetesV1NodeAffinity{kubernetesV1NodeAffinityFrom(a.NodeAffinity)}}
	return types.ObjectValueFrom(ctx, KubernetesV1AffinityAttrTypes, shape)
}

func kubernetesV1NodeAffinityFrom(n *corev1.NodeAffinity) kubernetesV1NodeAffinity {
	out := kubernetesV1NodeAffinity{
		Required:  []kubernetesV1NodeSelector{},
		Preferred: make([]kubernetesV1PreferredTerm, 0, len(n.PreferredDuringSchedulingIgnoredDuringExecution)),
	}
	if r := n.RequiredDuringSchedulingIgnoredDuringExecution; r != nil {
		out.Required = append(out.Required, kubernetesV1NodeSelector{Terms: kubernetesV1Terms(r.NodeSelectorTerms)})
	}
	for _, p := range n.PreferredDuringSchedulingIgnoredDuringExecution {
		out.Preferred = append(out.Preferred, kubernetesV1PreferredTerm{
			Weight:     int64(p.Weight),
			Preference: []kubernetesV1Term{kubernetesV1TermFrom(p.Preference)},
		})
	}
	return out
}

func kubernetesV1Terms(terms []corev1.NodeSelectorTerm) []kubernetesV1Term {
	out := make([]kubernetesV1Term, 0, len(terms))
	for _, t := range terms {
		out = append(out, kubernetesV1TermFrom(t))
	}
	return out
}

func kubernetesV1TermFrom(t corev1.NodeSelectorTerm) kubernetesV1Term {
	return kubernetesV1Term{
		MatchExpressions: kubernetesV1Requirements(t.MatchExpressions),
		MatchFields:      kubernetesV1Requirements(t.MatchFields),
	}
}

func kubernetesV1Requirements(reqs []corev1.NodeSelectorRequirement) []kubernetesV1Requirement {
	out := make([]kubernetesV1Requirement, 0, len(reqs))
	for _, r := range reqs {
		out = append(out, kubernetesV1Requirement{
			Key: r.Key, Operator: string(r.Operator), Values: append([]string{}, r.Values...),
		})
	}
	return out
}

// AffinityFromDynamic reads back an `affinity` output (the API's JSON shape
// held in a dynamic value); null gives nil. Unknown fields are an error, so
// nothing in it can go missing on the way.
func AffinityFromDynamic(v types.Dynamic) (*corev1.Affinity, error) {
	plain, err := PlainFrom(v)
	if err != nil || plain == nil {
		return nil, err
	}
	raw, err := json.Marshal(plain)
	if err != nil {
		return nil, err
	}
	decoder := json.NewDecoder(bytes.NewReader(raw))
	decoder.DisallowUnknownFields()
	var a corev1.Affinity
	if err := decoder.Decode(&a); err != nil {
		return nil, fmt.Errorf("affinity is not a Kubernetes Affinity: %w", err)
	}
	return &a, nil
}
