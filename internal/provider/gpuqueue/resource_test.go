package gpuqueue_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// Render mode: the Kueue objects and the queued workload are planned and
// stored with no cluster (GitOps).
func TestQueue_renderModeNeedsNoCluster(t *testing.T) {
	acctest.ClearClusterEnv(t)
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{{
			Config: acctest.RenderOnlyQueue(`
  flavor {
    node_pool = gpu_node_pool_policy.a100.ref
    gpus      = 8
  }
  flavor {
    node_pool     = gpu_node_pool_policy.a100_mig.ref
    mig_instances = 24
  }`) + acctest.QueuedJob("a100", 4, ""),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr("gpu_queue.q", "id", "team-a"),
				resource.TestCheckResourceAttr("gpu_queue.q", "ref.local_queue", "team-a"),
				resource.TestCheckResourceAttr("gpu_queue.q", "ref.flavors.1.quota", "24"),
				acctest.ManifestCheck("gpu_queue.q", manifestHas(
					"kind: ResourceFlavor", "name: a100-mig", "kind: ClusterQueue", `nominalQuota: "24"`,
					"kind: LocalQueue", "clusterQueue: team-a", "cloud.google.com/gke-accelerator: nvidia-tesla-a100")),
				acctest.ManifestCheck("gpu_workload.w", manifestHas("kueue.x-k8s.io/queue-name: team-a")),
			),
		}},
	})
}

func manifestHas(parts ...string) func(string) error {
	return func(manifest string) error {
		for _, p := range parts {
			if !strings.Contains(manifest, p) {
				return fmt.Errorf("manifest lacks %q:\n%s", p, manifest)
			}
		}
		return nil
	}
}

// Every queue attribute's bad input is a plan error naming what is wrong
// and what is allowed.
func TestQueue_badInputIsAPlanError(t *testing.T) {
	acctest.ClearClusterEnv(t)
	a100 := func(attrs string) string {
		return "flavor {\n    node_pool = gpu_node_pool_policy.a100.ref\n    " + attrs + "\n  }"
	}
	cases := map[string]struct{ config, want string }{
		"MIG quota in whole GPUs": {acctest.RenderOnlyQueue("flavor {\n node_pool = gpu_node_pool_policy.a100_mig.ref\n gpus = 8\n}"),
			`(?s)Quota in the wrong unit.*mig_instances = 24`},
		"quota above the pool": {acctest.RenderOnlyQueue(a100("nodes = 1\n gpus = 16")), `(?s)Quota above the pool's size.*Allowed: 0 to 8`},
		"pool of another cloud": {acctest.RenderOnlyQueue(a100("gpus = 8") + "\nflavor {\n node_pool = gpu_node_pool_policy.eks.ref\n gpus = 8\n}"),
			`Pool of another cloud`},
		"missing quota":            {acctest.RenderOnlyQueue(a100("")), `Missing quota`},
		"two quotas":               {acctest.RenderOnlyQueue(a100("gpus = 8\n shared_slots = 2")), `Invalid Attribute Combination`},
		"borrowing without cohort": {acctest.RenderOnlyQueue(a100("gpus = 8\n borrowing_limit = 2")), `borrowing_limit without a cohort`},
		"negative lending":         {acctest.RenderOnlyQueue("cohort = \"research\"\n" + a100("gpus = 8\n lending_limit = -1")), `(?i)at least 0`},
		"lending above quota":      {acctest.RenderOnlyQueue("cohort = \"research\"\n" + a100("gpus = 8\n lending_limit = 9")), `Lending more than the quota`},
		"bad cpu":                  {acctest.RenderOnlyQueue(a100("gpus = 8\n cpu = \"lots\"")), `Invalid quantity`},
		"pool id, not a ref":       {acctest.RenderOnlyQueue("flavor {\n node_pool = \"a100\"\n gpus = 8\n}"), `(?s)Inappropriate value for attribute\s+"node_pool".*object required`},
		"no flavor":                {acctest.RenderOnlyQueue(""), `(?i)flavor`},
		"bad name":                 {strings.Replace(acctest.RenderOnlyQueue(a100("gpus = 8")), `name       = "team-a"`, `name = "Team_A"`, 1), `(?i)DNS-1123`},
		"bad namespace":            {strings.Replace(acctest.RenderOnlyQueue(a100("gpus = 8")), `["team-a"]`, `["team-a", "team-a"]`, 1), `(?i)duplicate|unique`},
		"bad strategy":             {acctest.RenderOnlyQueue("queueing_strategy = \"LIFO\"\n" + a100("gpus = 8")), `(?i)value must be one of`},
		"bad preemption":           {acctest.RenderOnlyQueue("preemption {\n within_cluster_queue = \"Always\"\n}\n" + a100("gpus = 8")), `(?i)value must be one of`},
		"borrow without reclaim": {acctest.RenderOnlyQueue("cohort = \"research\"\npreemption {\n borrow_within_cohort = \"LowerPriority\"\n}\n" + a100("gpus = 8")),
			`Borrowing preemption without reclaiming`},
		"workload above the quota": {acctest.RenderOnlyQueue(a100("gpus = 8")) + acctest.QueuedJob("a100", 8, "job {\n parallelism = 2\n}"),
			`(?s)More than the queue's quota.*16 nvidia.com/gpu.*flavor "a100" admits at most 8`},
		"accelerator no flavor covers": {acctest.RenderOnlyQueue(a100("gpus = 8")) + acctest.QueuedJob("h100", 1, ""),
			`(?s)No flavor of the queue covers these GPUs.*h100-80gb`},
		"workload in another namespace": {acctest.RenderOnlyQueue(a100("gpus = 8")) + strings.Replace(acctest.QueuedJob("a100", 1, ""), `namespace = "team-a"`, `namespace = "team-b"`, 1),
			`No LocalQueue in this namespace`},
		"gpu_queue with volcano": {acctest.RenderOnlyQueue(a100("gpus = 8")) + acctest.QueuedJob("a100", 1, `queue_scheduler = "volcano"`),
			`A gpu_queue is a Kueue queue`},
		"admitted without a queue": {acctest.QueuePools + strings.Replace(acctest.QueuedJob("a100", 1, `wait_for = "admitted"`), "queue     = gpu_queue.q.ref", "", 1),
			`Nothing admits this workload`},
		"bad queue name": {acctest.QueuePools + strings.Replace(acctest.QueuedJob("a100", 1, ""), "gpu_queue.q.ref", `"Team_A"`, 1), `Invalid queue`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: factories,
				Steps:                    []resource.TestStep{{Config: tc.config, PlanOnly: true, ExpectError: regexp.MustCompile(tc.want)}},
			})
		})
	}
}

// The guide's examples plan: the shared pool with two teams, and GitOps
// render mode.
func TestQueue_guideExamplesPlan(t *testing.T) {
	acctest.ClearClusterEnv(t)
	for _, dir := range []string{"sharing-gpus", "sharing-gpus-gitops"} {
		t.Run(dir, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join(acctest.RepoRoot(t), "examples", "guides", dir, "main.tf"))
			if err != nil {
				t.Fatal(err)
			}
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: factories,
				Steps:                    []resource.TestStep{{Config: string(src), PlanOnly: true, ExpectNonEmptyPlan: true}},
			})
		})
	}
}
