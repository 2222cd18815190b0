package provider

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
	"github.com/gpuform/terraform-provider-gpu/internal/kube"
	"github.com/gpuform/terraform-provider-gpu/internal/provider/gpuworkload"
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
			plan := gpuworkload.WorkloadModel{Kind: types.StringValue(c.kind)}
			if got := gpuworkload.JobOutlivedTheWait(c.ctx, plan, c.err); got != c.want {
				t.Fatalf("jobOutlivedTheWait = %v, want %v", got, c.want)
			}
		})
	}
}

// The warning says the Job keeps running untainted, what it waited for, and
// both ways to wait differently.
func TestJobStillRunningDetail(t *testing.T) {
	detail := gpuworkload.JobStillRunningDetail(gpuworkload.WorkloadModel{Kind: types.StringValue(spec.KindJob)}, "1 pod Pending.")
	for _, want := range []string{"1 pod Pending.", "not tainted", `wait_for = "complete"`, `timeouts { create = "24h" }`,
		`wait_for = "scheduled"`, "fails is still reported as an error"} {
		if !strings.Contains(detail, want) {
			t.Errorf("the warning does not say %q:\n%s", want, detail)
		}
	}
}

// Through the terraform CLI, which shows warnings: a Job still pending when
// its create timeout ends makes the apply succeed with the warning, leaves
// the Job in the state untainted with its UID, and the next plan is empty
// (issue #12, finding 6).
func TestAccWorkload_jobOutlivingTheWaitWarns(t *testing.T) {
	acctest.PreCheck(t)
	ns := acctest.Namespace(t)
	// No a30 node exists in the test cluster, so the Job stays Pending.
	config := acctest.ProviderBlock(t) + workloadConfig("j", "day-long-training", ns, "job",
		landingCase{cloud: "generic", accelerator: "a30", count: 1, extra: `
  timeouts {
    create = "5s"
  }`})
	tf := newFaultTerraform(t, config)

	out, err := tf.Apply()
	if err != nil {
		t.Fatalf("apply failed (%v) although the Job was created and only the wait ran out:\n%s", err, out)
	}
	for _, want := range []string{
		"Warning: Job " + ns + "/day-long-training has not finished yet",
		"not tainted", `wait_for = "complete"`, `timeouts { create = "24h" }`, `wait_for = "scheduled"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the apply output does not say %q:\n%s", want, out)
		}
	}
	state := tf.State()
	if len(state) != 1 || state[0].Tainted || state[0].Values["uid"] == "" {
		t.Fatalf("want the Job in the state, untainted, with its uid; got %+v", state)
	}
	if changes, out := tf.PlanHasChanges(); changes {
		t.Fatalf("plan after the kept Job has changes, want none:\n%s", out)
	}
}
