package clouds_test

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

func TestParseCloud(t *testing.T) {
	for _, name := range clouds.Names() {
		if c, err := clouds.Parse(name); err != nil || string(c) != name {
			t.Errorf("ParseCloud(%q) = %q, %v", name, c, err)
		}
	}
	for _, bad := range []string{"", "GKE", " gke", "gcp"} {
		if _, err := clouds.Parse(bad); err == nil {
			t.Errorf("ParseCloud(%q) must fail", bad)
		}
	}
	if got := clouds.Names(); !slices.Equal(got, []string{"gke", "gke-autopilot", "aks", "eks", "eks-auto", "karpenter", "generic"}) {
		t.Errorf("CloudNames() = %v", got)
	}
}

func TestCloudAccelerators(t *testing.T) {
	cases := map[spec.Cloud]struct{ has, lacks []string }{
		spec.CloudGKE:       {has: []string{"t4", "l4", "a100-40gb", "h100-80gb", "h200", "b200"}, lacks: []string{"a10g", "l40s", "a30", "v100-32gb"}},
		spec.CloudAKS:       {has: []string{"t4", "a100-80gb", "h100-80gb"}, lacks: []string{"a10g", "l4", "l40s", "b200"}},
		spec.CloudEKS:       {has: []string{"a10g", "l40s", "v100-32gb"}, lacks: []string{"a30"}},
		spec.CloudKarpenter: {has: []string{"a10g", "b200"}, lacks: []string{"a30"}},
		spec.CloudGeneric:   {has: catalog.AcceleratorNames()},
	}
	for cloud, want := range cases {
		got := clouds.Lookup(cloud).Accelerators()
		for _, name := range want.has {
			if !slices.Contains(got, name) {
				t.Errorf("%s should offer %s", cloud, name)
			}
		}
		for _, name := range want.lacks {
			if slices.Contains(got, name) {
				t.Errorf("%s should not offer %s", cloud, name)
			}
		}
	}
	if clouds.Lookup("nope").Accelerators() != nil {
		t.Error("unknown cloud offers nothing")
	}
}

func TestPreferenceWeightsDescend(t *testing.T) {
	for total := 1; total <= len(catalog.Table); total++ {
		prev := int32(101)
		for i := range total {
			w := clouds.PreferenceWeight(i, total)
			if w >= prev || w < 1 || w > 100 {
				t.Fatalf("total %d: weight[%d] = %d after %d", total, i, w, prev)
			}
			prev = w
		}
	}
	if got := []int32{clouds.PreferenceWeight(0, 3), clouds.PreferenceWeight(1, 3), clouds.PreferenceWeight(2, 3)}; !slices.Equal(got, []int32{100, 80, 60}) {
		t.Errorf("weights = %v", got)
	}
}

func TestNodeSchedulingSingleValueUsesNodeSelector(t *testing.T) {
	p := clouds.NewPlacement(clouds.ResourceNvidiaGPU)
	p.AcceleratorTerms = [][]clouds.LabelRequirement{{{Key: "k", Values: []string{"v"}}}}
	selector, affinity := clouds.NodeScheduling(p)
	if selector["k"] != "v" || affinity != nil {
		t.Fatalf("single value must be a nodeSelector: %v %v", selector, affinity)
	}
	p.AcceleratorTerms = [][]clouds.LabelRequirement{{{Key: "k", Values: []string{"a", "b"}}}}
	selector, affinity = clouds.NodeScheduling(p)
	if selector != nil || affinity == nil {
		t.Fatalf("several values must be affinity: %v %v", selector, affinity)
	}
}

func TestNodeSchedulingCollapsesSharedKey(t *testing.T) {
	p := clouds.NewPlacement(clouds.ResourceNvidiaGPU)
	p.AcceleratorTerms = [][]clouds.LabelRequirement{
		{{Key: "k", Values: []string{"a"}}},
		{{Key: "k", Values: []string{"b", "a"}}},
	}
	_, affinity := clouds.NodeScheduling(p)
	terms := affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	want := corev1.NodeSelectorRequirement{Key: "k", Operator: corev1.NodeSelectorOpIn, Values: []string{"a", "b"}}
	if len(terms) != 1 || len(terms[0].MatchExpressions) != 1 || !slices.Equal(terms[0].MatchExpressions[0].Values, want.Values) {
		t.Fatalf("terms = %+v", terms)
	}
	if n := len(affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution); n != 2 {
		t.Fatalf("want 2 preferred terms, got %d", n)
	}
}
