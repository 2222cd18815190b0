package provider

import (
	"strings"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

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
