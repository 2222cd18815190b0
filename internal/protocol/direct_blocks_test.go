package protocol

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// The walk turns known empty list and set blocks, at any depth along
// blocks, into null and back, and leaves unknown and non-empty ones and
// everything that is not a block as they are.
func TestBlockLevel_nullsAndReifiesOnlyCollectionBlocks(t *testing.T) {
	f := newBlocksFixture(t)
	d := f.server.schemas.directResource(t.Context(), "sized")
	if d == nil {
		t.Fatal("the fixture's resource is not served directly")
	}
	ruleType := asType[tftypes.List](t, f.objType.AttributeTypes["rule"])
	nulled := d.schema.nullifyCollectionBlocks(f.withRules)
	rules := attributeOf(t, nulled, "rule")
	var elements []tftypes.Value
	if err := rules.As(&elements); err != nil || len(elements) != 2 {
		t.Fatalf("rules after nullify: %v (%v); want the two rules", rules, err)
	}
	if got := attributeOf(t, elements[1], "match"); !got.IsNull() {
		t.Errorf("an empty set block inside a list block's element: %v; want null", got)
	}
	if got := attributeOf(t, elements[0], "match"); got.IsNull() {
		t.Error("a non-empty set block became null")
	}
	if got := attributeOf(t, nulled, "labels"); got.IsNull() {
		t.Error("a map attribute that is not a block became null")
	}
	if !d.schema.reifyNullCollectionBlocks(nulled).Equal(f.withRules) {
		t.Errorf("reify after nullify: %v; want %v", d.schema.reifyNullCollectionBlocks(nulled), f.withRules)
	}
	if got := attributeOf(t, d.schema.nullifyCollectionBlocks(f.noRules), "rule"); !got.IsNull() {
		t.Errorf("an empty top-level list block: %v; want null", got)
	}
	unknown := tftypes.NewValue(ruleType, tftypes.UnknownValue)
	withUnknown := tftypes.NewValue(f.objType, replaced(t, f.noRules, "rule", unknown))
	if got := attributeOf(t, d.schema.nullifyCollectionBlocks(withUnknown), "rule"); got.IsKnown() {
		t.Errorf("an unknown list block: %v; want it unknown still", got)
	}
	if got := attributeOf(t, d.schema.reifyNullCollectionBlocks(withUnknown), "rule"); got.IsKnown() {
		t.Errorf("an unknown list block after reify: %v; want it unknown still", got)
	}
}

func attributeOf(t *testing.T, v tftypes.Value, name string) tftypes.Value {
	t.Helper()
	var attrs map[string]tftypes.Value
	if err := v.As(&attrs); err != nil {
		t.Fatalf("%v is not an object: %v", v, err)
	}
	return attrs[name]
}

func replaced(t *testing.T, v tftypes.Value, name string, with tftypes.Value) map[string]tftypes.Value {
	t.Helper()
	var attrs map[string]tftypes.Value
	if err := v.As(&attrs); err != nil {
		t.Fatalf("%v is not an object: %v", v, err)
	}
	attrs[name] = with
	return attrs
}

// The walk returns new values and leaves the one it was given as it was:
// tftypes hands out a value's own maps and slices, and a request's value
// may be read again after it was rewritten.
func TestBlockLevel_leavesItsInputAsItWas(t *testing.T) {
	f := newBlocksFixture(t)
	d := f.server.schemas.directResource(t.Context(), "sized")
	if d == nil {
		t.Fatal("the fixture's resource is not served directly")
	}
	before := f.withRules.Copy()
	nulled := d.schema.nullifyCollectionBlocks(f.withRules)
	if nulled.Equal(f.withRules) {
		t.Fatal("the fixture has no empty block to null; the case tests nothing")
	}
	if !f.withRules.Equal(before) {
		t.Errorf("nullify changed its input:\n got %v\nwant %v", f.withRules, before)
	}
	nulledBefore := nulled.Copy()
	_ = d.schema.reifyNullCollectionBlocks(nulled)
	if !nulled.Equal(nulledBefore) {
		t.Errorf("reify changed its input:\n got %v\nwant %v", nulled, nulledBefore)
	}
}
