package queue

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// A queue on a pool with a GPU network covers the network's resources,
// with as much as its GPU quota's nodes have; other flavors list them at 0
// (Kueue wants every covered resource in every flavor).
func TestRenderNetworkQuota(t *testing.T) {
	p5 := spec.PoolPolicy{Name: "gpu-p5", Cloud: "eks", Accelerator: "h100-80gb", GPUsPerNode: 8}
	g5 := spec.PoolPolicy{Name: "gpu-g5", Cloud: "eks", Accelerator: "a10g", GPUsPerNode: 4}
	r := mustRender(t, teamQueue(spec.QueueFlavor{Pool: p5, GPUs: 32}, spec.QueueFlavor{Pool: g5, GPUs: 8}))
	group := r.ClusterQueue.Spec.ResourceGroups[0]
	want := map[string]map[string]string{
		"gpu-p5": {"vpc.amazonaws.com/efa": "128", "hugepages-2Mi": "20Gi"},
		"gpu-g5": {"vpc.amazonaws.com/efa": "0", "hugepages-2Mi": "0"},
	}
	covered := map[string]bool{}
	for _, name := range group.CoveredResources {
		covered[string(name)] = true
	}
	for _, name := range []string{"vpc.amazonaws.com/efa", "hugepages-2Mi"} {
		if !covered[name] {
			t.Errorf("%s not covered: %v", name, group.CoveredResources)
		}
	}
	for _, f := range group.Flavors {
		for _, q := range f.Resources {
			if w, ok := want[string(f.Name)][string(q.Name)]; ok && q.NominalQuota.Cmp(resource.MustParse(w)) != 0 {
				t.Errorf("flavor %s: %s = %s, want %s", f.Name, q.Name, q.NominalQuota.String(), w)
			}
		}
		if len(f.Resources) != len(group.CoveredResources) {
			t.Errorf("flavor %s lists %d resources of %d covered", f.Name, len(f.Resources), len(group.CoveredResources))
		}
	}
}
