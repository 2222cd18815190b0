package placement

import (
	"context"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// The affinities render really produces, for pools on several clouds and
// for requests with a preference list (which adds preferred terms), reach
// kubernetes_v1_affinity whole: converted back to a corev1.Affinity they
// equal the original, and the exclusions that keep whole-GPU pods off MIG
// and shared nodes are there under kubernetes_deployment_v1's names.
func TestKubernetesV1Affinity_renderedAffinitiesRoundTrip(t *testing.T) {
	cases := map[string]struct {
		affinity *corev1.Affinity
		// excluded is a label key a NotIn requirement of the first
		// required term must name.
		excluded string
	}{
		"eks a100 pool": {affinity: poolAffinity(t, spec.PoolPolicy{Cloud: "eks", Accelerator: "a100-40gb", GPUsPerNode: 8}),
			excluded: spec.LabelMIGConfig},
		"aks a100 pool": {affinity: poolAffinity(t, spec.PoolPolicy{Cloud: "aks", Accelerator: "a100-80gb", GPUsPerNode: 1}),
			excluded: spec.LabelMIGConfig},
		"generic h100 pool": {affinity: poolAffinity(t, spec.PoolPolicy{Cloud: "generic", Accelerator: "h100-80gb", GPUsPerNode: 8}),
			excluded: "nvidia.com/gpu.sharing-strategy"},
		"karpenter l4 pool": {affinity: poolAffinity(t, spec.PoolPolicy{Cloud: "karpenter", Accelerator: "l4", GPUsPerNode: 4}),
			excluded: "nvidia.com/gpu.sharing-strategy"},
		"gke a100 MIG pool": {affinity: poolAffinity(t, spec.PoolPolicy{Cloud: "gke", Accelerator: "a100-40gb", GPUsPerNode: 8,
			Partition: "2g.10gb"})},
		"generic preference list": {affinity: requestAffinity(t, "generic", spec.GPU{Count: 1,
			Accelerators: []string{"h100-80gb", "a100-80gb"}}), excluded: spec.LabelMIGConfig},
		"aks preference list": {affinity: requestAffinity(t, "aks", spec.GPU{Count: 1,
			Accelerators: []string{"a100-80gb", "h100-nvl"}}), excluded: spec.LabelMIGConfig},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if c.affinity == nil {
				t.Fatal("render produced no affinity: the case tests nothing")
			}
			got := convertV1(t, c.affinity)
			acctest.AssertSameAffinity(t, c.affinity, affinityFromV1(t, got))
			if c.excluded != "" && !acctest.ExcludesLabel(affinityFromV1(t, got), c.excluded) {
				t.Errorf("no NotIn %s under node_selector_term.match_expressions: %v", c.excluded, got)
			}
		})
	}
}

// Every field of a node affinity survives, including those render never
// writes: several required terms, match_fields, every operator, preferred
// terms with their weights and match_fields, and empty values.
func TestKubernetesV1Affinity_everyFieldRoundTrips(t *testing.T) {
	req := func(key string, op corev1.NodeSelectorOperator, values ...string) corev1.NodeSelectorRequirement {
		return corev1.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
	}
	affinity := &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
			{
				MatchExpressions: []corev1.NodeSelectorRequirement{req("a", corev1.NodeSelectorOpIn, "x", "y"),
					req("b", corev1.NodeSelectorOpNotIn, "z"), req("c", corev1.NodeSelectorOpExists)},
				MatchFields: []corev1.NodeSelectorRequirement{req("metadata.name", corev1.NodeSelectorOpIn, "node-1")},
			},
			{
				MatchExpressions: []corev1.NodeSelectorRequirement{req("d", corev1.NodeSelectorOpDoesNotExist),
					req("e", corev1.NodeSelectorOpGt, "3"), req("f", corev1.NodeSelectorOpLt, "9")},
			},
			{MatchFields: []corev1.NodeSelectorRequirement{req("metadata.name", corev1.NodeSelectorOpNotIn, "node-2", "node-3")}},
		}},
		PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{
			{Weight: 100, Preference: corev1.NodeSelectorTerm{
				MatchExpressions: []corev1.NodeSelectorRequirement{req("g", corev1.NodeSelectorOpIn, "1")}}},
			{Weight: 7, Preference: corev1.NodeSelectorTerm{
				MatchFields: []corev1.NodeSelectorRequirement{req("metadata.name", corev1.NodeSelectorOpIn, "node-4")}}},
		},
	}}
	acctest.AssertSameAffinity(t, affinity, affinityFromV1(t, convertV1(t, affinity)))

	preferredOnly := &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		PreferredDuringSchedulingIgnoredDuringExecution: affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
	}}
	acctest.AssertSameAffinity(t, preferredOnly, affinityFromV1(t, convertV1(t, preferredOnly)))
}

// The conversion knows every field of the node affinity types; a field a
// new Kubernetes release adds must be added to it (and to this list), or
// it would be dropped silently.
func TestKubernetesV1Affinity_knowsEveryNodeAffinityField(t *testing.T) {
	known := map[reflect.Type][]string{
		reflect.TypeFor[corev1.Affinity](): {"NodeAffinity", "PodAffinity", "PodAntiAffinity"}, // pod ones: an error
		reflect.TypeFor[corev1.NodeAffinity](): {"PreferredDuringSchedulingIgnoredDuringExecution",
			"RequiredDuringSchedulingIgnoredDuringExecution"},
		reflect.TypeFor[corev1.NodeSelector]():            {"NodeSelectorTerms"},
		reflect.TypeFor[corev1.NodeSelectorTerm]():        {"MatchExpressions", "MatchFields"},
		reflect.TypeFor[corev1.NodeSelectorRequirement](): {"Key", "Operator", "Values"},
		reflect.TypeFor[corev1.PreferredSchedulingTerm](): {"Preference", "Weight"},
	}
	for typ, want := range known {
		var got []string
		for i := range typ.NumField() {
			got = append(got, typ.Field(i).Name)
		}
		sort.Strings(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s has fields %v; the conversion knows %v", typ.Name(), got, want)
		}
	}
}

// The attribute's names are those of kubernetes_deployment_v1's affinity
// block as its documentation lists them (spec.template.spec.affinity).
func TestKubernetesV1Affinity_namesFollowKubernetesDeploymentV1(t *testing.T) {
	const term = "node_affinity.required_during_scheduling_ignored_during_execution.node_selector_term"
	const preference = "node_affinity.preferred_during_scheduling_ignored_during_execution.preference"
	var want []string
	for _, block := range []string{term, preference} {
		for _, list := range []string{"match_expressions", "match_fields"} {
			for _, leaf := range []string{"key", "operator", "values"} {
				want = append(want, block+"."+list+"."+leaf)
			}
		}
	}
	want = append(want, "node_affinity.preferred_during_scheduling_ignored_during_execution.weight")
	sort.Strings(want)
	got := leafPaths("", tfconv.KubernetesV1AffinityAttrTypes)
	sort.Strings(got)
	if !slices.Equal(got, want) {
		t.Errorf("attribute paths:\n got %v\nwant %v", got, want)
	}
}

// No affinity, or one without node affinity, is null; pod affinity, which
// the shape does not carry, is an error rather than dropped.
func TestKubernetesV1Affinity_nullAndRefused(t *testing.T) {
	ctx := context.Background()
	for name, a := range map[string]*corev1.Affinity{"nil": nil, "empty": {}} {
		got, diags := tfconv.KubernetesV1AffinityFrom(ctx, a)
		if diags.HasError() || !got.IsNull() {
			t.Errorf("%s: want null without error, got %v %v", name, got, diags)
		}
	}
	withPod := &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{}, PodAntiAffinity: &corev1.PodAntiAffinity{}}
	if _, diags := tfconv.KubernetesV1AffinityFrom(ctx, withPod); !diags.HasError() {
		t.Error("pod anti-affinity was dropped without an error")
	}
}

// The `affinity` output read back from its dynamic value gives the same
// shape as the affinity it was made from: what a refresh derives for a
// state written before kubernetes_v1_affinity existed is what a plan
// computes.
func TestKubernetesV1Affinity_fromStoredAffinity(t *testing.T) {
	original := requestAffinity(t, "gke", spec.GPU{Count: 1, Accelerators: []string{"l4", "a100-40gb"}})
	stored, err := tfconv.DynamicFrom(original)
	if err != nil {
		t.Fatal(err)
	}
	back, err := tfconv.AffinityFromDynamic(stored)
	if err != nil {
		t.Fatal(err)
	}
	acctest.AssertSameAffinity(t, original, back)
	if got, err := tfconv.AffinityFromDynamic(types.DynamicNull()); err != nil || got != nil {
		t.Errorf("null affinity: got %+v, %v", got, err)
	}
	typo, _ := tfconv.DynamicFrom(map[string]any{"nodeAfinity": map[string]any{}})
	if _, err := tfconv.AffinityFromDynamic(typo); err == nil {
		t.Error("an unknown field was dropped without an error")
	}
}

func poolAffinity(t *testing.T, p spec.PoolPolicy) *corev1.Affinity {
	t.Helper()
	p.Name = "pool"
	rendered, diags := pool.Render(p)
	if diags.HasError() || rendered == nil {
		t.Fatalf("render %+v: %v", p, diags)
	}
	return rendered.Affinity
}

func requestAffinity(t *testing.T, cloud string, gpu spec.GPU) *corev1.Affinity {
	t.Helper()
	placed, diags := placeRequest(cloud, gpuRequest{GPU: gpu})
	if diags.HasError() {
		t.Fatalf("place %+v on %s: %v", gpu, cloud, diags)
	}
	return placed.Affinity
}

// convertV1 converts a and checks what for_each needs: no null list
// anywhere in the value.
func convertV1(t *testing.T, a *corev1.Affinity) types.Object {
	t.Helper()
	got, diags := tfconv.KubernetesV1AffinityFrom(context.Background(), a)
	if diags.HasError() {
		t.Fatalf("conversion: %v", diags)
	}
	if got.IsNull() || got.IsUnknown() {
		t.Fatalf("conversion gave %v for %+v", got, a)
	}
	assertNoNullList(t, "kubernetes_v1_affinity", got)
	return got
}

func assertNoNullList(t *testing.T, at string, v attr.Value) {
	t.Helper()
	switch x := v.(type) {
	case types.Object:
		for name, child := range x.Attributes() {
			assertNoNullList(t, at+"."+name, child)
		}
	case types.List:
		if x.IsNull() || x.IsUnknown() {
			t.Errorf("%s is %v: for_each needs a list", at, x)
		}
		for i, child := range x.Elements() {
			assertNoNullList(t, at+"["+strconv.Itoa(i)+"]", child)
		}
	}
}

// affinityFromV1 reads kubernetes_v1_affinity back into a corev1.Affinity.
func affinityFromV1(t *testing.T, v types.Object) *corev1.Affinity {
	t.Helper()
	plain, err := tfconv.PlainFrom(v)
	if err != nil {
		t.Fatal(err)
	}
	return acctest.AffinityFromV1Plain(t, plain)
}

// leafPaths lists the dotted paths of every non-list-of-object leaf.
func leafPaths(prefix string, attrs map[string]attr.Type) []string {
	var out []string
	for name, typ := range attrs {
		at := strings.TrimPrefix(prefix+"."+name, ".")
		elem := typ
		if l, ok := typ.(types.ListType); ok {
			elem = l.ElemType
		}
		if obj, ok := elem.(types.ObjectType); ok {
			out = append(out, leafPaths(at, obj.AttrTypes)...)
			continue
		}
		out = append(out, at)
	}
	return out
}
