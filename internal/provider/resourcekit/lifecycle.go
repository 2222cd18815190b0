package resourcekit

import (
	"context"
	"errors"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
)

// Timeout is a timeouts block's value for one operation, e.g.
// plan.Timeouts.Create.
type Timeout = func(context.Context, time.Duration) (time.Duration, diag.Diagnostics)

// PlanAndPrior decodes an Update's plan and prior state into models of
// type M; false once diags hold an error.
func PlanAndPrior[M any](ctx context.Context, req resource.UpdateRequest, diags *diag.Diagnostics) (plan, prior M, ok bool) {
	plan, planOK := Get[M](ctx, req.Plan, diags)
	prior, priorOK := Get[M](ctx, req.State, diags)
	return plan, prior, planOK && priorOK
}

// ApplyClient is the first step of an apply of resourceType. With apply =
// false (applies) nothing is applied: renderOnly writes the state as
// planned, the objects in its manifests, and false is returned. Otherwise
// it is the client to apply with; without one the error says how to go on
// without a cluster: the objects are rendered either way, and apply = false
// keeps only that (GitOps).
func (d *Data) ApplyClient(resourceType string, applies bool, renderOnly func() diag.Diagnostics,
	diags *diag.Diagnostics) (*kube.Client, bool) {
	if !applies {
		diags.Append(renderOnly()...)
		return nil, false
	}
	client, err := d.Kube.Client()
	if err != nil {
		diags.AddError(resourceType+" needs a cluster to apply to", err.Error()+
			"\n\nTo only render the objects into the `manifests` attribute (GitOps), set apply = false.")
		return nil, false
	}
	return client, true
}

// Operation starts a Create, Update or Delete that talks to the cluster:
// ctx bounded by the operation's timeout (def when the block leaves it
// out) and the client, or an error of that summary. The caller defers
// cancel, which is never nil.
func (d *Data) Operation(ctx context.Context, summary string, timeout Timeout, def time.Duration,
	diags *diag.Diagnostics) (context.Context, context.CancelFunc, *kube.Client, bool) {
	ctx, cancel, ok := WithTimeout(ctx, timeout, def, diags)
	if !ok {
		return ctx, cancel, nil, false
	}
	client, ok := d.Client(summary, diags)
	return ctx, cancel, client, ok
}

// Within runs op (an apply) with ctx bounded by the operation's timeout (def
// when the block leaves it out); op does not run after an error decoding
// the timeout.
func Within(ctx context.Context, timeout Timeout, def time.Duration, diags *diag.Diagnostics, op func(context.Context)) {
	ctx, cancel, ok := WithTimeout(ctx, timeout, def, diags)
	defer cancel()
	if ok {
		op(ctx)
	}
}

// RefreshClient is the client a Read of resourceType refreshes with. false
// without one: after an error naming resourceType, or with no diagnostic
// while the provider's cluster settings are not known yet (planned
// offline: the refresh waits until they are).
func (d *Data) RefreshClient(resourceType string, diags *diag.Diagnostics) (*kube.Client, bool) {
	client, err := d.Kube.Client()
	if errors.Is(err, kube.ErrConfigUnknown) {
		return nil, false
	}
	if err != nil {
		diags.AddError("Cannot read "+resourceType, err.Error())
		return nil, false
	}
	return client, true
}

// RefreshApplied is the Read of a resource that applies objects and keeps
// what it rendered in its state (gpu_workload, gpu_ray_cluster), once the
// state is decoded. Without apply, or while the cluster settings are not
// known yet (planned offline), the state is written back as it is: set
// keeps what is derived from it in step (state of older releases gets it
// here). Otherwise refresh reads the objects back into the model set
// writes, and the resource is removed when they are gone.
func (d *Data) RefreshApplied(ctx context.Context, resourceType string, applied bool, resp *resource.ReadResponse,
	set func() diag.Diagnostics, refresh func(*kube.Client) (gone bool, diags diag.Diagnostics)) {
	if !applied {
		resp.Diagnostics.Append(set()...)
		return
	}
	client, ok := d.RefreshClient(resourceType, &resp.Diagnostics)
	if !ok {
		if !resp.Diagnostics.HasError() { // planned offline; refreshed once the cluster is known
			resp.Diagnostics.Append(set()...)
		}
		return
	}
	gone, diags := refresh(client)
	if resp.Diagnostics.Append(diags...); resp.Diagnostics.HasError() {
		return
	}
	if gone {
		resp.State.RemoveResource(ctx)
		return
	}
	resp.Diagnostics.Append(set()...)
}

// DeleteWithin is the Delete of a resource that applied objects: del
// removes them with a client, ctx bounded by the delete timeout (def when
// the block leaves it out). Without a client, an error naming resourceType.
func (d *Data) DeleteWithin(ctx context.Context, resourceType string, timeout Timeout, def time.Duration,
	diags *diag.Diagnostics, del func(context.Context, *kube.Client) diag.Diagnostics) {
	ctx, cancel, client, ok := d.Operation(ctx, "Cannot delete "+resourceType, timeout, def, diags)
	defer cancel()
	if ok {
		diags.Append(del(ctx, client)...)
	}
}
