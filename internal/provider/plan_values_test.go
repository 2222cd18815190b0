package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// maxPlanValueLine is the longest line of a planned value a person should
// have to read: a pool or queue reference is one of these, never a blob.
const maxPlanValueLine = 100

// A plan of one workload on a pool in a queue shows only short values:
// every planned string, and every line of the multi-line ones (the
// manifests), is at most 100 characters. Before 0.1.0 the pool's id (125
// characters and more) and the queue's (673 and more) were on every line
// that referred to them, and the ClusterQueue's spec annotation was one
// line of hundreds.
func TestPlan_referencesArePlainValues(t *testing.T) {
	clearClusterEnv(t)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: acctest.RenderOnlyQueue("flavor {\n node_pool = gpu_node_pool_policy.a100.ref\n gpus = 8\n}") +
				acctest.QueuedJob("a100", 1, ""),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{shortPlanValues{}}},
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("gpu_node_pool_policy.a100", "id", "a100"),
				resource.TestCheckResourceAttr("gpu_queue.q", "id", "team-a"),
				resource.TestCheckResourceAttr("gpu_workload.w", "node_pool.name", "a100"),
				resource.TestCheckResourceAttr("gpu_workload.w", "node_pool.accelerator", "a100-40gb"),
				resource.TestCheckResourceAttr("gpu_workload.w", "queue.local_queue", "team-a"),
			),
		}},
	})
}

// shortPlanValues fails on any planned string with a line longer than
// maxPlanValueLine.
type shortPlanValues struct{}

func (shortPlanValues) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	var long []string
	for _, rc := range req.Plan.ResourceChanges {
		walkStrings(rc.Change.After, rc.Address, func(at, s string) {
			for _, line := range strings.Split(s, "\n") {
				if len(line) > maxPlanValueLine {
					long = append(long, fmt.Sprintf("%s: %d characters: %.120s...", at, len(line), line))
				}
			}
		})
	}
	if len(long) > 0 {
		resp.Error = fmt.Errorf("plan values longer than %d characters:\n%s", maxPlanValueLine, strings.Join(long, "\n"))
	}
	if len(req.Plan.ResourceChanges) < 4 {
		resp.Error = fmt.Errorf("the plan has %d resources; the check needs the pools, the queue and the workload", len(req.Plan.ResourceChanges))
	}
}

func walkStrings(v any, at string, visit func(at, s string)) {
	switch t := v.(type) {
	case string:
		visit(at, t)
	case map[string]any:
		for k, e := range t {
			walkStrings(e, at+"."+k, visit)
		}
	case []any:
		for i, e := range t {
			walkStrings(e, fmt.Sprintf("%s[%d]", at, i), visit)
		}
	}
}
