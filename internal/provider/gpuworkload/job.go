package gpuworkload

import (
	"context"
	"errors"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kinds"
)

// jobOutlivedTheWait reports whether the wait ended because its time ran out
// (or Terraform was interrupted) while an object of a kind that runs to
// completion (a Job) had not failed. Such a Job is kept in state without an
// error: an error would taint it, and the next apply would delete a
// training run hours in and start it again.
func jobOutlivedTheWait(ctx context.Context, plan workloadModel, waitErr error) bool {
	var notReady *kube.NotReadyError
	return runsToCompletion(plan) && ctx.Err() != nil && errors.As(waitErr, &notReady) && notReady.Failure == ""
}

// runsToCompletion: the workload's kind runs once to completion (a Job).
func runsToCompletion(m workloadModel) bool {
	k, ok := kinds.Lookup(m.Kind.ValueString())
	return ok && k.Wait.Completes
}

func jobStillRunningDetail(plan workloadModel, explanation string) string {
	return explanation + "\n\nThe Job stays in the cluster, pending or running, and is recorded in the state as created, not tainted: the next " +
		"plan shows no change for it and does not re-run it. wait_for = \"" + string(waitMode(plan)) + "\" waited until " +
		"the create (or update) timeout. To wait longer, raise timeouts { create = \"24h\" }; to return as soon as " +
		"its pods run, set wait_for = \"scheduled\". A Job that fails is still reported as an error."
}
