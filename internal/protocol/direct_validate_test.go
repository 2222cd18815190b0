package protocol

import (
	"context"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/objectvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpuform/terraform-provider-gpu/internal/protocol/protocoltest"
)

// validatedSchema has a validator of every kind the provider's resources
// use, where they use them: top-level attributes, a single block that must
// be there, a list block, attributes of nested blocks and of a map nested
// attribute, and validators that read other attributes of the
// configuration (ConflictsWith, AlsoRequires).
func validatedSchema() schema.Schema {
	return schema.Schema{
		Attributes: map[string]schema.Attribute{
			"id":   schema.StringAttribute{Computed: true},
			"name": schema.StringAttribute{Required: true, Validators: []validator.String{stringvalidator.LengthAtMost(5)}},
			"mode": schema.StringAttribute{Optional: true, Validators: []validator.String{
				stringvalidator.OneOf("a", "b"), stringvalidator.ConflictsWith(path.MatchRoot("size"))}},
			"size":   schema.Int64Attribute{Optional: true, Validators: []validator.Int64{int64validator.Between(1, 8)}},
			"tags":   schema.ListAttribute{Optional: true, ElementType: types.StringType, Validators: []validator.List{listvalidator.UniqueValues()}},
			"labels": schema.MapAttribute{Optional: true, ElementType: types.StringType, Validators: []validator.Map{mapvalidator.SizeAtMost(1)}},
			"pool":   schema.ObjectAttribute{Optional: true, AttributeTypes: map[string]attr.Type{"gpus": types.Int64Type}},
			"env": schema.MapNestedAttribute{Optional: true, NestedObject: schema.NestedAttributeObject{
				Attributes: map[string]schema.Attribute{"key": schema.StringAttribute{Required: true,
					Validators: []validator.String{stringvalidator.LengthAtLeast(2)}}},
			}},
		},
		Blocks: map[string]schema.Block{
			"gpu": schema.SingleNestedBlock{
				Validators: []validator.Object{objectvalidator.IsRequired()},
				Attributes: map[string]schema.Attribute{
					"count": schema.Int64Attribute{Optional: true, Validators: []validator.Int64{int64validator.AtLeast(1)}},
					"kind": schema.StringAttribute{Optional: true, Validators: []validator.String{
						stringvalidator.AlsoRequires(path.MatchRelative().AtParent().AtName("count"))}},
				},
			},
			"port": schema.ListNestedBlock{
				Validators: []validator.List{listvalidator.SizeAtMost(2)},
				NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
					"number": schema.Int64Attribute{Required: true, Validators: []validator.Int64{int64validator.Between(1, 65535)}},
				}},
			},
		},
	}
}

// Every validator the configuration breaks is reported directly as by the
// framework, no more and no less, with its path; a valid configuration
// gets nothing from either.
func TestDirectValidate_matchesTheFramework(t *testing.T) {
	ctx := context.Background()
	s := validatedSchema()
	p := protocoltest.Sized(s)
	server := &Server{ProviderServer: providerserver.NewProtocol6(p)(), schemas: newSchemaIndex(p)}
	direct := server.schemas.directResource(ctx, protocoltest.SizedType)
	if direct == nil || direct.schema.validateRefusal != nil {
		t.Fatalf("the fixture is not validated directly: %v", server.ServedDirectly(ctx, protocoltest.SizedType))
	}
	objType := asType[tftypes.Object](t, s.Type().TerraformType(ctx))
	gpuType := asType[tftypes.Object](t, objType.AttributeTypes["gpu"])
	portType := asType[tftypes.List](t, objType.AttributeTypes["port"])
	envType := asType[tftypes.Map](t, objType.AttributeTypes["env"])
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	num := func(n int64) tftypes.Value { return tftypes.NewValue(tftypes.Number, n) }
	gpu := func(count tftypes.Value, kind string) tftypes.Value {
		k := tftypes.NewValue(tftypes.String, nil)
		if kind != "" {
			k = str(kind)
		}
		return tftypes.NewValue(gpuType, map[string]tftypes.Value{"count": count, "kind": k})
	}
	ports := func(numbers ...int64) tftypes.Value {
		var elements []tftypes.Value
		for _, n := range numbers {
			elements = append(elements, tftypes.NewValue(portType.ElementType, map[string]tftypes.Value{"number": num(n)}))
		}
		return tftypes.NewValue(portType, elements)
	}
	config := func(set map[string]tftypes.Value) tftypes.Value {
		base := map[string]tftypes.Value{"name": str("a"), "gpu": gpu(num(1), ""), "port": ports()}
		for k, v := range set {
			base[k] = v
		}
		return tftypes.NewValue(objType, protocoltest.WithAttributes(objType, base))
	}
	cases := []struct {
		name   string
		config tftypes.Value
		want   []string // summaries the direct path must report
	}{
		{"valid", config(map[string]tftypes.Value{"mode": str("a"), "port": ports(80, 443)}), nil},
		{"top-level string", config(map[string]tftypes.Value{"name": str("toolong"), "mode": str("c")}),
			[]string{"Invalid Attribute Value Length", "Invalid Attribute Value Match"}},
		{"conflicting attributes", config(map[string]tftypes.Value{"mode": str("a"), "size": num(2)}), []string{"Invalid Attribute Combination"}},
		{"int64 and list", config(map[string]tftypes.Value{"size": num(9), "tags": tftypes.NewValue(tftypes.List{ElementType: tftypes.String},
			[]tftypes.Value{str("x"), str("x")})}), []string{"Invalid Attribute Value", "Duplicate List Value"}},
		{"map", config(map[string]tftypes.Value{"labels": tftypes.NewValue(tftypes.Map{ElementType: tftypes.String},
			map[string]tftypes.Value{"a": str("1"), "b": str("2")})}), []string{"Invalid Attribute Value"}},
		{"required block missing", config(map[string]tftypes.Value{"gpu": tftypes.NewValue(gpuType, nil)}), []string{"Invalid Block"}},
		{"nested block attributes", config(map[string]tftypes.Value{"gpu": gpu(tftypes.NewValue(tftypes.Number, nil), "x")}),
			[]string{"Invalid Attribute Combination"}},
		{"list block's elements", config(map[string]tftypes.Value{"port": ports(0, 70000)}),
			[]string{"Invalid Attribute Value", "Invalid Attribute Value"}},
		// The framework does not look into a block whose own validators
		// failed.
		{"list block too long", config(map[string]tftypes.Value{"port": ports(0, 80, 70000)}), []string{"Invalid Attribute Value"}},
		{"map nested attribute", config(map[string]tftypes.Value{"env": tftypes.NewValue(envType, map[string]tftypes.Value{
			"A": tftypes.NewValue(envType.ElementType, map[string]tftypes.Value{"key": str("k")})})}), []string{"Invalid Attribute Value Length"}},
		{"unknown values", config(map[string]tftypes.Value{"name": tftypes.NewValue(tftypes.String, tftypes.UnknownValue),
			"gpu": tftypes.NewValue(gpuType, tftypes.UnknownValue), "port": tftypes.NewValue(portType, tftypes.UnknownValue)}), nil},
		{"read-only attribute set", config(map[string]tftypes.Value{"id": str("x")}), []string{"Invalid Configuration for Read-Only Attribute"}},
		{"required attribute null", config(map[string]tftypes.Value{"name": tftypes.NewValue(tftypes.String, nil)}),
			[]string{"Missing Configuration for Required Attribute"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := &tfprotov6.ValidateResourceConfigRequest{TypeName: protocoltest.SizedType, Config: protocoltest.DynamicValue(t, objType, c.config)}
			want, err := server.validateWithFramework(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			got := direct.validate(ctx, c.config, nil, nil)
			w, g := diagnosticStrings(want.Diagnostics), diagnosticStrings(got)
			slices.Sort(w)
			slices.Sort(g)
			if !slices.Equal(w, g) {
				t.Fatalf("framework:\n%q\ndirect:\n%q", w, g)
			}
			var summaries []string
			for _, d := range got {
				summaries = append(summaries, d.Summary)
			}
			slices.Sort(summaries)
			wantSummaries := slices.Clone(c.want)
			slices.Sort(wantSummaries)
			if !slices.Equal(summaries, wantSummaries) {
				t.Errorf("diagnostics %q, want %q", summaries, wantSummaries)
			}
		})
	}
}

// Validation the direct path does not cover stays with the framework.
func TestDirectValidate_refusesInt32(t *testing.T) {
	s := schema.Schema{Attributes: map[string]schema.Attribute{"n": schema.Int32Attribute{Optional: true}}}
	d, err := newDirectSchema(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if d.validateRefusal == nil {
		t.Fatal("an Int32 attribute was accepted for direct validation")
	}
}
