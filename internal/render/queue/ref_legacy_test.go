package queue

import (
	"encoding/base64"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// A queue-spec annotation written before 0.1.0 names each flavor's pool by
// its legacy id (this one is copied from a ClusterQueue that version
// applied); DecodeSpec reads the pool out of it, and refuses an id that is
// not one.
func TestDecodeSpecReadsLegacyPoolIDs(t *testing.T) {
	const legacy = `{"name":"team-a","namespaces":["default"],"preemption":{},"flavor":[{"node_pool":` +
		`"gke/a100-40gb/a100:eyJ2IjoxLCJuYW1lIjoiYTEwMCIsImNsb3VkIjoiZ2tlIiwiYWNjZWxlcmF0b3IiOiJhMTAwLTQwZ2IiLCJncHVzX3Blcl9ub2RlIjo4fQ","nodes":2}]}`
	q, err := DecodeSpec(legacy)
	if err != nil {
		t.Fatal(err)
	}
	want := pool.CanonicalPool(spec.PoolPolicy{Name: "a100", Cloud: "gke", Accelerator: "a100-40gb", GPUsPerNode: 8})
	if len(q.Flavors) != 1 || !reflect.DeepEqual(q.Flavors[0].Pool, want) || q.Flavors[0].NodePool != "" {
		t.Fatalf("flavors %+v, want the pool %+v", q.Flavors, want)
	}
	if _, err := DecodeSpec(strings.Replace(legacy, "gke/a100-40gb/a100:", "gke/a100-40gb/b:", 1)); err == nil {
		t.Error("an edited legacy id decoded")
	}
}

// encodeLegacyID is the legacy id: "kueue/<name>:<base64url(JSON of Ref)>".
func encodeLegacyID(r Ref) string {
	payload, err := json.Marshal(refPayload{Version: refIDVersion, Ref: r})
	if err != nil {
		payload = []byte("{}") // unreachable: strings, ints and slices always marshal
	}
	return idPrefix(r.Name) + ":" + base64.RawURLEncoding.EncodeToString(payload)
}
