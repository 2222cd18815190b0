package gpuintent

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/provider/tfconv"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// everyField is a spec.GPU with every field set, so a field added to
// spec.GPU without an attribute (or the reverse) shows in the round trip.
func everyField() spec.GPU {
	requests := int64(2)
	return spec.GPU{
		Count: 2, Requests: &requests, Accelerator: "a100-40gb", Accelerators: []string{"h100-80gb", "a100-40gb"},
		Partition: "3g.20gb", MIGStrategy: "mixed", Sharing: "time-sharing", MaxSharedClients: 4,
		DRA: &spec.DRA{DeviceClass: "gpu.nvidia.com", Selectors: []string{"true"}, MinMemory: "40Gi", Same: "pcie-root"},
	}
}

// The block and render's spec.GPU are one declaration: every attribute
// and nested block is a field and every field an attribute, so what a user
// writes reaches render and an imported workload's block is what it ran.
func TestBlockRoundTripsEveryFieldOfSpecGPU(t *testing.T) {
	assertNoZeroField(t, reflect.ValueOf(everyField()), "spec.GPU")

	var diags diag.Diagnostics
	object := ObjectFromGPU(everyField(), tfconv.BlockType{Block: Block()}, &diags)
	if diags.HasError() {
		t.Fatal(diags)
	}
	assertNoNullAttribute(t, object, "gpu")

	c := &tfconv.Converter{Ctx: context.Background()}
	got := GPUFromObject(c, object)
	if c.Diags.HasError() || c.Unknown {
		t.Fatalf("decoding: %v (unknown %v)", c.Diags, c.Unknown)
	}
	if !reflect.DeepEqual(got, everyField()) {
		t.Fatalf("round trip changed the request:\n got %+v (dra %+v)\nwant %+v (dra %+v)", got, got.DRA, everyField(), everyField().DRA)
	}
}

func assertNoZeroField(t *testing.T, v reflect.Value, at string) {
	t.Helper()
	v = reflect.Indirect(v)
	for i := range v.NumField() {
		f := v.Field(i)
		name := at + "." + v.Type().Field(i).Name
		if f.IsZero() {
			t.Errorf("%s is not set in everyField: set it, so the round trip covers it", name)
			continue
		}
		if reflect.Indirect(f).Kind() == reflect.Struct {
			assertNoZeroField(t, f, name)
		}
	}
}

func assertNoNullAttribute(t *testing.T, o types.Object, at string) {
	t.Helper()
	for name, a := range o.Attributes() {
		if a.IsNull() {
			t.Errorf("%s.%s is null: no field of spec.GPU fills it", at, name)
		}
		if nested, ok := a.(types.Object); ok {
			assertNoNullAttribute(t, nested, at+"."+name)
		}
	}
}

// A null block (no gpu block written, or an optional one left out) is
// the zero request, and an unknown one marks the conversion unknown so
// render waits for it.
func TestGPUFromObjectNullAndUnknown(t *testing.T) {
	attrTypes := tfconv.AttrTypesOf(tfconv.BlockType{Block: Block()})
	c := &tfconv.Converter{Ctx: context.Background()}
	if got := GPUFromObject(c, types.ObjectNull(attrTypes)); !reflect.DeepEqual(got, spec.GPU{}) || c.Unknown {
		t.Fatalf("null block: got %+v, unknown %v", got, c.Unknown)
	}
	if got := GPUFromObject(c, types.ObjectUnknown(attrTypes)); !reflect.DeepEqual(got, spec.GPU{}) || !c.Unknown {
		t.Fatalf("unknown block: got %+v, unknown %v", got, c.Unknown)
	}
}

// Names starts with what is required (a message listing them names count
// first) and lists every attribute and nested block once, with the nested
// block's own attributes.
func TestNamesListTheBlockRequiredFirst(t *testing.T) {
	names, nested := Names()
	if names[0] != "count" {
		t.Errorf("first name %q, want the required count", names[0])
	}
	b := Block()
	if len(names) != len(b.Attributes)+len(b.Blocks) {
		t.Errorf("%d names for %d attributes and %d blocks", len(names), len(b.Attributes), len(b.Blocks))
	}
	if !slices.IsSorted(names[1:]) {
		t.Errorf("names after the required ones are not sorted: %v", names)
	}
	want := []string{"device_class", "min_memory", "same", "selectors"}
	if !slices.Equal(nested["dra"], want) {
		t.Errorf("nested dra names %v, want %v", nested["dra"], want)
	}
}

// OptionalBlock is Block with the block optional and count required only
// inside it; every other attribute is the same declaration.
func TestOptionalBlockDiffersOnlyInCount(t *testing.T) {
	required, optional := Block(), OptionalBlock("A group's GPUs.")
	if optional.MarkdownDescription != "A group's GPUs." {
		t.Errorf("description %q", optional.MarkdownDescription)
	}
	if count := optional.Attributes["count"]; count.IsRequired() || !count.IsOptional() {
		t.Error("count must be optional at the schema level (the framework would demand it of an absent block)")
	}
	for name, a := range required.Attributes {
		if name == "count" {
			continue
		}
		if !reflect.DeepEqual(a, optional.Attributes[name]) {
			t.Errorf("%s differs between Block and OptionalBlock", name)
		}
	}
	if len(optional.Validators) != 1 || len(required.Validators) != 1 {
		t.Fatalf("validators: Block %d, OptionalBlock %d, want one each", len(required.Validators), len(optional.Validators))
	}
	if reflect.TypeOf(optional.Validators[0]) == reflect.TypeOf(required.Validators[0]) {
		t.Error("OptionalBlock keeps Block's IsRequired validator: a group without GPUs would be refused")
	}
}

// Every attribute of the block has a description for the generated docs.
func TestBlockDescribesEveryAttribute(t *testing.T) {
	b := Block()
	for name, a := range b.Attributes {
		if a.GetMarkdownDescription() == "" {
			t.Errorf("gpu.%s has no MarkdownDescription", name)
		}
	}
	for name, nested := range b.Blocks {
		if nested.GetMarkdownDescription() == "" {
			t.Errorf("gpu.%s has no MarkdownDescription", name)
		}
	}
}
