package render

import (
	"maps"
	"reflect"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/gpuform/terraform-provider-gpu/internal/render/capacity"
	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/workload"
)

// poolVariants are the policies the property tests render for one cloud
// and model: whatever combinations the cloud allows.
func poolVariants(cloud spec.Cloud, a catalog.Accelerator) []spec.PoolPolicy {
	counts := clouds.GPUCounts(clouds.Lookup(cloud).MachinesOf(&a))
	if len(counts) == 0 {
		counts = []int64{1, 8}
	}
	base := spec.PoolPolicy{Name: "p", Cloud: string(cloud), Accelerator: a.Name, GPUsPerNode: counts[0]}
	edit := func(f func(p *spec.PoolPolicy)) spec.PoolPolicy {
		p := base
		f(&p)
		return p
	}
	out := []spec.PoolPolicy{
		base,
		edit(func(p *spec.PoolPolicy) { p.GPUsPerNode = counts[len(counts)-1] }),
		edit(func(p *spec.PoolPolicy) { p.Spot = cloud != spec.CloudGeneric }),
		edit(func(p *spec.PoolPolicy) {
			p.Labels = map[string]string{"example.com/team": "ml", "tier": "gpu"}
			p.Taints = []spec.Taint{{Key: "example.com/team", Value: "ml", Effect: "NoSchedule"}, {Key: "example.com/drain", Effect: "NoExecute"}}
		}),
	}
	if cloud != spec.CloudGKE {
		out = append(out, edit(func(p *spec.PoolPolicy) { p.Dedicated = rendertest.Ptr(false) }))
	}
	if cloud != spec.CloudEKSAuto {
		out = append(out,
			edit(func(p *spec.PoolPolicy) { p.Sharing, p.Replicas = spec.SharingTimeSlicing, 4 }),
			edit(func(p *spec.PoolPolicy) {
				p.Sharing, p.Replicas, p.Spot = spec.SharingMPS, 8, cloud != spec.CloudGeneric
			}))
	}
	return append(out, migVariants(cloud, a, edit)...)
}

func migVariants(cloud spec.Cloud, a catalog.Accelerator, edit func(func(p *spec.PoolPolicy)) spec.PoolPolicy) []spec.PoolPolicy {
	if !a.OffersMIG() || cloud == spec.CloudEKSAuto {
		return nil
	}
	if cloud == spec.CloudGKE {
		size := clouds.GKEPartitionSizes[a.Name][0]
		return []spec.PoolPolicy{
			edit(func(p *spec.PoolPolicy) { p.Partition = size }),
			edit(func(p *spec.PoolPolicy) { p.Partition, p.Sharing, p.Replicas = size, spec.SharingTimeSlicing, 2 }),
		}
	}
	first, last := a.MIGProfiles[0].Name, a.MIGProfiles[len(a.MIGProfiles)-1].Name
	out := []spec.PoolPolicy{
		edit(func(p *spec.PoolPolicy) { p.Partition = first }),
		edit(func(p *spec.PoolPolicy) {
			p.Partition, p.MIGStrategy = clouds.MIGLayoutPrefix+last, spec.MIGStrategyMixed
		}),
		edit(func(p *spec.PoolPolicy) {
			p.Partition, p.MIGStrategy, p.Sharing, p.Replicas = first, spec.MIGStrategyMixed, spec.SharingTimeSlicing, 3
		}),
	}
	if _, ok := clouds.MIGBalanced[a.Name]; ok {
		out = append(out, edit(func(p *spec.PoolPolicy) {
			p.Partition, p.MIGStrategy = spec.PartitionAllBalanced, spec.MIGStrategyMixed
		}))
	}
	return out
}

// poolNode is a node as the pool's cloud and GPU Operator would create it:
// the labels added for the pool and those the cloud sets, the pool's taints,
// and the resources the device plugin advertises.
func poolNode(name string, r *spec.PoolRendered) corev1.Node {
	labels := maps.Clone(r.CloudSetLabels)
	if labels == nil {
		labels = map[string]string{}
	}
	maps.Copy(labels, r.NodeLabels)
	resources := corev1.ResourceList{}
	for res, n := range r.ResourcesPerNode {
		resources[corev1.ResourceName(res)] = *resource.NewQuantity(n, resource.DecimalSI)
	}
	return corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec:       corev1.NodeSpec{Taints: r.NodeTaints},
		Status:     corev1.NodeStatus{Capacity: resources, Allocatable: resources},
	}
}

func isSharedMIG(p spec.PoolPolicy) bool { return p.Partition != "" && p.Sharing != "" }

func policyName(p spec.PoolPolicy) string {
	return p.Cloud + "/" + p.Accelerator + "/x" + strconv.FormatInt(p.GPUsPerNode, 10) + "/" + p.Partition + "/" +
		p.MIGStrategy + "/" + p.Sharing + "/spot=" + strconv.FormatBool(p.Spot) + "/labels=" + strconv.Itoa(len(p.Labels))
}

// TestPoolAdmitsItsOwnPlacement is the central promise: a node built from
// pool.Render's labels and taints admits a pod with pool.Render's placement,
// for every resource the pool advertises.
func TestPoolAdmitsItsOwnPlacement(t *testing.T) {
	forEachPoolVariant(t, func(t *testing.T, p spec.PoolPolicy, r *spec.PoolRendered) {
		pools := capacity.Summarize([]corev1.Node{poolNode("n", r)}, nil)
		if len(pools) != 1 {
			t.Fatalf("want one pool from one GPU node, got %d", len(pools))
		}
		for _, res := range r.ResourceNames {
			m := capacity.MatchingPools(pools, r.NodeSelector, r.Affinity, r.Tolerations, res)[0]
			if !m.Fits {
				t.Errorf("%s: the pool's own placement does not fit its node: %v", res, m.Reasons)
			}
		}
	})
}

// TestWorkloadOnPoolMatchesPool renders a workload through pool.Apply and
// Render, the path gpu_workload takes, and requires the same placement as
// the pool and a resource the pool advertises.
func TestWorkloadOnPoolMatchesPool(t *testing.T) {
	forEachPoolVariant(t, func(t *testing.T, p spec.PoolPolicy, r *spec.PoolRendered) {
		w := spec.Workload{Name: "w", Kind: spec.KindDeployment, Image: "img", GPU: spec.GPU{Count: 1}}
		if isSharedMIG(p) {
			_, diags := pool.Apply(w, p)
			rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "node_pool", "never both")
			return
		}
		partitions := []string{""}
		if p.Partition == spec.PartitionAllBalanced {
			partitions = pool.SliceProfileNames(mustResolve(t, p))
		}
		pools := capacity.Summarize([]corev1.Node{poolNode("n", r)}, nil)
		for _, partition := range partitions {
			w.GPU.Partition = partition
			placed, diags := pool.Apply(w, p)
			rendertest.RequireNoErrors(t, diags)
			rendered, diags := workload.ResolveAndRender(placed, workload.Options{Pool: &p})
			rendertest.RequireNoErrors(t, diags)
			selector, tolerations := rendered.NodeSelector, rendered.Tolerations
			if m := capacity.MatchingPools(pools, selector, rendered.Affinity, tolerations, rendered.ResourceName)[0]; !m.Fits {
				t.Fatalf("workload (partition %q) does not fit the pool's node: %v", partition, m.Reasons)
			}
			if !strings.Contains(strings.Join(r.ResourceNames, " "), rendered.ResourceName) {
				t.Errorf("workload requests %s, pool advertises %v", rendered.ResourceName, r.ResourceNames)
			}
			if partition != "" {
				continue // all-balanced: same node, different resource
			}
			if !reflect.DeepEqual(selector, r.NodeSelector) || !reflect.DeepEqual(rendered.Affinity, r.Affinity) ||
				!reflect.DeepEqual(tolerations, r.Tolerations) || rendered.ResourceName != r.ResourceName {
				t.Errorf("pool and workload disagree:\npool     %v %v %v %s\nworkload %v %v %v %s",
					r.NodeSelector, r.Affinity, r.Tolerations, r.ResourceName,
					selector, rendered.Affinity, tolerations, rendered.ResourceName)
			}
		}
	})
}

// TestPoolsOfDifferentModelsAreDistinct: a whole-GPU pod for one model's
// pool never fits the node of another model's pool on the same cloud.
func TestPoolsOfDifferentModelsAreDistinct(t *testing.T) {
	for _, cloud := range clouds.PoolNames() {
		var rendered []*spec.PoolRendered
		var nodes []corev1.Node
		for _, a := range catalog.Accelerators() {
			if !clouds.Lookup(spec.Cloud(cloud)).Offers(&a) {
				continue
			}
			r, diags := pool.Render(poolVariants(spec.Cloud(cloud), a)[0])
			rendertest.RequireNoErrors(t, diags)
			rendered = append(rendered, r)
			nodes = append(nodes, poolNode(a.Name, r))
		}
		pools := capacity.Summarize(nodes, nil)
		for i, r := range rendered {
			fits := 0
			for _, m := range capacity.MatchingPools(pools, r.NodeSelector, r.Affinity, r.Tolerations, r.ResourceName) {
				if m.Fits {
					fits++
				}
			}
			if fits != 1 {
				t.Errorf("%s: the pod of %s fits %d pools, want exactly its own", cloud, nodes[i].Name, fits)
			}
		}
	}
}

func forEachPoolVariant(t *testing.T, check func(t *testing.T, p spec.PoolPolicy, r *spec.PoolRendered)) {
	t.Helper()
	for _, cloud := range clouds.PoolNames() {
		for _, a := range catalog.Accelerators() {
			if !clouds.Lookup(spec.Cloud(cloud)).Offers(&a) {
				continue
			}
			for _, p := range poolVariants(spec.Cloud(cloud), a) {
				t.Run(policyName(p), func(t *testing.T) {
					r, diags := pool.Render(p)
					rendertest.RequireNoErrors(t, diags)
					checkShapes(t, p, r)
					check(t, p, r)
				})
			}
		}
	}
}

func mustResolve(t *testing.T, p spec.PoolPolicy) []clouds.MIGSlice {
	t.Helper()
	a, _ := catalog.LookupAccelerator(p.Accelerator)
	_, cut, ok := pool.ResolvePoolPartition(p.Partition, &a)
	if !ok {
		t.Fatalf("partition %q does not resolve", p.Partition)
	}
	return cut
}

// checkShapes: exactly the pool's cloud shape is set, and a Karpenter
// NodePool requires only labels Karpenter or GFD put on the node.
func checkShapes(t *testing.T, p spec.PoolPolicy, r *spec.PoolRendered) {
	t.Helper()
	want := map[string]bool{
		"gke": p.Cloud == "gke", "aks": p.Cloud == "aks", "eks": p.Cloud == "eks",
		"karpenter": p.Cloud == "karpenter" || p.Cloud == "eks-auto",
	}
	got := map[string]bool{"gke": r.GKE != nil, "aks": r.AKS != nil, "eks": r.EKS != nil, "karpenter": r.KarpenterNodePool != ""}
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("cloud shapes: want %v, got %v", want, got)
	}
	if r.KarpenterNodePool == "" {
		return
	}
	var np clouds.KarpenterNodePoolManifest
	if err := yaml.UnmarshalStrict([]byte(r.KarpenterNodePool), &np); err != nil {
		t.Fatalf("NodePool does not parse: %v\n%s", err, r.KarpenterNodePool)
	}
	for _, req := range np.Spec.Template.Spec.Requirements {
		if len(req.Values) != 1 || r.CloudSetLabels[req.Key] != req.Values[0] {
			t.Errorf("requirement %v is not a cloud-set label", req)
		}
	}
	var templateLabels map[string]string
	if np.Spec.Template.Metadata != nil {
		templateLabels = np.Spec.Template.Metadata.Labels
	}
	if !reflect.DeepEqual(templateLabels, r.NodeLabels) {
		t.Errorf("template labels %v, want NodeLabels %v", templateLabels, r.NodeLabels)
	}
}
