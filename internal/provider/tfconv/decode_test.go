package tfconv

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

type decodeRef struct {
	Name string
	Key  string
}

type decodeTarget struct {
	Name         string
	GPUsPerNode  int64
	HTTPPath     string
	On           bool
	Maybe        *bool
	Port         int32
	Limit        *int32
	Args         []string
	Ports        []int32
	Labels       map[string]string
	Unschedulabe string `tf:"unschedulable_timeout"`
	Ref          *decodeRef
	Refs         []decodeRef
	Secrets      map[string]decodeRef
	Internal     string `tf:"-"`
}

var refType = types.ObjectType{AttrTypes: map[string]attr.Type{"name": types.StringType, "key": types.StringType}}

var decodeTypes = map[string]attr.Type{
	"name": types.StringType, "gpus_per_node": types.Int64Type, "http_path": types.StringType, "on": types.BoolType,
	"maybe": types.BoolType, "port": types.Int64Type, "limit": types.Int64Type,
	"args": types.ListType{ElemType: types.StringType}, "ports": types.ListType{ElemType: types.Int64Type},
	"labels": types.MapType{ElemType: types.StringType}, "unschedulable_timeout": types.StringType,
	"ref": refType, "refs": types.ListType{ElemType: refType}, "secrets": types.MapType{ElemType: refType},
}

func ref(name, key string) types.Object {
	return types.ObjectValueMust(refType.AttrTypes, map[string]attr.Value{"name": types.StringValue(name), "key": types.StringValue(key)})
}

func decodeBlock(overrides map[string]attr.Value) types.Object {
	values := map[string]attr.Value{
		"name": types.StringValue("a"), "gpus_per_node": types.Int64Value(8), "http_path": types.StringValue("/healthz"),
		"on": types.BoolValue(true), "maybe": types.BoolValue(false), "port": types.Int64Value(8080),
		"limit": types.Int64Null(), "args": types.ListValueMust(types.StringType, []attr.Value{types.StringValue("x")}),
		"ports":                 types.ListValueMust(types.Int64Type, []attr.Value{types.Int64Value(80)}),
		"labels":                types.MapValueMust(types.StringType, map[string]attr.Value{"k": types.StringValue("v")}),
		"unschedulable_timeout": types.StringValue("5m"), "ref": ref("s", "k"),
		"refs":    types.ListValueMust(refType, []attr.Value{ref("a", "1"), ref("b", "2")}),
		"secrets": types.MapValueMust(refType, map[string]attr.Value{"TOKEN": ref("t", "token")}),
	}
	for k, v := range overrides {
		values[k] = v
	}
	return types.ObjectValueMust(decodeTypes, values)
}

func TestDecode_matchesAttributesToFieldsByNameOrTag(t *testing.T) {
	c := &Converter{Ctx: context.Background()}
	got := Decode[decodeTarget](c, decodeBlock(nil))
	no := false
	want := &decodeTarget{Name: "a", GPUsPerNode: 8, HTTPPath: "/healthz", On: true, Maybe: &no, Port: 8080,
		Args: []string{"x"}, Ports: []int32{80}, Labels: map[string]string{"k": "v"}, Unschedulabe: "5m",
		Ref: &decodeRef{Name: "s", Key: "k"}, Refs: []decodeRef{{"a", "1"}, {"b", "2"}},
		Secrets: map[string]decodeRef{"TOKEN": {"t", "token"}}}
	if !reflect.DeepEqual(got, want) || c.Unknown || c.Diags.HasError() {
		t.Fatalf("got %+v (unknown %v, %v), want %+v", got, c.Unknown, c.Diags, want)
	}
}

func TestDecode_unknownKeepsTheOthersAndMarksTheConversion(t *testing.T) {
	c := &Converter{Ctx: context.Background()}
	got := Decode[decodeTarget](c, decodeBlock(map[string]attr.Value{
		"name": types.StringUnknown(),
		"refs": types.ListValueMust(refType, []attr.Value{types.ObjectUnknown(refType.AttrTypes), ref("b", "2")}),
	}))
	if !c.Unknown || c.Diags.HasError() {
		t.Fatalf("unknown %v, diags %v: want the conversion marked unknown without errors", c.Unknown, c.Diags)
	}
	if got.Name != "" || got.Port != 8080 || len(got.Refs) != 2 || got.Refs[1].Name != "b" {
		t.Fatalf("got %+v: want the unknown name empty, the rest decoded, and the known element in its place", got)
	}
	if Decode[decodeTarget](c, types.ObjectUnknown(decodeTypes)) != nil || Decode[decodeTarget](c, types.ObjectNull(decodeTypes)) != nil {
		t.Fatal("an unknown or null block must decode to nil")
	}
}

func TestDecode_attributeWithoutFieldIsAProviderBugNotAPanic(t *testing.T) {
	c := &Converter{Ctx: context.Background()}
	Decode[decodeRef](c, stringsObject(map[string]attr.Type{"name": types.StringType, "colour": types.StringType}))
	if !c.Diags.HasError() || !strings.Contains(c.Diags.Errors()[0].Detail(), `"colour"`) {
		t.Fatalf("want a provider-bug diagnostic naming the attribute, got %v", c.Diags)
	}
}

func stringsObject(attrTypes map[string]attr.Type) types.Object {
	values := map[string]attr.Value{}
	for name := range attrTypes {
		values[name] = types.StringValue("x")
	}
	return types.ObjectValueMust(attrTypes, values)
}

func TestDecode_wrongKindIsAProviderBug(t *testing.T) {
	c := &Converter{Ctx: context.Background()}
	Decode[struct{ Name int64 }](c, types.ObjectValueMust(map[string]attr.Type{"name": types.StringType},
		map[string]attr.Value{"name": types.StringValue("x")}))
	if !c.Diags.HasError() {
		t.Fatal("a string attribute into an integer field must be a provider-bug diagnostic")
	}
}

func TestEncode_isDecodesInverseWithZeroValuesNull(t *testing.T) {
	a := typed{types.ObjectType{AttrTypes: decodeTypes}}
	c := &Converter{Ctx: context.Background()}
	want := decodeBlock(map[string]attr.Value{"limit": types.Int64Null()})
	decoded := Decode[decodeTarget](c, want)
	var diags diag.Diagnostics
	got := Encode(a, decoded, &diags)
	if diags.HasError() || !got.Equal(want) {
		t.Fatalf("round trip: got %v (%v), want %v", got, diags, want)
	}
	empty := Encode(a, &decodeTarget{}, &diags)
	if empty.Attributes()["name"].IsNull() != true || empty.Attributes()["refs"].IsNull() != true {
		t.Fatalf("zero values must encode as null, got %v", empty)
	}
	if !Encode(a, (*decodeTarget)(nil), &diags).IsNull() {
		t.Fatal("a nil struct must encode as a null block")
	}
}

type typed struct{ t attr.Type }

func (t typed) GetType() attr.Type { return t.t }

type pooled struct{ ID string }

func TestDecode_hooksDecodeTheirTypeWithThePath(t *testing.T) {
	var seen [][]any
	key, hook := HookFor(func(at []any, v attr.Value) pooled {
		seen = append(seen, at)
		s, _ := v.(types.String)
		return pooled{ID: "pool:" + s.ValueString()}
	})
	c := &Converter{Ctx: context.Background(), Hooks: map[reflect.Type]DecodeHook{key: hook}}
	itemType := types.ObjectType{AttrTypes: map[string]attr.Type{"node_pool": types.StringType}}
	block := types.ObjectValueMust(map[string]attr.Type{"items": types.ListType{ElemType: itemType}}, map[string]attr.Value{
		"items": types.ListValueMust(itemType, []attr.Value{
			types.ObjectValueMust(itemType.AttrTypes, map[string]attr.Value{"node_pool": types.StringValue("a")}),
			types.ObjectValueMust(itemType.AttrTypes, map[string]attr.Value{"node_pool": types.StringUnknown()}),
		}),
	})
	type item struct{ NodePool pooled }
	got := DecodeAt[struct{ Items []item }](c, []any{"block"}, block)
	if got == nil || len(got.Items) != 2 || got.Items[0].NodePool.ID != "pool:a" || got.Items[1].NodePool.ID != "pool:" {
		t.Fatalf("got %+v: want each node_pool through the hook, the unknown one too", got)
	}
	want := [][]any{{"block", "items", 0, "node_pool"}, {"block", "items", 1, "node_pool"}}
	if !reflect.DeepEqual(seen, want) {
		t.Fatalf("hook paths %v, want %v", seen, want)
	}
}

// sharedFields is embedded by two render structs that share attributes.
type sharedFields struct {
	Name        string
	GPUsPerNode int64
}

type embeddingTarget struct {
	sharedFields
	HTTPPath string
	// Through a pointer, a promoted field is not followed (it may be nil).
	*pooled
}

func TestDecode_embeddedStructFieldsAreTheStructsOwn(t *testing.T) {
	types3 := map[string]attr.Type{"name": types.StringType, "gpus_per_node": types.Int64Type, "http_path": types.StringType}
	block := types.ObjectValueMust(types3, map[string]attr.Value{
		"name": types.StringValue("a"), "gpus_per_node": types.Int64Value(8), "http_path": types.StringValue("/"),
	})
	c := &Converter{Ctx: context.Background()}
	got := Decode[embeddingTarget](c, block)
	want := &embeddingTarget{sharedFields: sharedFields{Name: "a", GPUsPerNode: 8}, HTTPPath: "/"}
	if !reflect.DeepEqual(got, want) || c.Diags.HasError() {
		t.Fatalf("got %+v (%v), want %+v", got, c.Diags, want)
	}
	var diags diag.Diagnostics
	if back := Encode(typed{types.ObjectType{AttrTypes: types3}}, got, &diags); diags.HasError() || !back.Equal(block) {
		t.Fatalf("round trip: got %v (%v), want %v", back, diags, block)
	}
	withID := map[string]attr.Type{"id": types.StringType}
	Decode[embeddingTarget](c, types.ObjectValueMust(withID, map[string]attr.Value{"id": types.StringValue("p")}))
	if !c.Diags.HasError() {
		t.Fatal("a field promoted through an embedded pointer was decoded into")
	}
}
