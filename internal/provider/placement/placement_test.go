package placement

import (
	"encoding/json"
	"math/big"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/gpuintent"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// placementRequests are GPU requests of every kind the rules distinguish,
// each on the clouds that offer it.
var placementRequests = []struct {
	clouds []string
	gpu    spec.GPU
	spot   bool
}{
	{[]string{"gke", "aks", "eks", "eks-auto", "karpenter", "generic"}, spec.GPU{Count: 1}, false},
	{[]string{"gke", "gke-autopilot", "eks", "karpenter", "eks-auto"}, spec.GPU{Count: 2, Accelerator: "l4"}, true},
	{[]string{"gke", "aks", "eks", "karpenter", "generic"}, spec.GPU{Count: 1, Accelerator: "a100-80gb", Partition: "2g.20gb"}, false},
	{[]string{"generic", "aks"}, spec.GPU{Count: 1, Accelerator: "a100-40gb", Partition: "1g.5gb", MIGStrategy: spec.MIGStrategyMixed}, false},
	{[]string{"gke", "generic", "eks"}, spec.GPU{Count: 1, Accelerator: "t4", Sharing: spec.SharingTimeSlicing}, false},
	{[]string{"gke", "aks", "generic"}, spec.GPU{Count: 1, Accelerators: []string{"h100-80gb", "a100-80gb"}}, false},
}

// The functions and the data source place a GPU request exactly as
// gpu_workload places the same gpu block: node selector, affinity,
// tolerations, the GPU resources and the driver environment of the
// rendered Deployment.
func TestPodPlacementMatchesWorkload(t *testing.T) {
	for _, r := range placementRequests {
		for _, cloud := range r.clouds {
			w := spec.Workload{Name: "gpu", Kind: spec.KindDeployment, Cloud: cloud, Image: "img", GPU: r.gpu, Spot: r.spot}
			rendered, diags := workload.ResolveAndRender(w, workload.Options{SkipManifest: true})
			if diags.HasError() {
				t.Fatalf("%s %+v: gpu_workload refuses it: %v", cloud, r.gpu, diags)
			}
			placed, diags := placeRequest(cloud, gpuRequest{GPU: r.gpu, Spot: r.spot})
			if diags.HasError() {
				t.Fatalf("%s %+v: placement refuses what gpu_workload accepts: %v", cloud, r.gpu, diags)
			}
			pod := rendered.PodTemplate().Spec
			container := pod.Containers[0]
			for what, pair := range map[string][2]any{
				"nodeSelector": {placed.NodeSelector, pod.NodeSelector},
				"affinity":     {placed.Affinity, pod.Affinity},
				"tolerations":  {placed.Tolerations, pod.Tolerations},
				"gpu limits":   {extendedOnly(placed.Resources.Limits), extendedOnly(container.Resources.Limits)},
				"gpu requests": {extendedOnly(placed.Resources.Requests), extendedOnly(container.Resources.Requests)},
				"env":          {envList(placed.Env), container.Env},
			} {
				if !reflect.DeepEqual(jsonOf(t, pair[0]), jsonOf(t, pair[1])) {
					t.Errorf("%s %+v: %s differs:\nfunction: %s\nworkload: %s", cloud, r.gpu, what, jsonOf(t, pair[0]), jsonOf(t, pair[1]))
				}
			}
		}
	}
}

func extendedOnly(list corev1.ResourceList) corev1.ResourceList {
	out := corev1.ResourceList{}
	for name, q := range list {
		if strings.Contains(string(name), "/") {
			out[name] = q
		}
	}
	return out
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(raw); s != "null" && s != "{}" && s != "[]" {
		return s
	}
	return ""
}

// A request object is read strictly: unknown keys and wrong types are
// errors that say what is allowed, and numbers stay integers.
func TestDecodeGPURequest(t *testing.T) {
	obj := func(attrs map[string]attr.Value) types.Dynamic {
		types_ := map[string]attr.Type{}
		for k, v := range attrs {
			types_[k] = v.Type(t.Context())
		}
		o, diags := types.ObjectValue(types_, attrs)
		if diags.HasError() {
			t.Fatal(diags)
		}
		return types.DynamicValue(o)
	}
	got, err := gpuRequestFromValue(obj(map[string]attr.Value{
		"accelerator": types.StringValue("l4"), "count": types.NumberValue(bigInt(2)), "spot": types.BoolValue(true),
	}))
	if err != nil || got.GPU.Accelerator != "l4" || got.GPU.Count != 2 || !got.Spot {
		t.Fatalf("decode = %+v, %v", got, err)
	}
	for name, tc := range map[string]struct {
		value types.Dynamic
		want  string
	}{
		"unknown key":   {obj(map[string]attr.Value{"count": types.NumberValue(bigInt(1)), "gpus": types.NumberValue(bigInt(1))}), `unknown key "gpus". Allowed: "count"`},
		"fraction":      {obj(map[string]attr.Value{"count": types.NumberValue(bigFloat(1.5))}), "count"},
		"no count":      {obj(map[string]attr.Value{"accelerator": types.StringValue("l4")}), "count is required"},
		"not an object": {types.DynamicValue(types.StringValue("l4")), "must be an object"},
	} {
		if _, err := gpuRequestFromValue(tc.value); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to mention %q", name, err, tc.want)
		}
	}
}

func bigInt(n int64) *big.Float { return new(big.Float).SetInt64(n) }

func bigFloat(f float64) *big.Float { return big.NewFloat(f) }

// The request object is the gpu block: its keys are the block's attributes
// and nested blocks (gpuintent, the one declaration) plus spot, node_pool
// and pods (the GPU network's pod count), and the struct that decodes it has a field for each, the dra
// block's attributes included. A GPU attribute added to the block without
// its field here fails this test.
func TestRequestKeysAreTheGPUBlocks(t *testing.T) {
	names, nested := gpuintent.Names()
	want := append(slices.Clone(names), "spot", "node_pool", "pods")
	if got := jsonNames(reflect.TypeFor[gpuRequestJSON]()); !sameSet(got, want) {
		t.Errorf("gpuRequestJSON decodes %v; the gpu block, spot, node_pool and pods are %v", got, want)
	}
	dra, _ := reflect.TypeFor[gpuRequestJSON]().FieldByName("DRA")
	if got := jsonNames(dra.Type.Elem()); !sameSet(got, nested["dra"]) {
		t.Errorf("the dra object decodes %v; the gpu block's dra block has %v", got, nested["dra"])
	}
}

func jsonNames(t reflect.Type) []string {
	var names []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		names = append(names, name)
	}
	return names
}

func sameSet(a, b []string) bool {
	a, b = slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b))
	return slices.Equal(a, b)
}
