package tfconv

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

type renderedShape struct {
	Name   string            `json:"name,omitempty"`
	Count  int64             `json:"count"`
	Labels map[string]string `json:"labels,omitempty"`
	Items  []string          `json:"items"`
	Driver string            `json:"driver,omitempty"`
	Inner  struct {
		On bool `json:"on"`
	} `json:"inner"`
}

var shapeAttribute = attrOf(map[string]attr.Type{
	"name": types.StringType, "count": types.Int64Type, "labels": types.MapType{ElemType: types.StringType},
	"items": types.ListType{ElemType: types.StringType}, "driver": types.StringType,
	"inner": types.ObjectType{AttrTypes: map[string]attr.Type{"on": types.BoolType}},
})

type attrOf map[string]attr.Type

func (a attrOf) GetType() attr.Type { return types.ObjectType{AttrTypes: a} }

func TestObjectOf_emptyFieldsAreKnownZeroValues(t *testing.T) {
	var diags diag.Diagnostics
	got := ObjectFrom(shapeAttribute, &renderedShape{Count: 2}, &diags, "driver")
	want := `{"count":2,"driver":<null>,"inner":{"on":false},"items":[],"labels":{},"name":""}`
	if diags.HasError() || got.String() != want {
		t.Fatalf("got  %s\nwant %s (%v)", got, want, diags)
	}
}

func TestObjectOf_copiesEveryField(t *testing.T) {
	var diags diag.Diagnostics
	in := &renderedShape{Name: "a", Count: 1 << 40, Labels: map[string]string{"k": "v"}, Items: []string{"x"}, Driver: "None"}
	in.Inner.On = true
	got := ObjectFrom(shapeAttribute, in, &diags, "driver")
	want := `{"count":1099511627776,"driver":"None","inner":{"on":true},"items":["x"],"labels":{"k":"v"},"name":"a"}`
	if diags.HasError() || got.String() != want {
		t.Fatalf("got  %s\nwant %s (%v)", got, want, diags)
	}
}

func TestObjectOf_nilIsNull(t *testing.T) {
	var diags diag.Diagnostics
	if got := ObjectFrom(shapeAttribute, (*renderedShape)(nil), &diags); !got.IsNull() || diags.HasError() {
		t.Fatalf("got %s (%v), want null", got, diags)
	}
}

func TestObjectOf_fieldWithoutAttributeIsAnError(t *testing.T) {
	var diags diag.Diagnostics
	extra := struct {
		renderedShape
		Extra string `json:"extra"`
	}{}
	if ObjectFrom(shapeAttribute, &extra, &diags); !diags.HasError() {
		t.Fatal("a rendered field the schema lacks must be reported")
	}
}
