package queue

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/dra"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

func draPool(name, accelerator, partition string) spec.PoolPolicy {
	return pool.CanonicalPool(spec.PoolPolicy{Name: name, Cloud: "generic", Accelerator: accelerator, GPUsPerNode: 8,
		Partition: partition, GPUAllocation: spec.GPUAllocationDRA})
}

// A DRA pool's quota is in the resource Kueue counts the pool's
// DeviceClass as, in devices (GPUs, or MIG instances of the pool's one
// profile), and the queue says which mapping Kueue's configuration needs.
func TestDRAPoolFlavorQuotaIsInItsClassDevices(t *testing.T) {
	r := mustRender(t, teamQueue(
		spec.QueueFlavor{Pool: draPool("dra-h100", "h100-80gb", ""), GPUs: 16, Nodes: 2},
		spec.QueueFlavor{Pool: draPool("dra-a100", "a100-40gb", "3g.20gb"), MIGInstances: 16, Nodes: 8},
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
	diags := Validate(teamQueue(spec.QueueFlavor{Pool: draPool("dra-h100", "h100-80gb", ""), GPUs: 17, Nodes: 2}), true)
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

// Issue #41, defect 2: the flavor of a DRA MIG pool selects its nodes as
// GPU Feature Discovery labels them under the GPU Operator's default
// "single" strategy (the MIG product and the MIG device count), and the
// plan says that a cluster under another strategy labels them otherwise.
func TestDRAMIGPoolFlavorSelectsGFDsSingleStrategyLabels(t *testing.T) {
	p := spec.PoolPolicy{Name: "h100-80gb", Cloud: "generic", Accelerator: "h100-80gb", GPUsPerNode: 8,
		Partition: "2g.20gb", GPUAllocation: spec.GPUAllocationDRA}
	r, diags := Render(queueOf([]spec.PoolPolicy{p}))
	if diags.HasError() {
		t.Fatal(diags)
	}
	// What GFD v0.20.0 writes on 8 H100s cut into 3 x 2g.20gb each under
	// "single" (docs/design/nvidia.md#gfd-labels-of-mig-nodes), and the
	// pool's own node labels.
	want := map[string]string{
		"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3-MIG-2g.20gb", "nvidia.com/gpu.count": "24",
		"nvidia.com/gpu.replicas": "1", "nvidia.com/gpu.sharing-strategy": "none",
		"nvidia.com/mig.config": "all-2g.20gb", "nvidia.com/gpu.deploy.device-plugin": "false",
	}
	if got := r.ResourceFlavors[0].Spec.NodeLabels; !maps.Equal(got, want) {
		t.Errorf("flavor labels %v, want %v", got, want)
	}
	requireWarning(t, diags, "flavor[0].node_pool", "cluster-wide mig.strategy")
}

// With a label of its own, the DRA MIG pool's flavor selects by it and by
// what every strategy labels alike, and nothing is guessed.
func TestDRAMIGPoolWithItsOwnLabelGuessesNothing(t *testing.T) {
	p := spec.PoolPolicy{Name: "h100-80gb", Cloud: "generic", Accelerator: "h100-80gb", GPUsPerNode: 8,
		Partition: "2g.20gb", GPUAllocation: spec.GPUAllocationDRA, Labels: map[string]string{"team": "a"}}
	r, diags := Render(queueOf([]spec.PoolPolicy{p}))
	if len(diags) > 0 {
		t.Fatalf("want no findings, got %v", diags)
	}
	want := map[string]string{"team": "a", "nvidia.com/gpu.sharing-strategy": "none",
		"nvidia.com/mig.config": "all-2g.20gb", "nvidia.com/gpu.deploy.device-plugin": "false"}
	if got := r.ResourceFlavors[0].Spec.NodeLabels; !maps.Equal(got, want) {
		t.Errorf("flavor labels %v, want %v", got, want)
	}
}

// The whole-GPU DRA flavor does not select a MIG node of the model under
// "mixed": GFD labels a GPU in MIG mode with replicas 0.
func TestWholeGPUDRAFlavorLeavesOutMIGModeNodes(t *testing.T) {
	p := spec.PoolPolicy{Name: "h100", Cloud: "generic", Accelerator: "h100-80gb", GPUsPerNode: 8,
		GPUAllocation: spec.GPUAllocationDRA}
	r := mustRender(t, queueOf([]spec.PoolPolicy{p}))
	mixedMIGNode := map[string]string{"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3", "nvidia.com/gpu.count": "8",
		"nvidia.com/gpu.replicas": "0", "nvidia.com/gpu.sharing-strategy": "none", "nvidia.com/mig.strategy": "mixed",
		"nvidia.com/mig.config": "all-2g.20gb", "nvidia.com/gpu.deploy.device-plugin": "false"}
	labels := r.ResourceFlavors[0].Spec.NodeLabels
	if subset(labels, mixedMIGNode) {
		t.Errorf("the whole-GPU flavor's labels %v select a mixed-strategy MIG node %v", labels, mixedMIGNode)
	}
}

func requireWarning(t *testing.T, diags gpudiag.Diagnostics, path, detail string) {
	t.Helper()
	for _, d := range diags {
		if d.Severity == gpudiag.SeverityWarning && d.PathString() == path && strings.Contains(d.Detail, detail) {
			return
		}
	}
	t.Fatalf("want a warning at %s containing %q, got %v", path, detail, diags)
}

// A DRA pool with a topology is refused on its flavor: its flavor would be
// one of Topology Aware Scheduling, which counts no DRA device in any
// release (Kueue's DRA documentation, v0.17.0 to main:
// kueuever.DRAWithTopology). The same pool without one is the queue's.
func TestDRAPoolWithTopologyIsRefused(t *testing.T) {
	p := draPool("dra-h100", "h100-80gb", "")
	p.Topology = &spec.PoolTopology{Levels: []string{"clique"}}
	p = pool.CanonicalPool(p)
	diags := Validate(teamQueue(spec.QueueFlavor{Pool: p, GPUs: 16, Nodes: 2}), true)
	found := false
	for _, d := range diags.Errors() {
		if d.PathString() == "flavor[0].node_pool" && d.Summary == "Kueue cannot place DRA devices by topology" &&
			strings.Contains(d.Detail, "in no release up to v0.21") {
			found = true
		}
	}
	if !found {
		t.Fatalf("a DRA pool with a topology was not refused on its flavor: %v", diags)
	}
	if diags := Validate(teamQueue(spec.QueueFlavor{Pool: draPool("dra-h100", "h100-80gb", ""), GPUs: 16, Nodes: 2}), true); diags.HasError() {
		t.Fatalf("a DRA pool without a topology was refused: %v", diags)
	}
}
