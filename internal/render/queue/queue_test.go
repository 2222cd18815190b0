package queue

import (
	"strings"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

func poolID(p spec.PoolPolicy) string { return pool.EncodeID(p) }

var (
	a100     = spec.PoolPolicy{Name: "a100", Cloud: "gke", Accelerator: "a100-40gb", GPUsPerNode: 8}
	a100MIG  = spec.PoolPolicy{Name: "a100-mig", Cloud: "gke", Accelerator: "a100-40gb", GPUsPerNode: 8, Partition: "2g.10gb"}
	l4Shared = spec.PoolPolicy{Name: "l4-shared", Cloud: "gke", Accelerator: "l4", GPUsPerNode: 1, Sharing: "time-slicing", Replicas: 4}
	eksA100  = spec.PoolPolicy{Name: "eks-a100", Cloud: "eks", Accelerator: "a100-40gb", GPUsPerNode: 8}
)

func teamQueue(flavors ...spec.QueueFlavor) spec.Queue {
	return spec.Queue{Name: "team-a", Namespaces: []string{"team-a"}, Flavors: flavors}
}

func mustRender(t *testing.T, q spec.Queue) *Rendered {
	t.Helper()
	r, diags := Render(q)
	if diags.HasError() {
		t.Fatalf("Render: %v", diags)
	}
	return r
}

func TestRenderDerivesFlavorFromPool(t *testing.T) {
	r := mustRender(t, teamQueue(spec.QueueFlavor{NodePool: poolID(a100), GPUs: 8}))
	poolRendered, _ := pool.Render(a100)
	rf := r.ResourceFlavors[0]
	if rf.Name != "a100" {
		t.Errorf("flavor name %q, want the pool's", rf.Name)
	}
	for k, v := range poolRendered.NodeSelector {
		if rf.Spec.NodeLabels[k] != v {
			t.Errorf("flavor nodeLabels[%s] = %q, want the pool's selector %q", k, rf.Spec.NodeLabels[k], v)
		}
	}
	if len(rf.Spec.Tolerations) != len(poolRendered.Tolerations) || len(rf.Spec.NodeTaints) != len(poolRendered.NodeTaints) {
		t.Errorf("flavor tolerations/taints %v/%v, want the pool's %v/%v", rf.Spec.Tolerations, rf.Spec.NodeTaints, poolRendered.Tolerations, poolRendered.NodeTaints)
	}
	group := r.ClusterQueue.Spec.ResourceGroups[0]
	if got := strings.Join(resourceNames(group.CoveredResources), ","); got != "nvidia.com/gpu,cpu,memory" {
		t.Errorf("covered resources %s", got)
	}
	quota := group.Flavors[0].Resources[0].NominalQuota
	if quota.Value() != 8 {
		t.Errorf("GPU quota %s, want 8", quota.String())
	}
	// a100-40gb's default preset is large: 10 CPU / 64Gi per GPU.
	if cpu := group.Flavors[0].Resources[1].NominalQuota; cpu.String() != "80" {
		t.Errorf("cpu quota %s, want 80 (8 GPUs x the large preset's 10)", cpu.String())
	}
	if len(r.LocalQueues) != 1 || r.LocalQueues[0].Namespace != "team-a" || string(r.LocalQueues[0].Spec.ClusterQueue) != "team-a" {
		t.Errorf("local queues %+v", r.LocalQueues)
	}
	if !strings.Contains(r.Manifest, "kind: ClusterQueue") || !strings.Contains(r.Manifest, "kind: ResourceFlavor") {
		t.Errorf("manifest lacks objects:\n%s", r.Manifest)
	}
}

func resourceNames[T ~string](in []T) []string {
	out := make([]string, len(in))
	for i, v := range in {
		out[i] = string(v)
	}
	return out
}

func TestRenderSeveralResourcesShareOneGroup(t *testing.T) {
	r := mustRender(t, teamQueue(
		spec.QueueFlavor{NodePool: poolID(spec.PoolPolicy{Name: "h100", Cloud: "generic", Accelerator: "h100-80gb", GPUsPerNode: 8}), GPUs: 8},
		spec.QueueFlavor{NodePool: poolID(spec.PoolPolicy{Name: "h100-mig", Cloud: "generic", Accelerator: "h100-80gb", GPUsPerNode: 8, Partition: "1g.10gb", MIGStrategy: "mixed"}), MIGInstances: 56},
	))
	if len(r.ClusterQueue.Spec.ResourceGroups) != 1 {
		t.Fatalf("want one resource group, got %d", len(r.ClusterQueue.Spec.ResourceGroups))
	}
	group := r.ClusterQueue.Spec.ResourceGroups[0]
	if got := strings.Join(resourceNames(group.CoveredResources), ","); got != "nvidia.com/gpu,nvidia.com/mig-1g.10gb,cpu,memory" {
		t.Errorf("covered resources %s", got)
	}
	// Each flavor lists every covered resource, 0 for the other pool's GPUs.
	if q := group.Flavors[0].Resources[1].NominalQuota; q.Value() != 0 || group.Flavors[1].Resources[1].NominalQuota.Value() != 56 {
		t.Errorf("quotas %+v", group.Flavors)
	}
}

func TestValidateFindings(t *testing.T) {
	one := int64(1)
	cases := []struct {
		name    string
		queue   spec.Queue
		path    string
		summary string
	}{
		{"MIG quota in whole GPUs", teamQueue(spec.QueueFlavor{NodePool: poolID(a100MIG), GPUs: 8}), "flavor[0].gpus", "Quota in the wrong unit"},
		{"shared slots on whole GPUs", teamQueue(spec.QueueFlavor{NodePool: poolID(a100), SharedSlots: 8}), "flavor[0].shared_slots", "Quota in the wrong unit"},
		{"quota above the pool", teamQueue(spec.QueueFlavor{NodePool: poolID(a100), Nodes: 1, GPUs: 16}), "flavor[0].gpus", "Quota above the pool's size"},
		{"pool of another cloud", teamQueue(spec.QueueFlavor{NodePool: poolID(a100), GPUs: 8}, spec.QueueFlavor{NodePool: poolID(eksA100), GPUs: 8}), "flavor[1].node_pool", "Pool of another cloud"},
		{"queue cloud", spec.Queue{Name: "q", Cloud: "aks", Flavors: []spec.QueueFlavor{{NodePool: poolID(a100), GPUs: 8}}}, "flavor[0].node_pool", "Pool of another cloud"},
		{"pool twice", teamQueue(spec.QueueFlavor{NodePool: poolID(a100), GPUs: 8}, spec.QueueFlavor{NodePool: poolID(a100), GPUs: 8}), "flavor[1].node_pool", "Pool listed twice"},
		{"missing quota", teamQueue(spec.QueueFlavor{NodePool: poolID(a100)}), "flavor[0].gpus", "Missing quota"},
		{"borrowing without cohort", teamQueue(spec.QueueFlavor{NodePool: poolID(a100), GPUs: 8, BorrowingLimit: &one}), "flavor[0].borrowing_limit", "borrowing_limit without a cohort"},
		{"bad pool id", teamQueue(spec.QueueFlavor{NodePool: "nope", GPUs: 8}), "flavor[0].node_pool", "Invalid node_pool"},
		{"bad name", spec.Queue{Name: "Team_A", Flavors: []spec.QueueFlavor{{NodePool: poolID(a100), GPUs: 8}}}, "name", "Invalid name"},
		{"bad namespace", spec.Queue{Name: "q", Namespaces: []string{"ok", "ok"}, Flavors: []spec.QueueFlavor{{NodePool: poolID(a100), GPUs: 8}}}, "namespaces[1]", "Namespace listed twice"},
		{"bad cpu", teamQueue(spec.QueueFlavor{NodePool: poolID(a100), GPUs: 8, CPU: "lots"}), "flavor[0].cpu", "Invalid quantity"},
		{"preemption rule", spec.Queue{Name: "q", Preemption: spec.QueuePreemption{BorrowWithinCohort: "LowerPriority"}, Flavors: []spec.QueueFlavor{{NodePool: poolID(a100), GPUs: 8}}}, "preemption.borrow_within_cohort", "Borrowing preemption without reclaiming"},
		{"strategy", spec.Queue{Name: "q", QueueingStrategy: "LIFO", Flavors: []spec.QueueFlavor{{NodePool: poolID(a100), GPUs: 8}}}, "queueing_strategy", "Unknown value"},
		{"no flavor", spec.Queue{Name: "q"}, "flavor", "Missing flavor"},
		{"indistinct generic pools", teamQueue(
			spec.QueueFlavor{NodePool: poolID(spec.PoolPolicy{Name: "h100", Cloud: "generic", Accelerator: "h100-80gb", GPUsPerNode: 8}), GPUs: 8},
			spec.QueueFlavor{NodePool: poolID(spec.PoolPolicy{Name: "h100-open", Cloud: "generic", Accelerator: "h100-80gb", GPUsPerNode: 8, Dedicated: new(false)}), GPUs: 8}),
			"flavor[1].node_pool", "Kueue cannot tell two pools apart"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := Render(tc.queue)
			if !hasFinding(diags, tc.path, tc.summary) {
				t.Errorf("want %q at %s, got %v", tc.summary, tc.path, diags)
			}
		})
	}
}

func hasFinding(diags gpudiag.Diagnostics, path, summary string) bool {
	for _, d := range diags {
		if d.Severity == gpudiag.SeverityError && d.PathString() == path && d.Summary == summary {
			return true
		}
	}
	return false
}

func TestValidateSkipsUnknowns(t *testing.T) {
	// At plan time a missing quota or name may be unknown.
	if diags := Validate(spec.Queue{Flavors: []spec.QueueFlavor{{NodePool: poolID(a100)}}}, false); diags.HasError() {
		t.Errorf("plan-time validation reported %v", diags)
	}
}

func TestWholePoolQuotaFromNodes(t *testing.T) {
	r := mustRender(t, teamQueue(spec.QueueFlavor{NodePool: poolID(a100MIG), Nodes: 2}))
	// 2 nodes x 8 GPUs x 3 instances of 2g.10gb.
	if got := r.ClusterQueue.Spec.ResourceGroups[0].Flavors[0].Resources[0].NominalQuota; got.Value() != 48 {
		t.Errorf("quota %s, want 48", got.String())
	}
	if r.Ref.Flavors[0].Unit != UnitMIGInstances {
		t.Errorf("unit %s", r.Ref.Flavors[0].Unit)
	}
}

func TestSharedPoolCountsSlots(t *testing.T) {
	r := mustRender(t, teamQueue(spec.QueueFlavor{NodePool: poolID(l4Shared), SharedSlots: 4}))
	f := r.Ref.Flavors[0]
	// GKE shares GPUs natively: the slots are advertised as nvidia.com/gpu.
	if f.Unit != UnitSharedSlots || f.Quota != 4 || f.Resource != "nvidia.com/gpu" {
		t.Errorf("flavor %+v", f)
	}
	_, diags := Render(teamQueue(spec.QueueFlavor{NodePool: poolID(l4Shared), GPUs: 1}))
	if !hasFinding(diags, "flavor[0].gpus", "Quota in the wrong unit") || !strings.Contains(diags[0].Detail, "shared_slots = 4") {
		t.Errorf("whole GPUs on a shared pool: %v", diags)
	}
}

func TestIDRoundTrip(t *testing.T) {
	r := mustRender(t, teamQueue(spec.QueueFlavor{NodePool: poolID(a100), GPUs: 8}))
	if !IsID(r.ID) || !strings.HasPrefix(r.ID, "kueue/team-a:") {
		t.Fatalf("id %q", r.ID)
	}
	got, err := DecodeID(r.ID)
	if err != nil || got.Name != "team-a" || len(got.Flavors) != 1 || got.Flavors[0].Quota != 8 {
		t.Fatalf("DecodeID = %+v, %v", got, err)
	}
	edited := strings.Replace(r.ID, "kueue/team-a:", "kueue/team-b:", 1)
	if _, err := DecodeID(edited); err == nil {
		t.Error("an edited id decoded")
	}
	if IsID("team-a") {
		t.Error("a plain LocalQueue name taken for an id")
	}
}

func renderWorkload(t *testing.T, w spec.Workload, p spec.PoolPolicy) Demand {
	t.Helper()
	placed, diags := pool.Apply(w, p)
	if diags.HasError() {
		t.Fatalf("pool.Apply: %v", diags)
	}
	r, diags := workload.ResolveAndRender(placed, workload.Options{Pool: &p, SkipManifest: true})
	if diags.HasError() {
		t.Fatalf("Render: %v", diags)
	}
	return DemandOf(placed, r)
}

func TestCheckWorkload(t *testing.T) {
	ref := mustRender(t, teamQueue(spec.QueueFlavor{NodePool: poolID(a100), GPUs: 8})).Ref
	job := func(count int64, parallelism int32) spec.Workload {
		return spec.Workload{Name: "train", Namespace: "team-a", Kind: spec.KindJob, Image: "img", GPU: spec.GPU{Count: count},
			Job: &spec.JobControls{Parallelism: &parallelism}}
	}
	if diags := CheckWorkload(ref, renderWorkload(t, job(8, 1), a100)); diags.HasError() {
		t.Errorf("8 GPUs on a quota of 8: %v", diags)
	}
	diags := CheckWorkload(ref, renderWorkload(t, job(8, 2), a100))
	if !hasFinding(diags, "queue", "More than the queue's quota") || !strings.Contains(diags[0].Detail, "16 nvidia.com/gpu") {
		t.Errorf("16 GPUs at once on a quota of 8: %v", diags)
	}
	h100 := spec.PoolPolicy{Name: "h100", Cloud: "gke", Accelerator: "h100-80gb", GPUsPerNode: 8}
	if diags := CheckWorkload(ref, renderWorkload(t, job(1, 1), h100)); !hasFinding(diags, "queue", "No flavor of the queue covers these GPUs") {
		t.Errorf("h100 job on an a100 queue: %v", diags)
	}
	other := job(1, 1)
	other.Namespace = "team-b"
	if diags := CheckWorkload(ref, renderWorkload(t, other, a100)); !hasFinding(diags, "queue", "No LocalQueue in this namespace") {
		t.Errorf("namespace without a LocalQueue: %v", diags)
	}
	// In a cohort without a borrowing limit the queue may borrow any amount.
	cohort := teamQueue(spec.QueueFlavor{NodePool: poolID(a100), GPUs: 8})
	cohort.Cohort = "research"
	if diags := CheckWorkload(mustRender(t, cohort).Ref, renderWorkload(t, job(8, 2), a100)); diags.HasError() {
		t.Errorf("cohort borrowing: %v", diags)
	}
}

func TestDefaultLocalQueueWarns(t *testing.T) {
	q := teamQueue(spec.QueueFlavor{NodePool: poolID(a100), GPUs: 8})
	q.LocalQueueName = "default"
	_, diags := Render(q)
	if diags.HasError() || len(diags.Warnings()) != 1 || diags[0].PathString() != "local_queue_name" {
		t.Errorf("diags %v, want one warning at local_queue_name", diags)
	}
}
