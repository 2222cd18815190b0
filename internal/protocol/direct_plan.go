package protocol

import (
	"context"
	"errors"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// directResource serves one of the provider's resources without the
// framework's schema walks: PlanResourceChange here, ReadResource,
// UpgradeResourceState and ApplyResourceChange, the calls that give back a
// new state, in direct_state.go. Those walks cost more than the provider's own work: for
// every value the framework looks its attribute up from the schema's root,
// copying the root's attribute map on each step, so a plan of gpu_workload
// (81 top-level attributes) spent most of its CPU there
// (terraform-plugin-framework#775; bench/README.md has the profile).
//
// The steps are the framework's (docs/design/framework.md lists them), in
// its order, on a schema indexed once: empty list and set blocks read as
// null, defaults where the configuration is null, computed attributes left
// null marked unknown when the plan changes something, the top-level plan
// modifiers, then the resource's own method with the framework's request
// types. A schema using more than that (newDirectSchema says what), an
// identity or private state goes to the framework. The acceptance tests
// run every plan and state upgrade both ways and fail on any difference
// (Shadowed, shadow.go).
type directResource struct {
	schema      *directSchema
	newResource func() resource.Resource
}

// newDirectResource is the direct path of a resource, or why the framework
// has to serve it: a resource with an identity (the direct path keeps none)
// or a schema newDirectSchema refuses.
func newDirectResource(ctx context.Context, r resource.Resource, s schema.Schema, newResource func() resource.Resource) (*directResource, error) {
	if _, identity := r.(resource.ResourceWithIdentity); identity {
		return nil, errors.New("the resource has an identity, which the direct path does not keep")
	}
	direct, err := newDirectSchema(ctx, s)
	if err != nil {
		return nil, err
	}
	return &directResource{schema: direct, newResource: newResource}, nil
}

// serves says whether the direct planner answers this request exactly as
// the framework would.
func (r *directResource) serves(req *tfprotov6.PlanResourceChangeRequest) bool {
	return r != nil && req.PriorIdentity == nil && len(req.PriorPrivate) == 0
}

// plan is PlanResourceChange for one resource.
func (r *directResource) plan(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest, providerData any) *tfprotov6.PlanResourceChangeResponse {
	c, diags := r.begin(ctx, providerData, req.Config, req.PriorState, req.ProposedNewState)
	if diags.HasError() {
		return r.respond(ctx, tftypes.Value{}, nil, diags)
	}
	res, config, prior, proposed := c.res, c.config, c.prior, c.next
	planned := proposed
	var replace path.Paths
	var deferred *resource.Deferred
	if !planned.IsNull() {
		var schemaDiags diag.Diagnostics
		planned, replace, schemaDiags = r.schemaPlan(ctx, config, prior, planned)
		if diags.Append(schemaDiags...); diags.HasError() {
			return r.respond(ctx, planned, nil, diags)
		}
	}
	if m, ok := res.(resource.ResourceWithModifyPlan); ok {
		mreq := resource.ModifyPlanRequest{
			ClientCapabilities: resource.ModifyPlanClientCapabilities{
				DeferralAllowed: req.ClientCapabilities != nil && req.ClientCapabilities.DeferralAllowed,
			},
			Config: tfsdk.Config{Raw: config, Schema: r.schema.schema},
			Plan:   tfsdk.Plan{Raw: planned, Schema: r.schema.schema},
			State:  tfsdk.State{Raw: prior, Schema: r.schema.schema},
		}
		mresp := resource.ModifyPlanResponse{Diagnostics: diags, Plan: mreq.Plan, RequiresReplace: path.Paths{}}
		m.ModifyPlan(ctx, mreq, &mresp)
		diags, planned = mresp.Diagnostics, mresp.Plan.Raw
		replace = append(replace, mresp.RequiresReplace...)
		deferred = mresp.Deferred
	}
	if proposed.IsNull() && !planned.IsNull() {
		diags.AddError("Unexpected Planned Resource State on Destroy",
			"The Terraform Provider unexpectedly returned resource state data when the resource was planned for destruction.")
	}
	resp := r.respond(ctx, planned, replace, diags)
	if deferred != nil {
		resp.Deferred = &tfprotov6.Deferred{Reason: tfprotov6.DeferredReason(deferred.Reason)}
	}
	return resp
}

// schemaPlan is what the framework does to a plan before the resource's
// ModifyPlan: defaults, unknown computed values, plan modifiers.
func (r *directResource) schemaPlan(ctx context.Context, config, prior, planned tftypes.Value) (tftypes.Value, path.Paths, diag.Diagnostics) {
	planned, diags := r.schema.withDefaults(ctx, config, planned)
	if diags.HasError() {
		return planned, nil, diags
	}
	if !equalValues(planned, prior) {
		var err error
		if planned, err = tftypes.Transform(planned, r.schema.markComputedNilsAsUnknown(config)); err != nil {
			diags.AddError("Error modifying plan", err.Error())
			return planned, nil, diags
		}
	}
	planned, replace, modifierDiags := r.schema.modify(ctx, config, prior, planned)
	diags.Append(modifierDiags...)
	return planned, replace, diags
}

// change is a plan or apply request made ready for the resource: the
// resource, configured, and the request's values.
type change struct {
	res           resource.Resource
	config, prior tftypes.Value
	// next is the proposed new state in a plan, the planned one in an apply.
	next tftypes.Value
}

// begin makes the resource, configures it as the framework does before
// every call, and reads the request's configuration, prior state and
// proposed (or planned) state as the framework does: absent as null, empty
// list and set blocks as null.
func (r *directResource) begin(ctx context.Context, providerData any, configured, priorState, nextState *tfprotov6.DynamicValue) (change, diag.Diagnostics) {
	var diags diag.Diagnostics
	c := change{res: r.newResource()}
	if !configure(ctx, c.res, providerData, &diags) {
		return c, diags
	}
	values := make([]tftypes.Value, 3)
	for i, dv := range []*tfprotov6.DynamicValue{configured, priorState, nextState} {
		if dv == nil {
			values[i] = tftypes.NewValue(r.schema.tfType, nil)
			continue
		}
		v, err := decodeDynamicValue(dv, r.schema.tfType)
		if err != nil {
			diags.AddError("Unable to read the request", err.Error())
			return c, diags
		}
		values[i] = r.schema.nullifyCollectionBlocks(v)
	}
	c.config, c.prior, c.next = values[0], values[1], values[2]
	return c, diags
}

// respond encodes the planned state (empty list and set blocks back as
// empty), the sorted paths that force replacement, and the diagnostics.
func (r *directResource) respond(ctx context.Context, planned tftypes.Value, replace path.Paths, diags diag.Diagnostics) *tfprotov6.PlanResourceChangeResponse {
	resp := &tfprotov6.PlanResourceChangeResponse{PlannedState: r.encode(planned, &diags)}
	for _, p := range normaliseRequiresReplace(replace) {
		tp, pathDiags := terraformPath(ctx, p)
		diags.Append(pathDiags...)
		resp.RequiresReplace = append(resp.RequiresReplace, tp)
	}
	resp.Diagnostics = protoDiagnostics(ctx, diags)
	return resp
}

// normaliseRequiresReplace sorts and deduplicates, as the framework does.
func normaliseRequiresReplace(paths path.Paths) path.Paths {
	sort.Slice(paths, func(i, j int) bool { return paths[i].String() < paths[j].String() })
	out := paths[:0:0]
	for _, p := range paths {
		if len(out) == 0 || !out[len(out)-1].Equal(p) {
			out = append(out, p)
		}
	}
	return out
}
