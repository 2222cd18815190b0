package queue

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

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
	r := mustRender(t, teamQueue(spec.QueueFlavor{Pool: a100, GPUs: 8}))
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
		spec.QueueFlavor{Pool: spec.PoolPolicy{Name: "h100", Cloud: "generic", Accelerator: "h100-80gb", GPUsPerNode: 8}, GPUs: 8},
		spec.QueueFlavor{Pool: spec.PoolPolicy{Name: "h100-mig", Cloud: "generic", Accelerator: "h100-80gb", GPUsPerNode: 8, Partition: "1g.10gb", MIGStrategy: "mixed"}, MIGInstances: 56},
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
		{"MIG quota in whole GPUs", teamQueue(spec.QueueFlavor{Pool: a100MIG, GPUs: 8}), "flavor[0].gpus", "Quota in the wrong unit"},
		{"shared slots on whole GPUs", teamQueue(spec.QueueFlavor{Pool: a100, SharedSlots: 8}), "flavor[0].shared_slots", "Quota in the wrong unit"},
		{"quota above the pool", teamQueue(spec.QueueFlavor{Pool: a100, Nodes: 1, GPUs: 16}), "flavor[0].gpus", "Quota above the pool's size"},
		{"pool of another cloud", teamQueue(spec.QueueFlavor{Pool: a100, GPUs: 8}, spec.QueueFlavor{Pool: eksA100, GPUs: 8}), "flavor[1].node_pool", "Pool of another cloud"},
		{"queue cloud", spec.Queue{Name: "q", Cloud: "aks", Flavors: []spec.QueueFlavor{{Pool: a100, GPUs: 8}}}, "flavor[0].node_pool", "Pool of another cloud"},
		{"pool twice", teamQueue(spec.QueueFlavor{Pool: a100, GPUs: 8}, spec.QueueFlavor{Pool: a100, GPUs: 8}), "flavor[1].node_pool", "Pool listed twice"},
		{"missing quota", teamQueue(spec.QueueFlavor{Pool: a100}), "flavor[0].gpus", "Missing quota"},
		{"borrowing without cohort", teamQueue(spec.QueueFlavor{Pool: a100, GPUs: 8, BorrowingLimit: &one}), "flavor[0].borrowing_limit", "borrowing_limit without a cohort"},
		{"missing pool", teamQueue(spec.QueueFlavor{GPUs: 8}), "flavor[0].node_pool", "Missing required value"},
		{"bad name", spec.Queue{Name: "Team_A", Flavors: []spec.QueueFlavor{{Pool: a100, GPUs: 8}}}, "name", "Invalid name"},
		{"bad namespace", spec.Queue{Name: "q", Namespaces: []string{"ok", "ok"}, Flavors: []spec.QueueFlavor{{Pool: a100, GPUs: 8}}}, "namespaces[1]", "Namespace listed twice"},
		{"bad cpu", teamQueue(spec.QueueFlavor{Pool: a100, GPUs: 8, CPU: "lots"}), "flavor[0].cpu", "Invalid quantity"},
		{"preemption rule", spec.Queue{Name: "q", Preemption: spec.QueuePreemption{BorrowWithinCohort: "LowerPriority"}, Flavors: []spec.QueueFlavor{{Pool: a100, GPUs: 8}}}, "preemption.borrow_within_cohort", "Borrowing preemption without reclaiming"},
		{"strategy", spec.Queue{Name: "q", QueueingStrategy: "LIFO", Flavors: []spec.QueueFlavor{{Pool: a100, GPUs: 8}}}, "queueing_strategy", "Unknown value"},
		{"no flavor", spec.Queue{Name: "q"}, "flavor", "Missing flavor"},
		{"indistinct generic pools", teamQueue(
			spec.QueueFlavor{Pool: spec.PoolPolicy{Name: "h100", Cloud: "generic", Accelerator: "h100-80gb", GPUsPerNode: 8}, GPUs: 8},
			spec.QueueFlavor{Pool: spec.PoolPolicy{Name: "h100-open", Cloud: "generic", Accelerator: "h100-80gb", GPUsPerNode: 8, Dedicated: new(false)}, GPUs: 8}),
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
	if diags := Validate(spec.Queue{Flavors: []spec.QueueFlavor{{Pool: a100}}}, false); diags.HasError() {
		t.Errorf("plan-time validation reported %v", diags)
	}
}

func TestWholePoolQuotaFromNodes(t *testing.T) {
	r := mustRender(t, teamQueue(spec.QueueFlavor{Pool: a100MIG, Nodes: 2}))
	// 2 nodes x 8 GPUs x 3 instances of 2g.10gb.
	if got := r.ClusterQueue.Spec.ResourceGroups[0].Flavors[0].Resources[0].NominalQuota; got.Value() != 48 {
		t.Errorf("quota %s, want 48", got.String())
	}
	if r.Ref.Flavors[0].Unit != UnitMIGInstances {
		t.Errorf("unit %s", r.Ref.Flavors[0].Unit)
	}
}

func TestSharedPoolCountsSlots(t *testing.T) {
	r := mustRender(t, teamQueue(spec.QueueFlavor{Pool: l4Shared, SharedSlots: 4}))
	f := r.Ref.Flavors[0]
	// GKE shares GPUs natively: the slots are advertised as nvidia.com/gpu.
	if f.Unit != UnitSharedSlots || f.Quota != 4 || f.Resource != "nvidia.com/gpu" {
		t.Errorf("flavor %+v", f)
	}
	_, diags := Render(teamQueue(spec.QueueFlavor{Pool: l4Shared, GPUs: 1}))
	if !hasFinding(diags, "flavor[0].gpus", "Quota in the wrong unit") || !strings.Contains(diags[0].Detail, "shared_slots = 4") {
		t.Errorf("whole GPUs on a shared pool: %v", diags)
	}
}

// The id is the queue's name; the legacy ids of versions before 0.1.0,
// which carried the Ref, still decode for state upgrades.
func TestLegacyIDRoundTrip(t *testing.T) {
	r := mustRender(t, teamQueue(spec.QueueFlavor{Pool: a100, GPUs: 8}))
	if r.ID != "team-a" {
		t.Fatalf("id %q, want the queue's name", r.ID)
	}
	legacy := encodeLegacyID(r.Ref)
	if !IsID(legacy) || !strings.HasPrefix(legacy, "kueue/team-a:") {
		t.Fatalf("legacy id %q", legacy)
	}
	got, err := DecodeID(legacy)
	if err != nil || got.Name != "team-a" || len(got.Flavors) != 1 || got.Flavors[0].Quota != 8 {
		t.Fatalf("DecodeID = %+v, %v", got, err)
	}
	edited := strings.Replace(legacy, "kueue/team-a:", "kueue/team-b:", 1)
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
	ref := mustRender(t, teamQueue(spec.QueueFlavor{Pool: a100, GPUs: 8})).Ref
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
	cohort := teamQueue(spec.QueueFlavor{Pool: a100, GPUs: 8})
	cohort.Cohort = "research"
	if diags := CheckWorkload(mustRender(t, cohort).Ref, renderWorkload(t, job(8, 2), a100)); diags.HasError() {
		t.Errorf("cohort borrowing: %v", diags)
	}
}

func TestDefaultLocalQueueWarns(t *testing.T) {
	q := teamQueue(spec.QueueFlavor{Pool: a100, GPUs: 8})
	q.LocalQueueName = "default"
	_, diags := Render(q)
	if diags.HasError() || len(diags.Warnings()) != 1 || diags[0].PathString() != "local_queue_name" {
		t.Errorf("diags %v, want one warning at local_queue_name", diags)
	}
}

// The CPU and memory quota per unit is what a default-sized gpu_workload
// asking for one unit of the pool requests, for MIG instances and shared
// slots as for whole GPUs: a quota of N units admits N such workloads.
func TestHostQuotaIsWhatWorkloadsOnThePoolRequest(t *testing.T) {
	for _, c := range []struct {
		pool  spec.PoolPolicy
		units int64
	}{{a100, 8}, {a100MIG, 24}, {l4Shared, 4}} {
		flavor := spec.QueueFlavor{Pool: c.pool}
		switch {
		case c.pool.Partition != "":
			flavor.MIGInstances = c.units
		case c.pool.Sharing != "":
			flavor.SharedSlots = c.units
		default:
			flavor.GPUs = c.units
		}
		r := mustRender(t, teamQueue(flavor))
		w, diags := pool.Apply(spec.Workload{Name: "w", Namespace: "team-a", Kind: spec.KindJob, Image: "r.invalid/i:1",
			GPU: spec.GPU{Count: 1}}, c.pool)
		if diags.HasError() {
			t.Fatal(diags)
		}
		rendered, diags := workload.ResolveAndRender(w, workload.Options{SkipManifest: true})
		if diags.HasError() {
			t.Fatal(diags)
		}
		requests := rendered.PodTemplate().Spec.Containers[0].Resources.Requests
		quotas := r.ClusterQueue.Spec.ResourceGroups[0].Flavors[0].Resources
		for i, name := range []string{"cpu", "memory"} {
			want := requests[corev1.ResourceName(name)]
			want.Mul(c.units)
			got := quotas[len(quotas)-2+i].NominalQuota
			if got.Cmp(want) != 0 {
				t.Errorf("%s: %s quota %s, want %d x the workload's %s = %s", c.pool.Name, name, got.String(), c.units,
					name, want.String())
			}
		}
	}
}

func TestHostLimitsFollowTheGPULimits(t *testing.T) {
	limit := func(n int64) *int64 { return &n }
	cases := []struct {
		name    string
		flavor  spec.QueueFlavor
		borrowC string // "" means no limit
		borrowM string
		lendC   string
	}{
		{"derived from the GPU limits", spec.QueueFlavor{Pool: a100, GPUs: 8, BorrowingLimit: limit(4), LendingLimit: limit(2)},
			"40", "256Gi", "20"},
		{"unlimited like the GPUs", spec.QueueFlavor{Pool: a100, GPUs: 8}, "", "", ""},
		{"an explicit CPU quota's share", spec.QueueFlavor{Pool: a100, GPUs: 8, CPU: "96", BorrowingLimit: limit(4)},
			"48", "256Gi", ""},
		{"configured", spec.QueueFlavor{Pool: a100, GPUs: 8, BorrowingLimit: limit(4), CPUBorrowingLimit: "5",
			MemoryBorrowingLimit: "1Ti", CPULendingLimit: "7"}, "5", "1Ti", "7"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := teamQueue(c.flavor)
			q.Cohort = "org"
			r := mustRender(t, q)
			res := r.ClusterQueue.Spec.ResourceGroups[0].Flavors[0].Resources
			cpu, memory := res[len(res)-2], res[len(res)-1]
			check := func(what string, got *resource.Quantity, want string) {
				t.Helper()
				switch {
				case want == "" && got != nil:
					t.Errorf("%s = %s, want no limit", what, got.String())
				case want != "" && (got == nil || got.Cmp(resource.MustParse(want)) != 0):
					t.Errorf("%s = %v, want %s", what, got, want)
				}
			}
			check("cpu borrowingLimit", cpu.BorrowingLimit, c.borrowC)
			check("memory borrowingLimit", memory.BorrowingLimit, c.borrowM)
			check("cpu lendingLimit", cpu.LendingLimit, c.lendC)
		})
	}
}

func TestHostLimitFindings(t *testing.T) {
	withCohort := func(q spec.Queue) spec.Queue { q.Cohort = "org"; return q }
	for _, c := range []struct {
		name    string
		queue   spec.Queue
		path    string
		summary string
	}{
		{"needs a cohort", teamQueue(spec.QueueFlavor{Pool: a100, GPUs: 8, CPUBorrowingLimit: "4"}),
			"flavor[0].cpu_borrowing_limit", "cpu_borrowing_limit without a cohort"},
		{"not a quantity", withCohort(teamQueue(spec.QueueFlavor{Pool: a100, GPUs: 8, MemoryLendingLimit: "lots"})),
			"flavor[0].memory_lending_limit", "Invalid quantity"},
		{"lends more than the quota", withCohort(teamQueue(spec.QueueFlavor{Pool: a100, GPUs: 8, CPULendingLimit: "81"})),
			"flavor[0].cpu_lending_limit", "Lending more than the quota"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, diags := Render(c.queue)
			requireFinding(t, diags, c.path, c.summary)
		})
	}
}
