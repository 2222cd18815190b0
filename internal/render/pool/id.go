package pool

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// poolIDVersion is the legacy id's payload version; DecodeID rejects
// versions it does not know rather than guessing.
const poolIDVersion = 1

// maxPoolIDLength bounds DecodeID's work on hostile input. A policy with
// a few dozen labels and taints is far below it.
const maxPoolIDLength = 64 << 10

// poolIDPayload is the JSON inside a pool id.
type poolIDPayload struct {
	Version int `json:"v"`
	spec.PoolPolicy
}

// DecodeID parses a pool id of versions before 0.1.0, which carried the
// whole policy (docs/design/formats.md):
//
//	<cloud>/<accelerator>/<name>:<base64url(JSON of the canonical policy)>
//
// State upgrades read such ids into the ref that replaced them. It checks
// the form, the version and that the readable prefix matches the payload
// (an edited id is an error, not a silent mismatch); it does not validate
// the policy, which Apply and Render do.
func DecodeID(id string) (spec.PoolPolicy, error) {
	if id == "" {
		return spec.PoolPolicy{}, errors.New("pool id is empty; expected the id attribute of a gpu_node_pool_policy")
	}
	if len(id) > maxPoolIDLength {
		return spec.PoolPolicy{}, fmt.Errorf("pool id is %d bytes, longer than any policy produces (%d); expected the id attribute of a gpu_node_pool_policy", len(id), maxPoolIDLength)
	}
	// base64url has no ':', so the last one separates prefix and payload.
	i := strings.LastIndexByte(id, ':')
	if i < 0 {
		return spec.PoolPolicy{}, errors.New("pool id has no ':'; expected <cloud>/<accelerator>/<name>:<payload> as produced by gpu_node_pool_policy")
	}
	prefix, encoded := id[:i], id[i+1:]
	raw, err := base64.RawURLEncoding.DecodeString(encoded)
	if err != nil {
		// Not the decoder's "illegal base64 data at input byte N": a byte
		// offset into an id someone pasted helps nobody.
		return spec.PoolPolicy{}, errors.New("pool id payload is not a pool policy: the part after the last ':' is not " +
			"unpadded base64url (letters, digits, '-' and '_'); copy the id attribute unchanged")
	}
	var payload poolIDPayload
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&payload); err != nil {
		return spec.PoolPolicy{}, payloadError(err)
	}
	if dec.More() {
		return spec.PoolPolicy{}, errors.New("pool id payload has trailing data after the pool policy")
	}
	if payload.Version != poolIDVersion {
		return spec.PoolPolicy{}, fmt.Errorf("pool id version %d is not supported by this provider version (it reads version %d); upgrade the provider or re-create the id", payload.Version, poolIDVersion)
	}
	p := CanonicalPool(payload.PoolPolicy)
	if want := poolIDPrefix(p); prefix != want {
		return spec.PoolPolicy{}, fmt.Errorf("pool id prefix %q does not match its payload (%q): the id was edited; copy the id attribute unchanged", prefix, want)
	}
	return p, nil
}

// payloadError says what is wrong with a payload in the provider's words.
// The decoder's own text would quote the payload's bytes, which for a
// garbled id are control characters in the middle of a plan.
func payloadError(err error) error {
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return errors.New("pool id payload is not a pool policy: the part after the last ':' decodes to bytes that are not JSON; copy the id attribute unchanged")
	}
	return errors.New("pool id payload is not a pool policy: its JSON has fields or types gpu_node_pool_policy never writes; copy the id attribute unchanged")
}

// poolIDPrefix is "<cloud>/<accelerator>/<name>", "-" for unset parts.
func poolIDPrefix(p spec.PoolPolicy) string {
	part := func(s string) string { return cmp.Or(s, "-") }
	return part(p.Cloud) + "/" + part(p.Accelerator) + "/" + part(p.Name)
}

// CanonicalPool is p with defaults dropped and order normalised. It copies
// maps and slices, so callers may keep using p.
func CanonicalPool(p spec.PoolPolicy) spec.PoolPolicy {
	c := p
	if c.Dedicated != nil && *c.Dedicated {
		c.Dedicated = nil
	} else if c.Dedicated != nil {
		dedicated := false
		c.Dedicated = &dedicated
	}
	if c.GPUAllocation == spec.GPUAllocationDevicePlugin {
		c.GPUAllocation = "" // the default: ids of device-plugin pools stay as they were
	}
	c.Labels = nil
	if len(p.Labels) > 0 {
		c.Labels = maps.Clone(p.Labels)
	}
	if p.Topology != nil {
		t := spec.PoolTopology{Levels: slices.Clone(p.Topology.Levels)}
		if len(p.Topology.NodesPerDomain) > 0 {
			t.NodesPerDomain = maps.Clone(p.Topology.NodesPerDomain)
		}
		c.Topology = &t
	}
	c.Taints = nil
	if len(p.Taints) > 0 {
		c.Taints = slices.Clone(p.Taints)
		slices.SortStableFunc(c.Taints, func(a, b spec.Taint) int {
			return cmp.Or(cmp.Compare(a.Key, b.Key), cmp.Compare(a.Effect, b.Effect), cmp.Compare(a.Value, b.Value))
		})
	}
	return c
}
