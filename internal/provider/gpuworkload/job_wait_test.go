package gpuworkload

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// Only a Job whose wait ran out of time (or was interrupted) while the Job
// itself had not failed is kept with a warning; a failed Job, a Deployment,
// and a wait that ended for another reason stay errors (issue #12,
// finding 6).
func TestJobOutlivedTheWait(t *testing.T) {
	expired, cancel := context.WithCancel(context.Background())
	cancel()
	pending := &kube.NotReadyError{Mode: kube.WaitComplete, Pods: []kube.PodProblem{{Pod: "p", Reason: "Unschedulable"}}}
	failed := &kube.NotReadyError{Mode: kube.WaitComplete, Failure: "BackoffLimitExceeded: Job has reached the specified backoff limit"}
	cases := []struct {
		name string
		ctx  context.Context
		kind string
		err  error
		want bool
	}{
		{"job still pending when the time ran out", expired, spec.KindJob, pending, true},
		{"job failed", expired, spec.KindJob, failed, false},
		{"deployment not rolled out", expired, spec.KindDeployment, pending, false},
		{"wait ended before the time ran out", context.Background(), spec.KindJob, pending, false},
		{"wait failed for another reason", expired, spec.KindJob, errors.New("lost contact with the Kubernetes API server"), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			plan := workloadModel{Kind: types.StringValue(c.kind)}
			if got := jobOutlivedTheWait(c.ctx, plan, c.err); got != c.want {
				t.Fatalf("jobOutlivedTheWait = %v, want %v", got, c.want)
			}
		})
	}
}

// The warning says the Job keeps running untainted, what it waited for, and
// both ways to wait differently.
func TestJobStillRunningDetail(t *testing.T) {
	detail := jobStillRunningDetail(workloadModel{Kind: types.StringValue(spec.KindJob)}, "1 pod Pending.")
	for _, want := range []string{"1 pod Pending.", "not tainted", `wait_for = "complete"`, `timeouts { create = "24h" }`,
		`wait_for = "scheduled"`, "fails is still reported as an error"} {
		if !strings.Contains(detail, want) {
			t.Errorf("the warning does not say %q:\n%s", want, detail)
		}
	}
}
