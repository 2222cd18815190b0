package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// An update prunes what the queue no longer renders (resourcekit.Prune):
// the LocalQueue of a namespace dropped from namespaces, and the flavor of
// a pool dropped from the flavors (no other queue uses it), while what is
// still rendered stays.
func TestAccQueue_updateRemovesWhatItNoLongerRenders(t *testing.T) {
	nsA, nsB := acctest.Namespace(t), acctest.Namespace(t)
	p, p2 := newQueueTestPool(t, 1), newQueueTestPool(t, 1)
	second := p2.policy("p2")
	secondFlavor := "flavor {\n    node_pool = gpu_node_pool_policy.p2.ref\n    gpus      = 1\n  }"
	both := strings.Replace(p.config(t, nsA, secondFlavor), fmt.Sprintf("namespaces = [%q]", nsA),
		fmt.Sprintf("namespaces = [%q, %q]", nsA, nsB), 1) + second
	one := p.config(t, nsA, "") + second
	var flavorsBefore []string
	resource.ParallelTest(t, resource.TestCase{
		PreCheck:                 func() { acctest.PreCheck(t) },
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: both,
				Check: func(*terraform.State) error {
					flavorsBefore = clusterQueueFlavors(t, p.name)
					if len(flavorsBefore) != 2 || !kueueObjectExists(t, "localqueues", nsB, p.name) {
						return fmt.Errorf("want two flavors and a LocalQueue in %s, got flavors %v", nsB, flavorsBefore)
					}
					return nil
				},
			},
			{
				Config: one,
				Check: func(*terraform.State) error {
					kept := clusterQueueFlavors(t, p.name)
					if len(kept) != 1 {
						return fmt.Errorf("want one flavor left, got %v", kept)
					}
					for _, f := range flavorsBefore {
						if exists := kueueObjectExists(t, "resourceflavors", "", f); exists != (f == kept[0]) {
							return fmt.Errorf("ResourceFlavor %s exists = %v, kept flavor %s", f, exists, kept[0])
						}
					}
					if kueueObjectExists(t, "localqueues", nsB, p.name) || !kueueObjectExists(t, "localqueues", nsA, p.name) {
						return fmt.Errorf("want the LocalQueue of %s gone and the one of %s kept", nsB, nsA)
					}
					return nil
				},
			},
		},
	})
}

// clusterQueueFlavors names the flavors of the ClusterQueue's quota.
func clusterQueueFlavors(t *testing.T, name string) []string {
	t.Helper()
	live, err := dynamicClient(t).Resource(kueueResource("clusterqueues")).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var cq kueuev1beta2.ClusterQueue
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(live.Object, &cq); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, group := range cq.Spec.ResourceGroups {
		for _, f := range group.Flavors {
			out = append(out, string(f.Name))
		}
	}
	return out
}
