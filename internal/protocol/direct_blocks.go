package protocol

import (
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// blockLevel is the blocks of one object of a schema: the root's, or those
// of a block's object (of each element, for a list or set block). List and
// set blocks are only ever found along blocks, never inside an attribute,
// so the walks below visit these objects and nothing else. A generic walk
// of the whole value (tftypes.Transform) rebuilt every value with its path,
// which was about a tenth of the provider's CPU in a plan of gpu_workload
// (bench/README.md, issue #45).
type blockLevel map[string]blockEntry

// blockEntry is one block: whether it is a list or set block, and the
// blocks of its object.
type blockEntry struct {
	collection bool
	nested     blockLevel
}

// blockLevelOf indexes blocks and the blocks nested in them.
func blockLevelOf(blocks map[string]schema.Block) blockLevel {
	if len(blocks) == 0 {
		return nil
	}
	level := blockLevel{}
	for name, b := range blocks {
		switch n := b.(type) {
		case schema.ListNestedBlock:
			level[name] = blockEntry{collection: true, nested: blockLevelOf(n.NestedObject.Blocks)}
		case schema.SetNestedBlock:
			level[name] = blockEntry{collection: true, nested: blockLevelOf(n.NestedObject.Blocks)}
		case schema.SingleNestedBlock:
			level[name] = blockEntry{nested: blockLevelOf(n.Blocks)}
		}
	}
	return level
}

// rewriteCollections returns v with rewrite applied to every list and set
// block in it, inner ones first, and whether anything changed. Objects
// that do not change are returned as they are.
func (l blockLevel) rewriteCollections(v tftypes.Value, rewrite func(tftypes.Value) (tftypes.Value, bool)) (tftypes.Value, bool) {
	if len(l) == 0 || !v.IsKnown() || v.IsNull() {
		return v, false
	}
	var attrs map[string]tftypes.Value
	if err := v.As(&attrs); err != nil {
		return v, false
	}
	var rewritten map[string]tftypes.Value // a copy: As hands out v's own map, and v stays as it was
	for name, entry := range l {
		old, ok := attrs[name]
		if !ok {
			continue
		}
		if next, ch := entry.rewriteCollections(old, rewrite); ch {
			if rewritten == nil {
				rewritten = maps.Clone(attrs)
			}
			rewritten[name] = next
		}
	}
	if rewritten == nil {
		return v, false
	}
	return tftypes.NewValue(v.Type(), rewritten), true
}

func (e blockEntry) rewriteCollections(v tftypes.Value, rewrite func(tftypes.Value) (tftypes.Value, bool)) (tftypes.Value, bool) {
	if !e.collection {
		return e.nested.rewriteCollections(v, rewrite)
	}
	out, changed := v, false
	if len(e.nested) > 0 && v.IsKnown() && !v.IsNull() {
		var elements []tftypes.Value
		if err := v.As(&elements); err == nil {
			var rewritten []tftypes.Value // a copy, as for an object's attributes
			for i := range elements {
				if next, ch := e.nested.rewriteCollections(elements[i], rewrite); ch {
					if rewritten == nil {
						rewritten = slices.Clone(elements)
					}
					rewritten[i], changed = next, true
				}
			}
			if changed {
				out = tftypes.NewValue(v.Type(), rewritten)
			}
		}
	}
	next, ch := rewrite(out)
	return next, changed || ch
}

// emptyToNull is null for a known, empty collection, else v.
func emptyToNull(v tftypes.Value) (tftypes.Value, bool) {
	if !v.IsKnown() || v.IsNull() {
		return v, false
	}
	var elements []tftypes.Value
	if err := v.As(&elements); err != nil || len(elements) > 0 {
		return v, false
	}
	return tftypes.NewValue(v.Type(), nil), true
}

// nullToEmpty is an empty collection for null, else v.
func nullToEmpty(v tftypes.Value) (tftypes.Value, bool) {
	if !v.IsNull() {
		return v, false
	}
	return tftypes.NewValue(v.Type(), []tftypes.Value{}), true
}
