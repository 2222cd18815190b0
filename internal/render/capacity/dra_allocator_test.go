package capacity

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	dracel "k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/dra"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// classLister serves the fixture DeviceClasses to the allocator.
type classLister map[string][]string

func (l classLister) List() ([]*resourcev1.DeviceClass, error) {
	var out []*resourcev1.DeviceClass
	for name := range l {
		c, _ := l.Get(name)
		out = append(out, c)
	}
	return out, nil
}

func (l classLister) Get(name string) (*resourcev1.DeviceClass, error) {
	selectors, ok := l[name]
	if !ok {
		return nil, apierrors.NewNotFound(resourcev1.Resource("deviceclasses"), name)
	}
	c := &resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: name}}
	for _, s := range selectors {
		c.Spec.Selectors = append(c.Spec.Selectors, resourcev1.DeviceSelector{CEL: &resourcev1.CELDeviceSelector{Expression: s}})
	}
	return c, nil
}

// selectorCache keeps the allocator's compiled selectors across calls.
var selectorCache = dracel.NewCache(10, dracel.Features{})

// allocatorCanAllocate asks the scheduler's own structured allocator
// (k8s.io/dynamic-resource-allocation/structured, GA features) whether
// claim fits on node, the named devices being held by other claims.
func allocatorCanAllocate(t *testing.T, node *corev1.Node, slice *resourcev1.ResourceSlice, claim resourcev1.ResourceClaimSpec,
	held []string) bool {
	t.Helper()
	state := structured.AllocatedState{AllocatedDevices: sets.New[structured.DeviceID]()}
	for _, d := range held {
		state.AllocatedDevices.Insert(structured.MakeDeviceID(DRADriver, node.Name, d))
	}
	ctx := context.Background()
	allocator, err := structured.NewAllocator(ctx, structured.Features{}, state, classLister(fixtureClasses),
		[]*resourcev1.ResourceSlice{slice}, selectorCache)
	if err != nil {
		t.Fatal(err)
	}
	c := &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ml", UID: "c"}, Spec: claim}
	results, err := allocator.Allocate(ctx, node, []*resourcev1.ResourceClaim{c})
	if err != nil {
		t.Fatal(err)
	}
	return len(results) > 0
}

// explanationFits is the explanation's verdict for the claim on one node
// alone, the named devices held by another claim.
func explanationFits(t *testing.T, node corev1.Node, slice *resourcev1.ResourceSlice, claim resourcev1.ResourceClaimSpec, held []string) PoolMatch {
	t.Helper()
	in := NewDRAInputs()
	in.AddSlice(slice)
	holder := allocatedClaim("held", node.Name, held...)
	in.AddClaim(&holder)
	pools := SummarizeDRA([]corev1.Node{node}, nil, in)
	matches := MatchingDRAPools(pools, nil, nil, tolerateGPUTaint, DRARequestsV1(claim), fixtureClasses, in)
	if len(matches) != 1 {
		t.Fatalf("%d pools for one node", len(matches))
	}
	return matches[0]
}

// The explanation's verdict is the scheduler's: on one H100 node, with the
// local cluster's layout and with two GPUs per PCIe root, any count, with
// no constraint, a shared PCIe root or a shared NUMA node, and random GPUs
// held by other claims, a pool "fits" exactly when the allocator allocates
// the claim there.
func TestSharedCountsAgreeWithTheAllocator(t *testing.T) {
	var node corev1.Node
	for _, n := range rendertest.LoadFixtureNodes(t, "dra") {
		if n.Name == "dra-h100-0" {
			node = n
		}
	}
	h100 := []*catalog.Accelerator{catalog.Find("h100-80gb")}
	random := rand.New(rand.NewPCG(41, 3))
	verdicts := map[bool]int{}
	for _, layout := range []string{"one per root", "two per root"} {
		published := fixtureSlices(t)
		if layout == "two per root" {
			published = pairedRoots(t, node.Name)
		}
		var slice *resourcev1.ResourceSlice
		for i := range published {
			if *published[i].Spec.NodeName == node.Name {
				slice = &published[i]
			}
		}
		for round := range 8 {
			var held []string
			for i := range 8 {
				if round > 0 && random.IntN(3) == 0 {
					held = append(held, fmt.Sprintf("gpu-%d", i))
				}
			}
			for count := int64(1); count <= 8; count++ {
				for _, same := range []string{"", spec.DRASamePCIeRoot, spec.DRASameNUMANode} {
					claim := dra.BuildClaim(dra.Request{Count: count, Same: same, Accelerators: h100}).V1()
					want := allocatorCanAllocate(t, &node, slice, claim, held)
					if m := explanationFits(t, node, slice, claim, held); m.Fits != want {
						t.Errorf("%s, held %v, %d sharing %q: explanation fits %v, allocator %v: %s",
							layout, held, count, same, m.Fits, want, DescribeDRA(m))
					}
					if same != "" {
						verdicts[want]++
					}
				}
			}
		}
	}
	if verdicts[true] == 0 || verdicts[false] == 0 {
		t.Errorf("the constrained cases are all one way (%v): the comparison proves nothing", verdicts)
	}
}
