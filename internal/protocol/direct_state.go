package protocol

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// servesRead says whether the direct path answers this read exactly as the
// framework would: no identity, and no private state (after an import the
// framework keeps a marker there).
func (r *directResource) servesRead(req *tfprotov6.ReadResourceRequest) bool {
	return r != nil && req.CurrentIdentity == nil && len(req.Private) == 0 && req.CurrentState != nil
}

// read is ReadResource: the resource's Read with the framework's request
// types, and the state back with empty list and set blocks. The framework
// then compares values semantically and nulls write-only attributes;
// newDirectSchema refuses schemas where either would do anything.
func (r *directResource) read(ctx context.Context, req *tfprotov6.ReadResourceRequest, providerData any) *tfprotov6.ReadResourceResponse {
	var diags diag.Diagnostics
	res := r.newResource()
	if !configure(ctx, res, providerData, &diags) {
		return &tfprotov6.ReadResourceResponse{Diagnostics: protoDiagnostics(ctx, diags)}
	}
	current, err := decodeDynamicValue(req.CurrentState, r.schema.tfType)
	if err != nil {
		diags.AddError("Unable to read the current state", err.Error())
		return &tfprotov6.ReadResourceResponse{Diagnostics: protoDiagnostics(ctx, diags)}
	}
	current = r.schema.nullifyCollectionBlocks(current)
	state := tfsdk.State{Raw: current, Schema: r.schema.schema}
	rreq := resource.ReadRequest{
		State:              state,
		ClientCapabilities: resource.ReadClientCapabilities{DeferralAllowed: req.ClientCapabilities != nil && req.ClientCapabilities.DeferralAllowed},
	}
	rresp := resource.ReadResponse{State: state}
	res.Read(ctx, rreq, &rresp)
	resp := &tfprotov6.ReadResourceResponse{}
	if rresp.Deferred != nil {
		resp.Deferred = &tfprotov6.Deferred{Reason: tfprotov6.DeferredReason(rresp.Deferred.Reason)}
	}
	resp.NewState = r.encode(rresp.State.Raw, &rresp.Diagnostics)
	resp.Diagnostics = protoDiagnostics(ctx, rresp.Diagnostics)
	return resp
}

// servesUpgrade says whether the state is already of the schema's version,
// where the framework only reads it with the schema and passes it on.
func (r *directResource) servesUpgrade(req *tfprotov6.UpgradeResourceStateRequest) bool {
	return r != nil && req.RawState != nil && req.Version == r.schema.schema.Version
}

// upgrade is UpgradeResourceState of a state of the current version.
func (r *directResource) upgrade(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) *tfprotov6.UpgradeResourceStateResponse {
	if req.RawState.JSON != nil {
		if upgraded, err := r.schema.stateJSONToMsgPack(req.RawState.JSON); err == nil {
			return &tfprotov6.UpgradeResourceStateResponse{UpgradedState: &tfprotov6.DynamicValue{MsgPack: upgraded}}
		}
	}
	var diags diag.Diagnostics
	v, err := req.RawState.UnmarshalWithOpts(r.schema.tfType, tfprotov6.UnmarshalOpts{
		ValueFromJSONOpts: tftypes.ValueFromJSONOpts{IgnoreUndefinedAttributes: true},
	})
	if err != nil {
		diags.AddError("Unable to Read Previously Saved State for UpgradeResourceState",
			"There was an error reading the saved resource state using the current resource schema.\n\n"+
				"If this resource state was last refreshed with Terraform CLI 0.11 and earlier, it must be refreshed or applied with an older provider version first. "+
				"If you manually modified the resource state, you will need to manually modify it to match the current resource schema. "+
				"Otherwise, please report this to the provider developer:\n\n"+err.Error())
		return &tfprotov6.UpgradeResourceStateResponse{Diagnostics: protoDiagnostics(ctx, diags)}
	}
	resp := &tfprotov6.UpgradeResourceStateResponse{UpgradedState: r.encode(v, &diags)}
	resp.Diagnostics = protoDiagnostics(ctx, diags)
	return resp
}

// servesApply says whether the direct path applies this change exactly as
// the framework would: no identity and no private state.
func (r *directResource) servesApply(req *tfprotov6.ApplyResourceChangeRequest) bool {
	return r != nil && req.PlannedIdentity == nil && len(req.PlannedPrivate) == 0
}

// apply is ApplyResourceChange: the resource's Create, Update or Delete
// with the framework's request types, chosen as the framework chooses
// (no prior state: create; no planned state: delete), with its checks of
// what they returned.
func (r *directResource) apply(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest, providerData any) *tfprotov6.ApplyResourceChangeResponse {
	c, diags := r.begin(ctx, providerData, req.Config, req.PriorState, req.PlannedState)
	if diags.HasError() {
		return &tfprotov6.ApplyResourceChangeResponse{Diagnostics: protoDiagnostics(ctx, diags)}
	}
	var newState tftypes.Value
	switch {
	case c.prior.IsNull():
		newState = r.create(ctx, c.res, c.config, c.next, &diags)
	case c.next.IsNull():
		newState = r.delete(ctx, c.res, c.prior, &diags)
	default:
		newState = r.update(ctx, c.res, c.config, c.prior, c.next, &diags)
	}
	resp := &tfprotov6.ApplyResourceChangeResponse{NewState: r.encode(newState, &diags)}
	resp.Diagnostics = protoDiagnostics(ctx, diags)
	return resp
}

func (r *directResource) create(ctx context.Context, res resource.Resource, config, planned tftypes.Value, diags *diag.Diagnostics) tftypes.Value {
	null := tftypes.NewValue(r.schema.tfType, nil)
	req := resource.CreateRequest{
		Config: tfsdk.Config{Raw: config, Schema: r.schema.schema},
		Plan:   tfsdk.Plan{Raw: planned, Schema: r.schema.schema},
	}
	resp := resource.CreateResponse{State: tfsdk.State{Raw: null, Schema: r.schema.schema}}
	res.Create(ctx, req, &resp)
	diags.Append(resp.Diagnostics...)
	if !resp.Diagnostics.HasError() && resp.State.Raw.Equal(null) {
		diags.AddError("Missing Resource State After Create",
			"The Terraform Provider unexpectedly returned no resource state after having no errors in the resource creation. "+
				"This is always an issue in the Terraform Provider and should be reported to the provider developers.\n\n"+
				"The resource may have been successfully created, but Terraform is not tracking it. "+
				"Applying the configuration again with no other action may result in duplicate resource errors."+
				importHint(res))
	}
	return resp.State.Raw
}

// importHint is the framework's last sentence of a missing state after
// create, for resources that can be imported.
func importHint(res resource.Resource) string {
	if _, ok := res.(resource.ResourceWithImportState); ok {
		return " Import the resource if the resource was actually created and Terraform should be tracking it."
	}
	return ""
}

func (r *directResource) update(ctx context.Context, res resource.Resource, config, prior, planned tftypes.Value, diags *diag.Diagnostics) tftypes.Value {
	req := resource.UpdateRequest{
		Config: tfsdk.Config{Raw: config, Schema: r.schema.schema},
		Plan:   tfsdk.Plan{Raw: planned, Schema: r.schema.schema},
		State:  tfsdk.State{Raw: prior, Schema: r.schema.schema},
	}
	resp := resource.UpdateResponse{State: req.State}
	res.Update(ctx, req, &resp)
	diags.Append(resp.Diagnostics...)
	if !resp.Diagnostics.HasError() && resp.State.Raw.Equal(tftypes.NewValue(r.schema.tfType, nil)) {
		diags.AddError("Missing Resource State After Update",
			"The Terraform Provider unexpectedly returned no resource state after having no errors in the resource update. "+
				"This is always an issue in the Terraform Provider and should be reported to the provider developers.")
	}
	return resp.State.Raw
}

func (r *directResource) delete(ctx context.Context, res resource.Resource, prior tftypes.Value, diags *diag.Diagnostics) tftypes.Value {
	state := tfsdk.State{Raw: prior, Schema: r.schema.schema}
	resp := resource.DeleteResponse{State: state}
	res.Delete(ctx, resource.DeleteRequest{State: state}, &resp)
	diags.Append(resp.Diagnostics...)
	if !resp.Diagnostics.HasError() {
		resp.State.RemoveResource(ctx)
	}
	return resp.State.Raw
}

// encode is a state or plan in the protocol's terms, empty list and set
// blocks given back as empty.
func (r *directResource) encode(v tftypes.Value, diags *diag.Diagnostics) *tfprotov6.DynamicValue {
	if v.Type() == nil {
		return nil
	}
	dv, err := encodeDynamicValue(r.schema.tfType, r.schema.reifyNullCollectionBlocks(v))
	if err != nil {
		diags.AddError("Unable to encode the state", err.Error())
		return nil
	}
	return &dv
}

// configure hands the resource what the provider's Configure made, as the
// framework does before every call; false when it failed.
func configure(ctx context.Context, res resource.Resource, providerData any, diags *diag.Diagnostics) bool {
	c, ok := res.(resource.ResourceWithConfigure)
	if !ok {
		return true
	}
	var resp resource.ConfigureResponse
	c.Configure(ctx, resource.ConfigureRequest{ProviderData: providerData}, &resp)
	diags.Append(resp.Diagnostics...)
	return !resp.Diagnostics.HasError()
}
