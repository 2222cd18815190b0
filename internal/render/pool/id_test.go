package pool

import (
	"encoding/base64"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode"

	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

func idPolicies() []spec.PoolPolicy {
	return []spec.PoolPolicy{
		validPool(),
		{},
		{Name: "mig", Cloud: "generic", Accelerator: "a100-40gb", GPUsPerNode: 8, Partition: spec.PartitionAllBalanced, MIGStrategy: "mixed"},
		{Name: "shared", Cloud: "aks", Accelerator: "t4", GPUsPerNode: 4, Sharing: "mps", Replicas: 8, Spot: true, Dedicated: rendertest.Ptr(false),
			Labels: map[string]string{"example.com/team": "ml", "tier": ""},
			Taints: []spec.Taint{{Key: "z", Effect: "NoExecute"}, {Key: "a", Value: "1", Effect: "NoSchedule"}}},
		{Name: "odd:name/with:colons", Cloud: "x", Accelerator: "ü", GPUsPerNode: -3, Replicas: 1 << 62},
	}
}

func TestPoolIDRoundTrip(t *testing.T) {
	for _, p := range idPolicies() {
		id := encodeID(p)
		got, err := DecodeID(id)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if want := CanonicalPool(p); !reflect.DeepEqual(got, want) {
			t.Errorf("round trip:\nwant %+v\ngot  %+v", want, got)
		}
		if again := encodeID(got); again != id {
			t.Errorf("re-encoding changed the id:\n%s\n%s", id, again)
		}
	}
}

func TestPoolIDIsReadableAndCanonical(t *testing.T) {
	id := encodeID(spec.PoolPolicy{Name: "l4-serving", Cloud: "gke", Accelerator: "l4", GPUsPerNode: 1})
	if !strings.HasPrefix(id, "gke/l4/l4-serving:") {
		t.Errorf("id %q lacks the readable prefix", id)
	}
	// Meaning, not spelling: taint order and an explicit default do not
	// change the id.
	a := spec.PoolPolicy{Name: "p", Cloud: "eks", Dedicated: rendertest.Ptr(true), Labels: map[string]string{},
		Taints: []spec.Taint{{Key: "b", Effect: "NoSchedule"}, {Key: "a", Effect: "NoSchedule"}}}
	b := spec.PoolPolicy{Name: "p", Cloud: "eks", Taints: []spec.Taint{{Key: "a", Effect: "NoSchedule"}, {Key: "b", Effect: "NoSchedule"}}}
	if encodeID(a) != encodeID(b) {
		t.Error("equivalent policies must have the same id")
	}
	if encodeID(a) == encodeID(poolWith(func(p *spec.PoolPolicy) { p.Dedicated = rendertest.Ptr(false) })) {
		t.Error("different policies must have different ids")
	}
}

func TestDecodePoolIDErrors(t *testing.T) {
	valid := encodeID(validPool())
	prefix, payload, _ := strings.Cut(valid, ":")
	encode := func(json string) string { return prefix + ":" + base64.RawURLEncoding.EncodeToString([]byte(json)) }
	cases := []struct{ name, id, want string }{
		{"empty", "", "pool id is empty"},
		{"no separator", "gke/l4/gpu", "has no ':'"},
		{"bad base64", prefix + ":%%%", "is not unpadded base64url"},
		{"padded base64", prefix + ":" + payload + "==", "not unpadded base64url"},
		{"random text with colons", "pool: not an id", "the part after the last ':' is not unpadded base64url"},
		{"not json", encode("not json"), "not a pool policy"},
		{"unknown field", encode(`{"v":1,"name":"gpu","cloud":"gke","accelerator":"l4","colour":"red"}`), "fields or types gpu_node_pool_policy never writes"},
		{"binary garbage", prefix + ":" + base64.RawURLEncoding.EncodeToString([]byte("\x8f\x01\x02\x1b[31m")), "bytes that are not JSON"},
		{"control characters in a field name", encode(`{"v":1,"\u0001\u001b":1}`), "never writes"},
		{"wrong type", encode(`{"v":1,"gpus_per_node":"eight"}`), "not a pool policy"},
		{"trailing data", encode(`{"v":1,"name":"gpu","cloud":"gke","accelerator":"l4"}{}`), "trailing data"},
		{"future version", encode(`{"v":2,"name":"gpu","cloud":"gke","accelerator":"l4"}`), "version 2 is not supported"},
		{"missing version", encode(`{"name":"gpu","cloud":"gke","accelerator":"l4"}`), "version 0 is not supported"},
		{"edited prefix", "gke/a100-40gb/gpu:" + payload, "does not match its payload"},
		{"too long", prefix + ":" + strings.Repeat("A", maxPoolIDLength), "longer than any policy"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := DecodeID(c.id)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want error containing %q, got %v", c.want, err)
			}
			if i := strings.IndexFunc(err.Error(), func(r rune) bool { return !unicode.IsPrint(r) }); i >= 0 {
				t.Fatalf("the message must be printable text, got %q", err.Error())
			}
			// The decoders' own wording means nothing to someone who pasted an id.
			for _, decoderText := range []string{"illegal base64 data", "invalid character", "json:", "unexpected end"} {
				if strings.Contains(err.Error(), decoderText) {
					t.Fatalf("the message quotes the decoder (%q): %q", decoderText, err.Error())
				}
			}
		})
	}
}

// The id is the pool's name, which a person reads in a plan; the policy
// travels in gpu_node_pool_policy's ref (internal/provider/refs).
func TestRenderedPoolIDIsItsName(t *testing.T) {
	p := validPool()
	r, diags := Render(p)
	rendertest.RequireNoErrors(t, diags)
	if r.ID != p.Name {
		t.Fatalf("Render id %q, want %q", r.ID, p.Name)
	}
}

// encodeID returns a stable id carrying the whole policy, so a
// gpu_workload can use the pool at plan time without reading state:
//
//	<cloud>/<accelerator>/<name>:<base64url(JSON of the canonical policy)>
//
// The prefix is for humans (plans, logs); the payload is authoritative. The
// canonical policy sorts taints and drops defaults (dedicated = true, empty
// labels), so two configurations that mean the same give the same id.
// Strings that are not valid UTF-8 are replaced by JSON, so only UTF-8
// policies (all Terraform strings) round-trip exactly.
func encodeID(p spec.PoolPolicy) string {
	c := CanonicalPool(p)
	payload, err := json.Marshal(poolIDPayload{Version: poolIDVersion, PoolPolicy: c})
	if err != nil {
		payload = []byte("{}") // unreachable: strings, ints, bools and maps always marshal
	}
	return poolIDPrefix(c) + ":" + base64.RawURLEncoding.EncodeToString(payload)
}
