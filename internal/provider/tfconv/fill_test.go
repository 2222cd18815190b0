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

type fillModel struct {
	Name     types.String `tfsdk:"name"`
	On       types.Bool   `tfsdk:"on"`
	Maybe    types.Bool   `tfsdk:"maybe"`
	Count    types.Int64  `tfsdk:"count"`
	Port     types.Int64  `tfsdk:"port"`
	Limit    types.Int64  `tfsdk:"limit"`
	Deadline types.Int64  `tfsdk:"deadline"`
	Args     types.List   `tfsdk:"args"`
	Ports    types.List   `tfsdk:"ports"`
	Labels   types.Map    `tfsdk:"labels"`
}

type fillTarget struct {
	Name     string
	On       bool
	Maybe    *bool
	Count    int64
	Port     int32
	Limit    *int32
	Deadline *int64
	Args     []string
	Ports    []int32
	Labels   map[string]string
	Extra    string // not in the model: left alone
}

func TestFill_convertsEveryFieldByTargetType(t *testing.T) {
	c := &Converter{Ctx: context.Background()}
	got := fillTarget{Extra: "kept"}
	Fill(c, fillModel{
		Name: types.StringValue("a"), On: types.BoolValue(true), Maybe: types.BoolValue(false),
		Count: types.Int64Value(3), Port: types.Int64Value(8080), Limit: types.Int64Value(2), Deadline: types.Int64Null(),
		Args:   types.ListValueMust(types.StringType, []attr.Value{types.StringValue("x")}),
		Ports:  types.ListValueMust(types.Int64Type, []attr.Value{types.Int64Value(80)}),
		Labels: types.MapValueMust(types.StringType, map[string]attr.Value{"k": types.StringValue("v")}),
	}, &got)
	no, two := false, int32(2)
	want := fillTarget{Name: "a", On: true, Maybe: &no, Count: 3, Port: 8080, Limit: &two, Args: []string{"x"},
		Ports: []int32{80}, Labels: map[string]string{"k": "v"}, Extra: "kept"}
	if !reflect.DeepEqual(got, want) || c.Unknown || c.Diags.HasError() {
		t.Fatalf("got %+v (unknown %v, %v), want %+v", got, c.Unknown, c.Diags, want)
	}
}

func TestFill_unknownMarksTheConversion(t *testing.T) {
	c := &Converter{Ctx: context.Background()}
	var got fillTarget
	Fill(c, fillModel{Name: types.StringUnknown(), Limit: types.Int64Unknown(), Args: types.ListNull(types.StringType),
		Ports: types.ListNull(types.Int64Type), Labels: types.MapNull(types.StringType)}, &got)
	if !c.Unknown || got.Limit != nil {
		t.Fatalf("an unknown value must mark the conversion and leave optional fields nil: %+v", got)
	}
}

func TestFillObject_nullBlockIsNil(t *testing.T) {
	c := &Converter{Ctx: context.Background()}
	if got := FillObject[fillModel, fillTarget](c, types.ObjectNull(nil)); got != nil || c.Unknown {
		t.Fatalf("a null block must give nil, got %+v", got)
	}
}

// A model field render lacks is a provider bug: an error that says which
// field, never a panic that would take the provider down mid-plan.
func TestFill_modelFieldWithoutTargetIsAnError(t *testing.T) {
	var target struct{ Name string }
	c := &Converter{}
	Fill(c, fillModel{}, &target)
	if !c.Diags.HasError() || !strings.Contains(c.Diags.Errors()[0].Detail(), "has no field On") {
		t.Fatalf("want an error naming the field, got %v", c.Diags)
	}
	var diags diag.Diagnostics
	ModelOf[fillModel](&target, &diags)
	if !diags.HasError() {
		t.Fatal("ModelOf of a struct lacking a model field must be an error")
	}
}

func TestModelOf_isFillsInverse(t *testing.T) {
	yes, two, deadline := true, int32(2), int64(60)
	in := fillTarget{Name: "a", On: true, Maybe: &yes, Count: 3, Port: 8080, Limit: &two, Deadline: &deadline,
		Args: []string{"x"}, Ports: []int32{80}, Labels: map[string]string{"k": "v"}}
	c := &Converter{Ctx: context.Background()}
	var back fillTarget
	var diags diag.Diagnostics
	Fill(c, ModelOf[fillModel](&in, &diags), &back)
	if !reflect.DeepEqual(back, in) || c.Unknown || diags.HasError() || c.Diags.HasError() {
		t.Fatalf("round trip gave %+v, want %+v", back, in)
	}
}

func TestModelOf_zeroValuesAreNull(t *testing.T) {
	var diags diag.Diagnostics
	m := ModelOf[fillModel](&fillTarget{}, &diags)
	for _, v := range []attr.Value{m.Name, m.On, m.Maybe, m.Count, m.Port, m.Limit, m.Deadline, m.Args, m.Ports, m.Labels} {
		if !v.IsNull() {
			t.Errorf("%s: a zero value must be null, as a configuration leaving it out", v)
		}
	}
}
