package protocol

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Shadowed serves like s, and validates, plans and upgrades every resource the direct
// path serves twice, directly and with the framework, failing the call with
// the difference when they disagree. It is for tests: the acceptance tests
// serve the provider through it, so every plan and state Terraform sends
// them also checks the direct path. Applies are shadowed where running one
// twice changes nothing outside the provider: a resource rendered only
// (apply = false), whose create, update and delete only compute state.
// Reads are not shadowed: a second read of the cluster may rightly see
// something else; TestDirectRead_matchesTheFramework covers them. A server
// other than NewServer's is returned as it is.
func Shadowed(s tfprotov6.ProviderServer) tfprotov6.ProviderServer {
	if server, ok := s.(*Server); ok {
		return shadowServer{server}
	}
	return s
}

type shadowServer struct {
	*Server
}

func (s shadowServer) UpgradeResourceState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	return shadow(ctx, s, req.TypeName, req, (*directResource).servesUpgrade, s.Server.UpgradeResourceState,
		s.ProviderServer.UpgradeResourceState,
		func(t tftypes.Type, want, got *tfprotov6.UpgradeResourceStateResponse) (string, *[]*tfprotov6.Diagnostic) {
			return stateDifference(t, want.UpgradedState, got.UpgradedState, want.Diagnostics, got.Diagnostics), &got.Diagnostics
		})
}

func (s shadowServer) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	return shadow(ctx, s, req.TypeName, req, (*directResource).serves, s.Server.PlanResourceChange,
		s.ProviderServer.PlanResourceChange,
		func(t tftypes.Type, want, got *tfprotov6.PlanResourceChangeResponse) (string, *[]*tfprotov6.Diagnostic) {
			return planDifference(t, want, got), &got.Diagnostics
		})
}

// ValidateResourceConfig compares the diagnostics as sets: the framework
// validates a schema's attributes in map order, so its order varies.
func (s shadowServer) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	return shadow(ctx, s, req.TypeName, req, (*directResource).servesValidate, s.Server.ValidateResourceConfig,
		s.validateWithFramework,
		func(_ tftypes.Type, want, got *tfprotov6.ValidateResourceConfigResponse) (string, *[]*tfprotov6.Diagnostic) {
			w, g := diagnosticStrings(want.Diagnostics), diagnosticStrings(got.Diagnostics)
			slices.Sort(w)
			slices.Sort(g)
			if slices.Equal(w, g) {
				return "", &got.Diagnostics
			}
			return fmt.Sprintf("validation diagnostics: framework %q, direct %q", w, g), &got.Diagnostics
		})
}

func (s shadowServer) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	return shadow(ctx, s, req.TypeName, req, (*directResource).servesRenderOnlyApply, s.Server.ApplyResourceChange,
		s.ProviderServer.ApplyResourceChange,
		func(t tftypes.Type, want, got *tfprotov6.ApplyResourceChangeResponse) (string, *[]*tfprotov6.Diagnostic) {
			diff := stateDifference(t, want.NewState, got.NewState, want.Diagnostics, got.Diagnostics)
			if !bytes.Equal(want.Private, got.Private) {
				diff = strings.TrimPrefix(diff+"; ", "; ") + fmt.Sprintf("private: framework %q, direct %q", want.Private, got.Private)
			}
			return diff, &got.Diagnostics
		})
}

// servesRenderOnlyApply: the direct path applies the change and it is safe
// to apply twice, since the resource is rendered only on both sides of the
// change (its apply attribute is false in the prior and planned states, or
// they are null).
func (r *directResource) servesRenderOnlyApply(req *tfprotov6.ApplyResourceChangeRequest) bool {
	if !r.servesApply(req) {
		return false
	}
	for _, dv := range []*tfprotov6.DynamicValue{req.PriorState, req.PlannedState} {
		if !renderOnly(r.schema.tfType, dv) {
			return false
		}
	}
	return true
}

// renderOnly: the state is null, or its apply attribute is a known false.
func renderOnly(t tftypes.Type, dv *tfprotov6.DynamicValue) bool {
	v := decodePlanned(t, dv)
	if dv == nil || v.IsNull() {
		return true
	}
	applied, _, err := tftypes.WalkAttributePath(v, tftypes.NewAttributePath().WithAttributeName("apply"))
	value, ok := applied.(tftypes.Value)
	if err != nil || !ok || !value.IsKnown() || value.IsNull() {
		return false
	}
	var apply bool
	return value.As(&apply) == nil && !apply
}

// shadow answers req as the server does (served), and where the direct
// path serves it asks the framework too (framework) and appends their
// difference to the answer's diagnostics (compare says it and where they
// are).
func shadow[Req, Resp any](ctx context.Context, s shadowServer, typeName string, req Req,
	serves func(*directResource, Req) bool,
	served, framework func(context.Context, Req) (Resp, error),
	compare func(t tftypes.Type, want, got Resp) (string, *[]*tfprotov6.Diagnostic)) (Resp, error) {
	got, err := served(ctx, req)
	direct := s.schemas.directResource(ctx, typeName)
	if err != nil || !serves(direct, req) {
		return got, err
	}
	want, err := framework(ctx, req)
	if err != nil {
		var none Resp
		return none, err
	}
	if diff, diags := compare(direct.schema.tfType, want, got); diff != "" {
		*diags = append(*diags, disagreement(typeName, diff))
	}
	return got, nil
}

func disagreement(typeName, diff string) *tfprotov6.Diagnostic {
	return &tfprotov6.Diagnostic{
		Severity: tfprotov6.DiagnosticSeverityError,
		Summary:  "The direct path disagrees with the framework",
		Detail:   fmt.Sprintf("%s: %s", typeName, diff),
	}
}

// stateDifference says how two states and their diagnostics differ, ""
// when they do not.
func stateDifference(t tftypes.Type, want, got *tfprotov6.DynamicValue, wantDiags, gotDiags []*tfprotov6.Diagnostic) string {
	var diffs []string
	if w, g := decodePlanned(t, want), decodePlanned(t, got); !w.Equal(g) {
		diffs = append(diffs, fmt.Sprintf("state: framework %v, direct %v", w, g))
	}
	if w, g := diagnosticStrings(wantDiags), diagnosticStrings(gotDiags); !slices.Equal(w, g) {
		diffs = append(diffs, fmt.Sprintf("diagnostics: framework %q, direct %q", w, g))
	}
	return strings.Join(diffs, "; ")
}

// planDifference says how two plan responses differ, "" when they do not.
func planDifference(t tftypes.Type, want, got *tfprotov6.PlanResourceChangeResponse) string {
	var diffs []string
	if diff := stateDifference(t, want.PlannedState, got.PlannedState, want.Diagnostics, got.Diagnostics); diff != "" {
		diffs = append(diffs, diff)
	}
	if w, g := pathStrings(want.RequiresReplace), pathStrings(got.RequiresReplace); !slices.Equal(w, g) {
		diffs = append(diffs, fmt.Sprintf("requires replace: framework %v, direct %v", w, g))
	}
	if !bytes.Equal(want.PlannedPrivate, got.PlannedPrivate) {
		diffs = append(diffs, fmt.Sprintf("private: framework %q, direct %q", want.PlannedPrivate, got.PlannedPrivate))
	}
	if (want.Deferred == nil) != (got.Deferred == nil) || (want.Deferred != nil && want.Deferred.Reason != got.Deferred.Reason) {
		diffs = append(diffs, fmt.Sprintf("deferred: framework %v, direct %v", want.Deferred, got.Deferred))
	}
	return strings.Join(diffs, "; ")
}

func decodePlanned(t tftypes.Type, dv *tfprotov6.DynamicValue) tftypes.Value {
	if dv == nil {
		return tftypes.Value{}
	}
	v, err := dv.Unmarshal(t)
	if err != nil {
		return tftypes.NewValue(tftypes.String, "undecodable: "+err.Error())
	}
	return v
}

func pathStrings(paths []*tftypes.AttributePath) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		out = append(out, p.String())
	}
	return out
}

// diagnosticStrings are diagnostics as comparable text, in their order.
func diagnosticStrings(diags []*tfprotov6.Diagnostic) []string {
	out := make([]string, 0, len(diags))
	for _, d := range diags {
		attribute := ""
		if d.Attribute != nil {
			attribute = d.Attribute.String()
		}
		out = append(out, fmt.Sprintf("%s|%s|%s|%s", d.Severity, attribute, d.Summary, d.Detail))
	}
	return out
}
