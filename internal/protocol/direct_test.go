package protocol

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpuform/terraform-provider-gpu/internal/protocol/protocoltest"
)

// Schemas the direct planner cannot serve exactly are left to the
// framework, with the reason.
func TestDirectPlanner_refusesWhatItDoesNotSupport(t *testing.T) {
	for name, s := range map[string]schema.Schema{
		"a nested plan modifier": {Blocks: map[string]schema.Block{
			"b": schema.SingleNestedBlock{Attributes: map[string]schema.Attribute{
				"x": schema.StringAttribute{Optional: true, PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			}},
		}},
		"a bool plan modifier": {Attributes: map[string]schema.Attribute{
			"x": schema.BoolAttribute{Optional: true, PlanModifiers: []planmodifier.Bool{boolplanmodifier.RequiresReplace()}},
		}},
		"a nested default": {Attributes: map[string]schema.Attribute{
			"o": schema.SingleNestedAttribute{Optional: true, Attributes: map[string]schema.Attribute{
				"x": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("d")},
			}},
		}},
		"a write-only attribute": {Attributes: map[string]schema.Attribute{
			"x": schema.StringAttribute{Optional: true, WriteOnly: true},
		}},
	} {
		if _, err := newDirectSchema(context.Background(), s); err == nil {
			t.Errorf("a schema with %s is served directly; want the framework", name)
		}
	}
}

// planCase is one PlanResourceChange request and what it must show, so a
// case that stops exercising its rule fails instead of passing vacuously.
type planCase struct {
	name                     string
	config, prior, proposed  tftypes.Value
	wantReplace, wantUnknown bool
	wantError                bool
}

// blocksFixture is a resource with what gpu_workload does not have: list
// blocks (empty, nested, holding computed attributes) and a map plan
// modifier; served by the framework and directly, with values of it.
type blocksFixture struct {
	server                             *Server
	objType                            tftypes.Object
	withRules, noRules, state, relabel tftypes.Value
}

func newBlocksFixture(t *testing.T) blocksFixture {
	t.Helper()
	s := schema.Schema{
		Attributes: map[string]schema.Attribute{
			"id":     schema.StringAttribute{Computed: true, PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"name":   schema.StringAttribute{Required: true},
			"mode":   schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("auto")},
			"labels": schema.MapAttribute{Optional: true, ElementType: types.StringType, PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplace()}},
			"status": schema.ListNestedAttribute{Computed: true, NestedObject: schema.NestedAttributeObject{
				Attributes: map[string]schema.Attribute{"phase": schema.StringAttribute{Computed: true}},
			}},
		},
		Blocks: map[string]schema.Block{
			"rule": schema.ListNestedBlock{NestedObject: schema.NestedBlockObject{
				Attributes: map[string]schema.Attribute{
					"key":  schema.StringAttribute{Optional: true},
					"seen": schema.StringAttribute{Computed: true},
				},
				Blocks: map[string]schema.Block{
					"match": schema.SetNestedBlock{NestedObject: schema.NestedBlockObject{
						Attributes: map[string]schema.Attribute{"value": schema.StringAttribute{Optional: true}},
					}},
				},
			}},
		},
	}
	p := protocoltest.Sized(s)
	f := blocksFixture{
		server:  &Server{ProviderServer: providerserver.NewProtocol6(p)(), schemas: newSchemaIndex(p)},
		objType: asType[tftypes.Object](t, s.Type().TerraformType(context.Background())),
	}
	ruleType := asType[tftypes.Object](t, asType[tftypes.List](t, f.objType.AttributeTypes["rule"]).ElementType)
	matchType := asType[tftypes.Set](t, ruleType.AttributeTypes["match"])
	rule := func(key string, matches ...string) tftypes.Value {
		elements := []tftypes.Value{}
		for _, m := range matches {
			elements = append(elements, tftypes.NewValue(matchType.ElementType, map[string]tftypes.Value{"value": tftypes.NewValue(tftypes.String, m)}))
		}
		return tftypes.NewValue(ruleType, map[string]tftypes.Value{
			"key": tftypes.NewValue(tftypes.String, key), "seen": tftypes.NewValue(tftypes.String, nil),
			"match": tftypes.NewValue(matchType, elements),
		})
	}
	object := func(rules []tftypes.Value, team string) tftypes.Value {
		labels := tftypes.NewValue(tftypes.Map{ElementType: tftypes.String}, nil)
		if team != "" {
			labels = tftypes.NewValue(tftypes.Map{ElementType: tftypes.String}, map[string]tftypes.Value{"team": tftypes.NewValue(tftypes.String, team)})
		}
		return tftypes.NewValue(f.objType, protocoltest.WithAttributes(f.objType, map[string]tftypes.Value{
			"name": tftypes.NewValue(tftypes.String, "a"), "labels": labels,
			"rule": tftypes.NewValue(f.objType.AttributeTypes["rule"], rules),
		}))
	}
	f.withRules = object([]tftypes.Value{rule("k", "v1", "v2"), rule("empty")}, "ml")
	f.noRules = object([]tftypes.Value{}, "")
	f.state = protocoltest.WithValue(protocoltest.WithValue(f.withRules, "id", tftypes.NewValue(tftypes.String, "id-1")), "mode", tftypes.NewValue(tftypes.String, "auto"))
	f.relabel = object([]tftypes.Value{rule("k", "v1", "v2"), rule("empty")}, "infra")
	return f
}

// The same on a schema with what gpu_workload does not have.
func TestDirectPlanner_matchesTheFrameworkOnBlocks(t *testing.T) {
	f := newBlocksFixture(t)
	null := tftypes.NewValue(f.objType, nil)
	checkPlanCases(t, f.server, "sized", f.objType, []planCase{
		{name: "create with rules", config: f.withRules, prior: null, proposed: f.withRules, wantUnknown: true},
		{name: "create with no rule", config: f.noRules, prior: null, proposed: f.noRules, wantUnknown: true},
		{name: "no change", config: f.withRules, prior: f.state, proposed: protocoltest.ProposedNew(f.withRules, f.state)},
		{name: "relabelled", config: f.relabel, prior: f.state, proposed: protocoltest.ProposedNew(f.relabel, f.state), wantReplace: true, wantUnknown: true},
		{name: "destroy", config: null, prior: f.state, proposed: null},
	})
}

// The resource sees empty list and set blocks as null, at every depth, and
// Terraform gets them back empty (docs/design/framework.md#reading-a-request):
// the shadow comparisons cannot see this, because both sides give them back
// empty, so it is checked on its own.
func TestDirectSchema_emptyBlocksReadAsNull(t *testing.T) {
	f := newBlocksFixture(t)
	direct := f.server.schemas.directResource(context.Background(), "sized")
	nulled := objectAttributes(direct.schema.nullifyCollectionBlocks(f.noRules))
	if !nulled["rule"].IsNull() {
		t.Errorf("an empty rule block reads as %v, want null", nulled["rule"])
	}
	var rules []tftypes.Value
	if err := objectAttributes(direct.schema.nullifyCollectionBlocks(f.withRules))["rule"].As(&rules); err != nil || len(rules) != 2 {
		t.Fatalf("rules = %v, %v", rules, err)
	}
	if match := objectAttributes(rules[1])["match"]; !match.IsNull() {
		t.Errorf("the empty match block of a rule reads as %v, want null", match)
	}
	if back := direct.schema.reifyNullCollectionBlocks(direct.schema.nullifyCollectionBlocks(f.withRules)); !back.Equal(f.withRules) {
		t.Errorf("given back as %v, want %v", back, f.withRules)
	}
}

// A read answers as the framework's: the resource's Read sees empty list
// blocks as null, and the state goes back with them empty.
func TestDirectRead_matchesTheFramework(t *testing.T) {
	f := newBlocksFixture(t)
	ctx := context.Background()
	direct := f.server.schemas.directResource(ctx, "sized")
	for name, state := range map[string]tftypes.Value{"rules": f.state, "no rule": f.noRules} {
		req := &tfprotov6.ReadResourceRequest{TypeName: "sized", CurrentState: protocoltest.DynamicValue(t, f.objType, state)}
		if !direct.servesRead(req) {
			t.Fatalf("%s: not read directly", name)
		}
		want, err := f.server.ProviderServer.ReadResource(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		got := direct.read(ctx, req, nil)
		if diff := stateDifference(f.objType, want.NewState, got.NewState, want.Diagnostics, got.Diagnostics); diff != "" {
			t.Errorf("%s: %s", name, diff)
		}
		if !bytes.Equal(want.Private, got.Private) {
			t.Errorf("%s: private: framework %q, direct %q", name, want.Private, got.Private)
		}
		if decoded := decodePlanned(f.objType, got.NewState); !decoded.Equal(state) {
			t.Errorf("%s: read changed the state: %v", name, decoded)
		}
	}
}

// An apply answers as the framework's: create (the fixture's Create sets
// no state, which both report), update and delete.
func TestDirectApply_matchesTheFramework(t *testing.T) {
	f := newBlocksFixture(t)
	ctx := context.Background()
	direct := f.server.schemas.directResource(ctx, "sized")
	null := tftypes.NewValue(f.objType, nil)
	for _, c := range []struct {
		name                   string
		config, prior, planned tftypes.Value
		wantError, wantNoState bool
	}{
		{name: "create", config: f.withRules, prior: null, planned: f.state, wantError: true, wantNoState: true},
		{name: "update", config: f.relabel, prior: f.state, planned: protocoltest.ProposedNew(f.relabel, f.state)},
		{name: "update, no rule", config: f.noRules, prior: f.noRules, planned: f.noRules},
		{name: "delete", config: null, prior: f.state, planned: null, wantNoState: true},
	} {
		req := &tfprotov6.ApplyResourceChangeRequest{
			TypeName: "sized", Config: protocoltest.DynamicValue(t, f.objType, c.config),
			PriorState: protocoltest.DynamicValue(t, f.objType, c.prior), PlannedState: protocoltest.DynamicValue(t, f.objType, c.planned),
		}
		if !direct.servesApply(req) {
			t.Fatalf("%s: not applied directly", c.name)
		}
		want, err := f.server.ProviderServer.ApplyResourceChange(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		got := direct.apply(ctx, req, nil)
		if diff := stateDifference(f.objType, want.NewState, got.NewState, want.Diagnostics, got.Diagnostics); diff != "" {
			t.Errorf("%s: %s", c.name, diff)
		}
		if !bytes.Equal(want.Private, got.Private) {
			t.Errorf("%s: private: framework %q, direct %q", c.name, want.Private, got.Private)
		}
		if c.wantError != diagnosticsFail(got.Diagnostics) {
			t.Errorf("%s: diagnostics %q", c.name, diagnosticStrings(got.Diagnostics))
		}
		if c.wantNoState != decodePlanned(f.objType, got.NewState).IsNull() {
			t.Errorf("%s: new state %v", c.name, decodePlanned(f.objType, got.NewState))
		}
	}
}

// A state of the current version is read with the schema and passed on as
// the framework does, attributes the schema no longer has dropped; a state
// of an older version goes to the framework.
func TestDirectUpgrade_matchesTheFramework(t *testing.T) {
	f := newBlocksFixture(t)
	ctx := context.Background()
	direct := f.server.schemas.directResource(ctx, "sized")
	raw := `{"id":"id-1","name":"a","mode":"auto","labels":{"team":"ml"},"status":null,"dropped":1,` +
		`"rule":[{"key":"k","seen":null,"match":[{"value":"v1"}]},{"key":"e","seen":"x","match":[]}]}`
	for name, json := range map[string]string{"rules": raw, "no rule": `{"id":"id-1","name":"a","rule":[]}`, "unreadable": `{"name":{"not":"a string"}}`} {
		req := &tfprotov6.UpgradeResourceStateRequest{TypeName: "sized", Version: 0, RawState: &tfprotov6.RawState{JSON: []byte(json)}}
		want, err := f.server.ProviderServer.UpgradeResourceState(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		got := direct.upgrade(ctx, req)
		if diff := stateDifference(f.objType, want.UpgradedState, got.UpgradedState, want.Diagnostics, got.Diagnostics); diff != "" {
			t.Errorf("%s: %s", name, diff)
		}
		if (name == "unreadable") != diagnosticsFail(got.Diagnostics) {
			t.Errorf("%s: diagnostics %q", name, diagnosticStrings(got.Diagnostics))
		}
	}
	if direct.servesUpgrade(&tfprotov6.UpgradeResourceStateRequest{Version: 1, RawState: &tfprotov6.RawState{JSON: []byte(raw)}}) {
		t.Error("a state of another version is upgraded directly; want the framework's upgraders")
	}
}

// checkPlanCases plans each case directly and with the framework and
// fails on any difference, or when a case does not show what it is for.
func checkPlanCases(t *testing.T, server *Server, typeName string, objType tftypes.Object, cases []planCase) {
	t.Helper()
	ctx := context.Background()
	direct := server.schemas.directResource(ctx, typeName)
	if direct == nil {
		t.Fatalf("%s is not served directly", typeName)
	}
	data := server.resourceData()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := &tfprotov6.PlanResourceChangeRequest{
				TypeName: typeName, Config: protocoltest.DynamicValue(t, objType, c.config),
				PriorState: protocoltest.DynamicValue(t, objType, c.prior), ProposedNewState: protocoltest.DynamicValue(t, objType, c.proposed),
			}
			want, err := server.ProviderServer.PlanResourceChange(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			got := direct.plan(ctx, req, data)
			if diff := planDifference(objType, want, got); diff != "" {
				t.Fatal(diff)
			}
			planned := decodePlanned(objType, got.PlannedState)
			if c.wantReplace != (len(got.RequiresReplace) > 0) {
				t.Errorf("requires replace = %v, want it %v", pathStrings(got.RequiresReplace), c.wantReplace)
			}
			if !c.proposed.IsNull() && c.wantUnknown == planned.IsFullyKnown() {
				t.Errorf("planned state fully known = %v, want %v", planned.IsFullyKnown(), !c.wantUnknown)
			}
			if c.wantError != diagnosticsFail(got.Diagnostics) {
				t.Errorf("diagnostics %q, want an error: %v", diagnosticStrings(got.Diagnostics), c.wantError)
			}
		})
	}
}

// asType is v as a T, failing the test otherwise.
func asType[T any](t *testing.T, v any) T {
	t.Helper()
	typed, ok := v.(T)
	if !ok {
		t.Fatalf("%T is not a %T", v, typed)
	}
	return typed
}

func diagnosticsFail(diags []*tfprotov6.Diagnostic) bool {
	return slices.ContainsFunc(diags, func(d *tfprotov6.Diagnostic) bool { return d.Severity == tfprotov6.DiagnosticSeverityError })
}
