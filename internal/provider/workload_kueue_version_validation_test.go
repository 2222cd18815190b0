package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// queuedDRAWorkload is a queued DRA workload on the generic cloud, under a
// provider block with settings (no cluster configured).
func queuedDRAWorkload(settings, gpu, extra string) string {
	return "provider \"gpu\" {\n  " + settings + "\n}\n" + queuedDRAResource(gpu, extra)
}

// queuedDRAResource is the workload of queuedDRAWorkload, rendered only.
func queuedDRAResource(gpu, extra string) string {
	return fmt.Sprintf(`
resource "gpu_workload" "q" {
  name      = "q"
  namespace = "default"
  cloud     = "generic"
  kind      = "job"
  image     = "registry.invalid/cuda:12"
  queue     = "team-a"
  apply     = false
  %s
  gpu {
    %s
  }
}
`, extra, gpu)
}

const (
	draSelectors = "count = 1\n    accelerator = \"h100-80gb\"\n    dra {\n      selectors = [\"device.attributes[\\\"gpu.nvidia.com\\\"].productName == \\\"NVIDIA H100 80GB HBM3\\\"\"]\n    }"
	draSame      = "count = 2\n    dra {\n      device_class = \"h100.gpu.gpuform.io\"\n      same = \"pcie-root\"\n    }"
	draClass     = "count = 1\n    dra {\n      device_class = \"h100.gpu.gpuform.io\"\n    }"
	draPrefs     = "count = 1\n    accelerators = [\"h200\", \"h100-80gb\"]\n    dra {}"
)

// Kueue's release-dependent rules (docs/design/kueue-versions.md) fail the
// plan of a queued DRA workload, naming the release they judged by and
// how it is known; kueue_version itself is validated against the
// supported releases.
func TestWorkload_kueueVersionPlanTimeValidation(t *testing.T) {
	cases := map[string]struct {
		provider, gpu, extra string
		want                 []string
	}{
		"kueue_version too old": {provider: `kueue_version = "v0.16"`, gpu: draClass,
			want: []string{`Invalid Attribute Value Match`, `kueue_version = "v0.16"`, `must be a supported Kueue release`, `v0.17, v0.18, v0.19, v0.20, v0.21`}},
		"kueue_version without v": {provider: `kueue_version = "0.19"`, gpu: draClass,
			want: []string{`Invalid Attribute Value Match`, `kueue_version = "0.19"`, `optionally with its patch`}},
		// kueue#9742: CEL selectors are accepted from v0.18.0.
		"selectors on an unknown release": {gpu: draSelectors,
			want: []string{`Kueue v0.17 cannot admit this claim`, `"CEL selectors are not supported"`, `from v0.18.0 (kueue#9742)`,
				`assumed because kueue_version is not set`, `no cluster is configured`, `set kueue_version`}},
		"selectors on v0.17": {provider: `kueue_version = "v0.17"`, gpu: draSelectors,
			want: []string{`Kueue v0.17 cannot admit this claim`, `Judged by Kueue v0.17, from the provider's kueue_version`}},
		// kueue#12471 (v0.18.2) and kueue#12451 (v0.19.0): constraints.
		"same on v0.18.1": {provider: `kueue_version = "v0.18.1"`, gpu: draSame,
			want: []string{`Kueue v0.18.1 cannot admit this claim`, `same = "pcie-root"`, `device constraints (MatchAttribute)`, `no gpu.dra.same, or Kueue v0.18.2`}},
		// pkg/dra/claims.go refuses firstAvailable in every release read.
		"preference list on v0.21": {provider: `kueue_version = "v0.21"`, gpu: draPrefs,
			want: []string{`Kueue v0.21 cannot admit this claim`, `accelerators = ["h200", "h100-80gb"]`, `in no release up to v0.21`}},
		// Kueue's DRA page: "No DRA + Topology Aware Scheduling".
		"DRA with topology on v0.20": {provider: `kueue_version = "v0.20"`, gpu: draClass,
			extra: "topology {\n    level = \"node\"\n  }",
			want:  []string{`Kueue cannot place DRA devices by topology`, `in no release up to v0.21`, `Judged by Kueue v0.20`}},
	}
	clearClusterEnv(t)
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			planFails(t, queuedDRAWorkload(c.provider, c.gpu, c.extra), acctest.Phrases(c.want...))
		})
	}
}

// The same claims plan on the releases that admit them.
func TestWorkload_kueueVersionAdmits(t *testing.T) {
	clearClusterEnv(t)
	for name, c := range map[string]struct{ provider, gpu string }{
		"selectors on v0.18": {`kueue_version = "v0.18"`, draSelectors},
		"same on v0.18.2":    {`kueue_version = "v0.18.2"`, draSame},
		"same on v0.19":      {`kueue_version = "v0.19"`, draSame},
	} {
		t.Run(name, func(t *testing.T) {
			planSucceeds(t, queuedDRAWorkload(c.provider, c.gpu, ""))
		})
	}
}

// On the local cluster nothing names Kueue's release (its CRDs come from
// the module unlabelled, and Kueue runs as a process, not a Deployment):
// the plan reads the cluster, finds nothing, judges by v0.17 and says why.
func TestAccWorkload_kueueReleaseUnknownOnTheLocalCluster(t *testing.T) {
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config:   acctest.ProviderBlock(t) + queuedDRAResource(draSelectors, ""),
			PlanOnly: true,
			ExpectError: acctest.Phrases(`Kueue v0.17 cannot admit this claim`, `assumed because kueue_version is not set`,
				`nor Deployment kueue-system/kueue-controller-manager is there`),
		}},
	})
}

// A gpu_queue flavor of a DRA pool with a topology is refused: its flavor
// would be one of Kueue's Topology Aware Scheduling, which counts no DRA
// device in any release (kueuever.DRAWithTopology).
func TestQueue_draPoolWithTopologyPlanTimeValidation(t *testing.T) {
	clearClusterEnv(t)
	planFails(t, `
resource "gpu_node_pool_policy" "p" {
  name           = "dra-tas"
  cloud          = "generic"
  accelerator    = "gb200"
  gpus_per_node  = 4
  gpu_allocation = "dra"
  topology {
    levels = ["clique"]
  }
}

resource "gpu_queue" "q" {
  name = "dra-tas"
  flavor {
    node_pool = gpu_node_pool_policy.p.ref
    gpus      = 4
  }
}
`, acctest.Phrases(`Kueue cannot place DRA devices by topology`, `node_pool = gpu_node_pool_policy.p.ref`, `is a DRA pool with a topology`,
		`in no release up to v0.21`, `Allowed: a DRA pool without a topology block`))
}
