package pool

import (
	"reflect"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

func poolWorkload(edit func(w *spec.Workload)) spec.Workload {
	w := spec.Workload{Name: "w", Kind: spec.KindDeployment, Image: "img", GPU: spec.GPU{Count: 1}}
	edit(&w)
	return w
}

func TestApplyPoolConflicts(t *testing.T) {
	l4 := validPool()
	a100x2 := spec.PoolPolicy{Name: "a100", Cloud: "gke", Accelerator: "a100-40gb", GPUsPerNode: 2}
	timeSliced := poolWith(func(p *spec.PoolPolicy) { p.Sharing, p.Replicas = spec.SharingTimeSlicing, 4 })
	mig := spec.PoolPolicy{Name: "mig", Cloud: "eks", Accelerator: "a100-40gb", GPUsPerNode: 8, Partition: "2g.10gb"}
	balanced := spec.PoolPolicy{Name: "bal", Cloud: "generic", Accelerator: "a100-40gb", GPUsPerNode: 8, Partition: spec.PartitionAllBalanced, MIGStrategy: "mixed"}
	sharedMIG := spec.PoolPolicy{Name: "smig", Cloud: "generic", Accelerator: "a100-40gb", GPUsPerNode: 8, Partition: "1g.5gb", MIGStrategy: "mixed", Sharing: spec.SharingTimeSlicing, Replicas: 2}
	cases := []struct {
		name      string
		pool      spec.PoolPolicy
		workload  spec.Workload
		path      string
		substring string
	}{
		{"different accelerator", l4, poolWorkload(func(w *spec.Workload) { w.GPU.Accelerator = "a100-40gb" }), "gpu.accelerator", `node_pool "gpu" (l4 on gke) has NVIDIA L4 GPUs`},
		{"preference list without the pool's", l4, poolWorkload(func(w *spec.Workload) { w.GPU.Accelerators = []string{"t4", "a100-40gb"} }), "gpu.accelerators", `include "l4"`},
		{"more GPUs than a node has", a100x2, poolWorkload(func(w *spec.Workload) { w.GPU.Count = 4 }), "gpu.count", "has 2 GPUs per node"},
		{"two GPUs from a time-sliced pool", timeSliced, poolWorkload(func(w *spec.Workload) { w.GPU.Count = 2 }), "gpu.count", "shares each GPU among 4"},
		{"partition on a whole-GPU pool", a100x2, poolWorkload(func(w *spec.Workload) { w.GPU.Partition = "1g.5gb" }), "gpu.partition", "does not partition its GPUs"},
		{"partition the pool does not have", mig, poolWorkload(func(w *spec.Workload) { w.GPU.Partition = "3g.20gb" }), "gpu.partition", `offers "2g.10gb"`},
		{"balanced pool needs a choice", balanced, poolWorkload(func(w *spec.Workload) {}), "gpu.partition", `one of "1g.5gb", "2g.10gb", "3g.20gb"`},
		{"more instances than a node has", mig, poolWorkload(func(w *spec.Workload) { w.GPU.Count = 25 }), "gpu.count", "has 24 2g.10gb instances (8 GPUs x 3)"},
		{"mig strategy differs", mig, poolWorkload(func(w *spec.Workload) { w.GPU.MIGStrategy = "mixed" }), "gpu.mig_strategy", `uses "single"`},
		{"sharing on an exclusive pool", l4, poolWorkload(func(w *spec.Workload) { w.GPU.Sharing = spec.SharingMPS }), "gpu.sharing", "whole GPUs or MIG instances"},
		{"sharing mode differs", timeSliced, poolWorkload(func(w *spec.Workload) { w.GPU.Sharing = spec.SharingMPS }), "gpu.sharing", `uses "time-slicing"`},
		{"clients differ", timeSliced, poolWorkload(func(w *spec.Workload) { w.GPU.MaxSharedClients = 8 }), "gpu.max_shared_clients", "among 4"},
		{"different cloud", l4, poolWorkload(func(w *spec.Workload) { w.Cloud = "gke-autopilot" }), "cloud", `is on "gke"`},
		{"spot workload on on-demand pool", l4, poolWorkload(func(w *spec.Workload) { w.Spot = true }), "spot", "runs on-demand nodes"},
		{"dra", l4, poolWorkload(func(w *spec.Workload) { w.GPU.DRA = &spec.DRA{} }), "gpu.dra", "not DRA claims"},
		{"shared MIG pool", sharedMIG, poolWorkload(func(w *spec.Workload) {}), "node_pool", "never both"},
		{"invalid pool", spec.PoolPolicy{Name: "x", Cloud: "gke", Accelerator: "l4", GPUsPerNode: 3}, poolWorkload(func(w *spec.Workload) {}), "node_pool", "gpus_per_node: No machine"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, diags := Apply(c.workload, c.pool)
			rendertest.RequireDiag(t, diags, gpudiag.SeverityError, c.path, c.substring)
		})
	}
}

func TestApplyPoolFills(t *testing.T) {
	cases := []struct {
		name string
		pool spec.PoolPolicy
		in   spec.Workload
		want spec.GPU
		spot bool
	}{
		{"whole GPUs", validPool(), poolWorkload(func(w *spec.Workload) {}), spec.GPU{Count: 1, Accelerator: "l4"}, false},
		{"list narrows to the pool's model", validPool(), poolWorkload(func(w *spec.Workload) { w.GPU.Accelerators = []string{"t4", "l4"} }), spec.GPU{Count: 1, Accelerator: "l4"}, false},
		{"gke sharing selects the clients", poolWith(func(p *spec.PoolPolicy) { p.Sharing, p.Replicas, p.Spot = spec.SharingMPS, 6, true }),
			poolWorkload(func(w *spec.Workload) {}), spec.GPU{Count: 1, Accelerator: "l4", Sharing: spec.SharingMPS, MaxSharedClients: 6}, true},
		{"eks sharing has no clients label", spec.PoolPolicy{Name: "s", Cloud: "eks", Accelerator: "t4", GPUsPerNode: 1, Sharing: spec.SharingTimeSlicing, Replicas: 4},
			poolWorkload(func(w *spec.Workload) {}), spec.GPU{Count: 1, Accelerator: "t4", Sharing: spec.SharingTimeSlicing}, false},
		{"mig", spec.PoolPolicy{Name: "m", Cloud: "aks", Accelerator: "a100-80gb", GPUsPerNode: 1, Partition: "all-3g.40gb", MIGStrategy: "mixed"},
			poolWorkload(func(w *spec.Workload) { w.GPU.Count = 2 }), spec.GPU{Count: 2, Accelerator: "a100-80gb", Partition: "3g.40gb", MIGStrategy: "mixed"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, diags := Apply(c.in, c.pool)
			rendertest.RequireNoErrors(t, diags)
			if !reflect.DeepEqual(got.GPU, c.want) || got.Spot != c.spot || got.Cloud != c.pool.Cloud {
				t.Fatalf("got cloud %q spot %v gpu %+v, want cloud %q spot %v gpu %+v", got.Cloud, got.Spot, got.GPU, c.pool.Cloud, c.spot, c.want)
			}
			rendertest.RequireNoErrors(t, workload.Validate(got))
		})
	}
}

func TestApplyPoolDoesNotAliasInput(t *testing.T) {
	w := poolWorkload(func(w *spec.Workload) { w.GPU.Accelerators = []string{"l4"} })
	if _, diags := Apply(w, validPool()); diags.HasError() {
		t.Fatal(rendertest.FormatDiags(diags))
	}
	if !reflect.DeepEqual(w.GPU.Accelerators, []string{"l4"}) || w.GPU.Accelerator != "" {
		t.Fatalf("input workload was modified: %+v", w.GPU)
	}
}

func TestOnPoolAddsLabelsAndTolerations(t *testing.T) {
	p := spec.PoolPolicy{
		Labels: map[string]string{"example.com/team": "ml"},
		Taints: []spec.Taint{
			{Key: "example.com/team", Value: "ml", Effect: "NoSchedule"},
			{Key: "example.com/drain", Effect: "NoExecute"},
			{Key: "", Value: "ignored", Effect: "NoSchedule"},
		},
	}
	place := clouds.NewPlacement(clouds.ResourceNvidiaGPU)
	place.OnPool(p)
	if !reflect.DeepEqual(place.NodeSelector, map[string]string{"example.com/team": "ml"}) {
		t.Errorf("labels %v", place.NodeSelector)
	}
	want := []corev1.Toleration{
		{Key: "example.com/drain", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
		{Key: "example.com/team", Operator: corev1.TolerationOpEqual, Value: "ml", Effect: corev1.TaintEffectNoSchedule},
	}
	if !reflect.DeepEqual(place.Tolerations, want) {
		t.Errorf("tolerations\n got %v\nwant %v", place.Tolerations, want)
	}
	place.NodeSelector["x"] = "y"
	if _, leaked := p.Labels["x"]; leaked {
		t.Error("the placement aliases the policy's labels")
	}
	empty := clouds.NewPlacement(clouds.ResourceNvidiaGPU)
	empty.OnPool(spec.PoolPolicy{})
	if len(empty.NodeSelector) != 0 || empty.Tolerations != nil {
		t.Errorf("empty policy: %v %v", empty.NodeSelector, empty.Tolerations)
	}
}

// TestDevicePluginPoolStaysOffDRANodes: a generic device-plugin pool is told
// apart from a DRA pool of the same model only by the device-plugin switch,
// so its workloads must exclude the DRA nodes (from 1.36 a DRA class serves
// nvidia.com/gpu there); clouds with pool-name labels and DRA pools need no
// exclusion.
func TestDevicePluginPoolStaysOffDRANodes(t *testing.T) {
	exclusion := corev1.NodeSelectorRequirement{Key: spec.LabelDeployDevicePlugin, Operator: corev1.NodeSelectorOpNotIn,
		Values: []string{clouds.DeployDevicePluginOff}}
	cases := []struct {
		pool spec.PoolPolicy
		want bool
	}{
		{spec.PoolPolicy{Name: "h100", Cloud: "generic", Accelerator: "h100-80gb"}, true},
		{spec.PoolPolicy{Name: "h100", Cloud: "generic", Accelerator: "h100-80gb", GPUAllocation: spec.GPUAllocationDRA}, false},
		{spec.PoolPolicy{Name: "h100", Cloud: "eks", Accelerator: "h100-80gb"}, false},
		{spec.PoolPolicy{Name: "h100", Cloud: "gke", Accelerator: "h100-80gb"}, false},
	}
	for _, c := range cases {
		place := clouds.NewPlacement(clouds.ResourceNvidiaGPU)
		place.OnPool(c.pool)
		_, affinity := clouds.NodeScheduling(place)
		got := false
		if affinity != nil {
			for _, term := range affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
				got = slices.ContainsFunc(term.MatchExpressions, func(r corev1.NodeSelectorRequirement) bool {
					return reflect.DeepEqual(r, exclusion)
				})
			}
		}
		if got != c.want {
			t.Errorf("%s pool (%s): excludes DRA nodes = %v, want %v", c.pool.Cloud, c.pool.GPUAllocation, got, c.want)
		}
	}
}
