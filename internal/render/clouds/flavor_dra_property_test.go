package clouds_test

import (
	"maps"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/queue"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// Issue #41: a queue's flavor selects exactly its pool and agrees with the
// pool's own workloads for DRA pools too, whichever MIG strategy GPU
// Feature Discovery labels their nodes under; and a MIG pool's workloads
// stay on the pool's layout.

// gfdStrategies are the MIG strategies the GPU Operator may run GFD with
// (ClusterPolicy spec.mig.strategy); a DRA pool's nodes are labelled under
// whichever the cluster runs.
var gfdStrategies = []string{spec.MIGStrategySingle, spec.MIGStrategyMixed}

// draMatrixPools are a generic cluster's DRA pools: whole GPUs of every
// model, and for each MIG model its smallest and 3g profile, each with its
// nodes labelled by GFD under every strategy.
func draMatrixPools(t *testing.T) []matrixPool {
	t.Helper()
	var pools []matrixPool
	for _, name := range matrixCloudAccels[spec.CloudGeneric] {
		f := matrixAccels[name]
		whole := matrixPool{cloud: spec.CloudGeneric, accel: name, gpus: 8, dedicated: true, dra: true}
		pools = append(pools, named(whole))
		if f.mig == nil {
			continue
		}
		for _, profile := range migProfilesFor(f, spec.CloudGeneric) {
			for _, s := range gfdStrategies {
				pools = append(pools, named(withMIG(whole, profile, s)))
			}
		}
	}
	for i := range pools {
		r, diags := pool.Render(pools[i].policy())
		if diags.HasError() {
			t.Fatalf("%s: %s", pools[i].name, rendertest.FormatDiags(diags))
		}
		pools[i].rendered = r
	}
	return pools
}

// queueOfOne renders a one-pool queue: its flavor's labels and findings.
func queueOfOne(t *testing.T, p spec.PoolPolicy) (map[string]string, gpudiag.Diagnostics) {
	t.Helper()
	r, diags := queue.Render(spec.Queue{Name: "q", Flavors: []spec.QueueFlavor{{Pool: p, Nodes: 1}}})
	if diags.HasError() {
		t.Fatalf("queue of %s: %s", p.Name, rendertest.FormatDiags(diags))
	}
	return r.ResourceFlavors[0].Spec.NodeLabels, diags
}

// warnsOfGuess: the plan says the flavor named one value of labels the
// pool's nodes may carry otherwise.
func warnsOfGuess(diags gpudiag.Diagnostics) bool {
	return slices.ContainsFunc(diags, func(d gpudiag.Diagnostic) bool {
		return d.Severity == gpudiag.SeverityWarning && d.Summary == "The flavor selects one variant of the model"
	})
}

// sameShapeOtherStrategy: q is p's pool with its nodes labelled under
// another GFD strategy (the same nodes in another cluster).
func sameShapeOtherStrategy(p, q matrixPool) bool {
	return p.dra && q.dra && p.accel == q.accel && p.gpus == q.gpus && p.partition == q.partition
}

// TestDRAFlavorSelectsExactlyItsPool: under GFD's default strategy (the
// GPU Operator's "single") a DRA pool's flavor selects its node; under
// another it does, or the plan warns that it named single's labels; with a
// label of its own it does under every strategy. It never selects a node
// of another pool, DRA or device plugin.
func TestDRAFlavorSelectsExactlyItsPool(t *testing.T) {
	others := slices.DeleteFunc(matrixPools(t, spec.CloudGeneric), func(p matrixPool) bool { return p.noGFD })
	draPools := draMatrixPools(t)
	others = append(others, draPools...)
	for _, p := range draPools {
		node, _ := p.node()
		labels, diags := queueOfOne(t, p.policy())
		switch selected := selects(labels, node); {
		case selected:
		case p.partition != "" && p.strategy != spec.MIGStrategySingle && warnsOfGuess(diags):
			t.Logf("%s: flavor %v names single's labels, and the plan says so", p.name, labels)
		default:
			t.Errorf("%s: flavor labels %v do not select the pool's own node %v (findings %v)", p.name, labels, node.Labels, diags)
		}
		for _, q := range others {
			qNode, _ := q.node()
			if q.name != p.name && !sameShapeOtherStrategy(p, q) && selects(labels, qNode) {
				t.Errorf("%s: flavor labels %v also select %s's node %v", p.name, labels, q.name, qNode.Labels)
			}
		}
		labelled := p.policy()
		labelled.Labels = map[string]string{"pool": labelled.Name}
		labels, diags = queueOfOne(t, labelled)
		node.Labels["pool"] = labelled.Name
		if !selects(labels, node) || warnsOfGuess(diags) {
			t.Errorf("%s with a label of its own: flavor labels %v, node %v, findings %v", p.name, labels, node.Labels, diags)
		}
	}
}

// onPool is the pod template of a one-unit workload placed on p, as
// gpu_workload renders it.
func onPool(t *testing.T, p spec.PoolPolicy) *corev1.Pod {
	t.Helper()
	w, diags := pool.Apply(spec.Workload{Name: "w", Namespace: "team", Kind: spec.KindJob, Image: "r.invalid/i:1",
		GPU: spec.GPU{Count: 1}}, p)
	rendertest.RequireNoErrors(t, diags)
	r, diags := workload.ResolveAndRender(w, workload.Options{SkipManifest: true, Pool: &p})
	rendertest.RequireNoErrors(t, diags)
	return &corev1.Pod{Spec: r.PodTemplate().Spec}
}

// admittedThrough is pod as Kueue starts it after admitting it through a
// flavor: the flavor's node labels merged into its nodeSelector.
func admittedThrough(pod *corev1.Pod, flavor map[string]string) *corev1.Pod {
	out := pod.DeepCopy()
	if out.Spec.NodeSelector == nil {
		out.Spec.NodeSelector = map[string]string{}
	}
	maps.Copy(out.Spec.NodeSelector, flavor)
	return out
}

// TestQueuedWorkloadRunsOnItsPool: a pool's own workload, once Kueue has
// admitted it through the pool's flavor, fits the pool's node, on every
// cloud, for device-plugin and DRA pools (under a strategy other than
// GFD's default, unless the plan warned).
func TestQueuedWorkloadRunsOnItsPool(t *testing.T) {
	checked := 0
	for _, name := range clouds.PoolNames() {
		pools := matrixPools(t, spec.Cloud(name))
		if name == string(spec.CloudGeneric) {
			pools = append(pools, draMatrixPools(t)...)
		}
		for _, p := range pools {
			if p.noGFD || (!p.dra && len(p.rendered.ResourceNames) != 1) || isSharedPartition(p) {
				continue
			}
			node, _ := p.node()
			flavor, diags := queueOfOne(t, p.policy())
			pod := admittedThrough(onPool(t, p.policy()), flavor)
			guessedAndWarned := p.dra && p.strategy == spec.MIGStrategyMixed && warnsOfGuess(diags)
			if fits, why := podFits(pod, node); !fits && !guessedAndWarned {
				t.Errorf("%s/%s: admitted through its flavor %v, the workload does not fit the pool's node (%s)", name, p.name, flavor, why)
			}
			checked++
		}
	}
	if checked < 50 {
		t.Fatalf("checked %d pools; the matrix has far more", checked)
	}
}

// isSharedPartition: gpu_workload cannot ask for a shared MIG partition.
func isSharedPartition(p matrixPool) bool { return p.partition != "" && p.sharing != "" }

// otherLayout is another team's layout of the same profile: a custom
// mig-parted config name the pool policy never uses.
const otherLayout = "team-b-custom"

// TestMIGPoolWorkloadsStayOnTheirLayout: a MIG pool's workload fits the
// pool's node and no node that differs only in its MIG layout, wherever
// the GPU Operator's mig-manager cuts the GPUs (nvidia.com/mig.config). On
// GKE the layout is the partition size, which placement selects already.
func TestMIGPoolWorkloadsStayOnTheirLayout(t *testing.T) {
	checked := 0
	for _, name := range clouds.PoolNames() {
		pools := matrixPools(t, spec.Cloud(name))
		if name == string(spec.CloudGeneric) {
			pools = append(pools, draMatrixPools(t)...)
		}
		for _, p := range pools {
			layout := p.rendered.MIGConfig
			if p.partition == "" || p.sharing != "" || layout == "" {
				continue
			}
			for _, partition := range partitionsOf(t, p) {
				policy := p.policy()
				pod := onPoolPartition(t, policy, partition)
				node, _ := p.node()
				if fits, why := podFits(pod, node); !fits {
					t.Errorf("%s/%s: the workload does not fit the pool's own node (%s)", name, p.name, why)
				}
				node.Labels[spec.LabelMIGConfig] = otherLayout
				if fits, _ := podFits(pod, node); fits {
					t.Errorf("%s/%s: the workload (partition %s) also fits a node of layout %s", name, p.name, partition, otherLayout)
				}
				checked++
			}
		}
	}
	if checked < 20 {
		t.Fatalf("checked %d MIG pools; the matrix has more", checked)
	}
}

// partitionsOf are the profiles a workload on p may ask for.
func partitionsOf(t *testing.T, p matrixPool) []string {
	t.Helper()
	if p.partition != spec.PartitionAllBalanced {
		return []string{p.partition}
	}
	return slices.Sorted(maps.Keys(p.facts().balanced))
}

func onPoolPartition(t *testing.T, p spec.PoolPolicy, partition string) *corev1.Pod {
	t.Helper()
	w, diags := pool.Apply(spec.Workload{Name: "w", Namespace: "team", Kind: spec.KindJob, Image: "r.invalid/i:1",
		GPU: spec.GPU{Count: 1, Partition: partition}}, p)
	if diags.HasError() {
		t.Fatalf("%s, partition %s: %s", p.Name, partition, strings.TrimSpace(rendertest.FormatDiags(diags)))
	}
	r, diags := workload.ResolveAndRender(w, workload.Options{SkipManifest: true, Pool: &p})
	rendertest.RequireNoErrors(t, diags)
	return &corev1.Pod{Spec: r.PodTemplate().Spec}
}
