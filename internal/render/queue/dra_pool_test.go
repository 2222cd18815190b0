package queue

import (
	"slices"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/dra"
	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

func draPoolID(name, accelerator, partition string) string {
	return pool.EncodeID(spec.PoolPolicy{Name: name, Cloud: "generic", Accelerator: accelerator, GPUsPerNode: 8,
		Partition: partition, GPUAllocation: spec.GPUAllocationDRA})
}

// A DRA pool's quota is in the resource Kueue counts the pool's
// DeviceClass as, in devices (GPUs, or MIG instances of the pool's one
// profile), and the queue says which mapping Kueue's configuration needs.
func TestDRAPoolFlavorQuotaIsInItsClassDevices(t *testing.T) {
	r := mustRender(t, teamQueue(
		spec.QueueFlavor{NodePool: draPoolID("dra-h100", "h100-80gb", ""), GPUs: 16, Nodes: 2},
		spec.QueueFlavor{NodePool: draPoolID("dra-a100", "a100-40gb", "3g.20gb"), MIGInstances: 16, Nodes: 8},
	))
	var covered []string
	for _, g := range r.ClusterQueue.Spec.ResourceGroups {
		covered = append(covered, resourceNames(g.CoveredResources)...)
	}
	for _, want := range []string{"dra-h100.gpu.gpuform.io/devices", "dra-a100.gpu.gpuform.io/devices"} {
		if !slices.Contains(covered, want) {
			t.Errorf("the ClusterQueue covers %v, want %s", covered, want)
		}
	}
	want := []dra.DeviceClassMapping{
		{Name: "dra-h100.gpu.gpuform.io/devices", DeviceClassNames: []string{"dra-h100.gpu.gpuform.io"}},
		{Name: "dra-a100.gpu.gpuform.io/devices", DeviceClassNames: []string{"dra-a100.gpu.gpuform.io"}},
	}
	if !slices.EqualFunc(r.DeviceClassMappings, want, func(a, b dra.DeviceClassMapping) bool {
		return a.Name == b.Name && slices.Equal(a.DeviceClassNames, b.DeviceClassNames)
	}) {
		t.Errorf("mappings %+v, want %+v", r.DeviceClassMappings, want)
	}
}

// A quota above what the DRA pool's nodes publish is refused as for any
// pool: 2 nodes of 8 H100s publish 16 devices.
func TestDRAPoolQuotaAboveItsDevicesIsRefused(t *testing.T) {
	diags := Validate(teamQueue(spec.QueueFlavor{NodePool: draPoolID("dra-h100", "h100-80gb", ""), GPUs: 17, Nodes: 2}), true)
	if !diags.HasError() {
		t.Fatalf("a quota of 17 devices on 2 nodes of 8 GPUs planned clean: %v", diags)
	}
}

// A workload on a DRA pool claims the pool's class; the queue check counts
// its devices against the flavor's quota in that resource.
func TestDRAWorkloadDemandIsItsClassDevices(t *testing.T) {
	p := spec.PoolPolicy{Name: "dra-h100", Cloud: "generic", Accelerator: "h100-80gb", GPUsPerNode: 8,
		GPUAllocation: spec.GPUAllocationDRA}
	w := spec.Workload{Name: "train", Namespace: "team", Kind: spec.KindJob, Image: "x", GPU: spec.GPU{Count: 4}}
	applied, diags := pool.Apply(w, p)
	if diags.HasError() {
		t.Fatal(diags)
	}
	rendered, diags := workload.ResolveAndRender(applied, workload.Options{})
	if diags.HasError() {
		t.Fatal(diags)
	}
	d := DemandOf(applied, rendered)
	if d.Resource != "dra-h100.gpu.gpuform.io/devices" || d.PerPod != 4 {
		t.Fatalf("demand %s x %d, want dra-h100.gpu.gpuform.io/devices x 4", d.Resource, d.PerPod)
	}
}
