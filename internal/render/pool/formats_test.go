package pool

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// Pool ids live in Terraform state and in every gpu_workload.node_pool that
// references a policy. Each fixture is an id an earlier provider version
// wrote; it must decode to the same policy and re-encode to the same text
// forever (a changed id would plan a change on every workload using the
// pool). Fixtures are added, never edited: a format change bumps
// poolIDVersion and adds new fixtures beside the old ones.
func poolIDFixtures() map[string]spec.PoolPolicy {
	return map[string]spec.PoolPolicy{
		"v1-gke-l4.txt": {Name: "l4-serving", Cloud: "gke", Accelerator: "l4", GPUsPerNode: 1},
		"v1-generic-mig-mixed.txt": {Name: "mig", Cloud: "generic", Accelerator: "a100-40gb", GPUsPerNode: 8,
			Partition: spec.PartitionAllBalanced, MIGStrategy: "mixed"},
		"v1-aks-mps-everything.txt": {Name: "shared", Cloud: "aks", Accelerator: "t4", GPUsPerNode: 4, Sharing: "mps", Replicas: 8,
			Spot: true, Dedicated: rendertest.Ptr(false), Labels: map[string]string{"example.com/team": "ml", "tier": ""},
			Taints: []spec.Taint{{Key: "a", Value: "1", Effect: "NoSchedule"}, {Key: "z", Effect: "NoExecute"}}},
	}
}

func TestPoolIDFormatFixtures(t *testing.T) {
	for name, want := range poolIDFixtures() {
		path := filepath.Join("testdata", "formats", "poolid", name)
		rendertest.WriteFixtureIfNew(t, path, encodeID(want))
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		id := strings.TrimSpace(string(data))
		got, err := DecodeID(id)
		if err != nil {
			t.Fatalf("%s: an id in users' state no longer decodes: %v", name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s decodes to\n%+v\nwant\n%+v", name, got, want)
		}
		if again := encodeID(got); again != id {
			t.Errorf("%s re-encodes differently, so every workload on the pool would plan a change:\n%s\n%s", name, id, again)
		}
	}
}
