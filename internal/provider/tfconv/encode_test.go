package tfconv

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

type outputCount struct {
	Name      string
	Published int64
	Allocated int64
	Note      *string
}

func (c outputCount) Free() int64 { return c.Published - c.Allocated }

type outputPool struct {
	Key    string
	Counts []outputCount
	Nodes  []outputCount
}

// outputPoolWithNames shadows Nodes the way a data source adds or reshapes
// a field of render's struct.
type outputPoolWithNames struct {
	outputPool
	Nodes []string
}

var outputCountType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"name": types.StringType, "published": types.Int64Type, "allocated": types.Int64Type, "free": types.Int64Type,
	"note": types.StringType,
}}

var outputPoolsType = typed{types.ListType{ElemType: types.ObjectType{AttrTypes: map[string]attr.Type{
	"key": types.StringType, "counts": types.ListType{ElemType: outputCountType},
	"nodes": types.ListType{ElemType: types.StringType},
}}}}

func TestEncodeOutput_keepsZerosTakesMethodsAndShadowedFields(t *testing.T) {
	var diags diag.Diagnostics
	pools := []outputPoolWithNames{{
		outputPool: outputPool{Key: "", Counts: []outputCount{{Name: "gpu", Published: 4, Allocated: 4}}},
		Nodes:      nil,
	}}
	got := EncodeOutput[types.List](outputPoolsType, pools, &diags)
	if diags.HasError() {
		t.Fatal(diags)
	}
	pool := objectAttributes(t, got.Elements()[0])
	if !pool["key"].Equal(types.StringValue("")) {
		t.Errorf("an empty string must stay a value in an output, got %v", pool["key"])
	}
	if !pool["nodes"].Equal(types.ListValueMust(types.StringType, []attr.Value{})) {
		t.Errorf("a nil slice must be an empty list in an output (the shadowing field, not render's), got %v", pool["nodes"])
	}
	counts, ok := pool["counts"].(types.List)
	if !ok || len(counts.Elements()) != 1 {
		t.Fatalf("counts: got %v", pool["counts"])
	}
	count := objectAttributes(t, counts.Elements()[0])
	if !count["free"].Equal(types.Int64Value(0)) {
		t.Errorf("free must come from the Free method and keep its 0, got %v", count["free"])
	}
	if !count["note"].IsNull() {
		t.Errorf("a nil pointer must stay null, got %v", count["note"])
	}
}

func objectAttributes(t *testing.T, v attr.Value) map[string]attr.Value {
	t.Helper()
	obj, ok := v.(types.Object)
	if !ok {
		t.Fatalf("want an object, got %T", v)
	}
	return obj.Attributes()
}

func TestEncodeOutput_attributeWithoutFieldOrMethodIsAProviderBug(t *testing.T) {
	var diags diag.Diagnostics
	wanting := typed{types.ListType{ElemType: types.ObjectType{AttrTypes: map[string]attr.Type{"missing": types.StringType}}}}
	got := EncodeOutput[types.List](wanting, []outputCount{{Name: "gpu"}}, &diags)
	if !diags.HasError() || !strings.Contains(diags.Errors()[0].Detail(), `"missing"`) {
		t.Fatalf("want a provider-bug diagnostic naming the attribute, got %v", diags)
	}
	if !got.IsNull() {
		t.Errorf("a failed conversion must be a null value, got %v", got)
	}
}

func TestEncodeOutput_wrongValueTypeIsAProviderBugNotAPanic(t *testing.T) {
	var diags diag.Diagnostics
	EncodeOutput[types.Map](outputPoolsType, []outputPoolWithNames{}, &diags)
	if !diags.HasError() {
		t.Fatal("asking for a map from a list attribute must be a provider-bug diagnostic")
	}
}

func TestEncode_importStillTakesNoMethods(t *testing.T) {
	var diags diag.Diagnostics
	Encode(typed{outputCountType}, &outputCount{Name: "gpu"}, &diags)
	if !diags.HasError() {
		t.Fatal("an import must decode back into fields only: a method-backed attribute is a provider bug there")
	}
}
