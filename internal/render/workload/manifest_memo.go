package workload

import (
	"hash/maphash"
	"math"
	"math/bits"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
)

// A refresh plan encodes each workload's manifest twice: its read encodes
// the live objects projected onto what the provider manages, its plan the
// rendered objects, and when nothing drifted the two are the same maps.
// YAML encoding is the largest part of either (bench/README.md, issue
// #45), so documents are remembered by content: a document seen before
// returns the same bytes without encoding. An entry is found by a hash of
// the document and used only when the document is deeply equal to the
// copy stored with it, so a hash collision costs an encoding, never a
// wrong manifest. Terraform refreshes an instance and plans it in the same
// step of its walk (ten at a time by default), so a few hundred documents
// cover every read and the plan that follows it, and the memo stays small
// whatever the number of workloads.
var documentMemo = newMemo(256)

type memoEntry struct {
	doc  map[string]any
	yaml []byte
}

type memo struct {
	mu      sync.Mutex
	seed    maphash.Seed
	limit   int
	size    int
	entries map[uint64][]memoEntry
}

func newMemo(limit int) *memo {
	return &memo{seed: maphash.MakeSeed(), limit: limit, entries: map[uint64][]memoEntry{}}
}

// encode returns the memo's bytes for doc, calling encode and remembering
// its result when doc is new. doc must hold plain values only
// (plainValues): the copy kept is a JSON deep copy.
func (m *memo) encode(doc map[string]any, encode func(map[string]any) ([]byte, error)) ([]byte, error) {
	key := hashPlain(m.seed, doc)
	m.mu.Lock()
	for _, e := range m.entries[key] {
		if equalPlain(e.doc, doc) {
			m.mu.Unlock()
			return e.yaml, nil
		}
	}
	m.mu.Unlock()
	out, err := encode(doc)
	if err != nil {
		return nil, err
	}
	kept, isMap := runtime.DeepCopyJSONValue(doc).(map[string]any)
	if !isMap {
		return out, nil // cannot happen for a map; then simply not remembered
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.size >= m.limit {
		// Bounded by forgetting everything: a refresh of more workloads
		// than the limit encodes again, as it did without the memo.
		m.entries, m.size = map[uint64][]memoEntry{}, 0
	}
	m.entries[key] = append(m.entries[key], memoEntry{doc: kept, yaml: out})
	m.size++
	return out, nil
}

// hashPlain hashes a plain value (plainValues); map entries in any order
// hash alike, since Go's map order is random.
func hashPlain(seed maphash.Seed, v any) uint64 {
	switch t := v.(type) {
	case nil:
		return 0x6e
	case bool:
		if t {
			return 0x74
		}
		return 0x66
	case int64:
		return mix(uint64(t) ^ 0x69)
	case string:
		return maphash.String(seed, t)
	case []any:
		h := uint64(0x6c) + uint64(len(t))
		for _, e := range t {
			h = mix(h*0x100000001b3 ^ hashPlain(seed, e))
		}
		return h
	case map[string]any:
		h := uint64(0x6d) + uint64(len(t))
		for k, e := range t {
			h += mix(maphash.String(seed, k) ^ bits.RotateLeft64(hashPlain(seed, e), 31))
		}
		return mix(h)
	}
	return math.MaxUint64 // not plain: never memoized
}

// mix is SplitMix64's finalizer: every input bit affects every output bit.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// equalPlain is reflect.DeepEqual for plain values, without reflection.
func equalPlain(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case int64:
		y, ok := b.(int64)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) || (x == nil) != (y == nil) {
			return false
		}
		for i := range x {
			if !equalPlain(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) || (x == nil) != (y == nil) {
			return false
		}
		for k, e := range x {
			f, found := y[k]
			if !found || !equalPlain(e, f) {
				return false
			}
		}
		return true
	}
	return false
}
