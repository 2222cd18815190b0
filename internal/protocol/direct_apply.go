package protocol

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

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
