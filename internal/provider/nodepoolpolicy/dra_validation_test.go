package nodepoolpolicy_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// Plan-time rules of DRA pools (gpu_allocation = "dra"), with no cluster
// configured: each cloud's refusal and each "one node, one way" rule fails
// the plan on the attribute that caused it and says why and what is
// allowed. Karpenter's warning and the shapes are in internal/render/pool.
func TestNodePoolPolicy_draPlanTimeValidation(t *testing.T) {
	const h100 = "accelerator = \"h100-80gb\"\n  gpus_per_node = 8\n  gpu_allocation = \"dra\"\n  "
	cases := map[string]poolRule{
		"unknown gpu_allocation": {body: "cloud = \"generic\"\n  accelerator = \"h100-80gb\"\n  gpus_per_node = 8\n  gpu_allocation = \"cdi\"",
			want: acctest.Phrases(`Invalid Attribute Value Match`, `gpu_allocation = "cdi"`, `"device-plugin"`, `"dra"`)},
		"GKE Autopilot": {body: "cloud = \"gke-autopilot\"\n  " + h100,
			want: acctest.Phrases(`GKE Autopilot does not support DRA`, `gpu_allocation = "dra"`, `Allowed: gpu_allocation = "device-plugin"`)},
		"GKE partition": {body: "cloud = \"gke\"\n  " + h100 + "partition = \"3g.40gb\"",
			want: acctest.Phrases(`GKE does not partition DRA node pools`, `partition = "3g.40gb"`, `names no version that lifts it`, `Allowed: remove partition`)},
		"GKE time-sharing": {body: "cloud = \"gke\"\n  " + h100 + "sharing = \"time-slicing\"\n  replicas = 2",
			want: acctest.Phrases(`GKE does not share GPUs of DRA node pools`, `sharing = "time-slicing"`, `Allowed: remove sharing`)},
		"GKE MPS": {body: "cloud = \"gke\"\n  " + h100 + "sharing = \"mps\"\n  replicas = 2",
			want: acctest.Phrases(`GKE does not share GPUs of DRA node pools`, `sharing = "mps"`, `gpu_sharing_config`)},
		"EKS Auto Mode": {body: "cloud = \"eks-auto\"\n  " + h100,
			want: acctest.Phrases(`EKS Auto Mode does not support DRA before Kubernetes 1.36`, `gpu_allocation = "dra"`, `Allowed:`)},
		"mig_strategy": {body: "cloud = \"generic\"\n  " + h100 + "partition = \"3g.40gb\"\n  mig_strategy = \"single\"",
			want: acctest.Phrases(`mig_strategy on a DRA pool`, `mig_strategy = "single"`, `over-admits`, `Allowed: remove mig_strategy`)},
		"sharing": {body: "cloud = \"eks\"\n  " + h100 + "sharing = \"time-slicing\"\n  replicas = 4",
			want: acctest.Phrases(`sharing on a DRA pool`, `sharing = "time-slicing"`, `over-admits`, `Allowed: remove sharing and replicas`)},
		"replicas": {body: "cloud = \"generic\"\n  " + h100 + "replicas = 4",
			want: acctest.Phrases(`replicas on a DRA pool`, `replicas = 4`, `Allowed: remove replicas`)},
		"all-balanced": {body: "cloud = \"generic\"\n  " + h100 + "partition = \"all-balanced\"",
			want: acctest.Phrases(`A DRA pool takes one MIG profile`, `partition = "all-balanced"`, `Allowed: a single-profile partition`)},
		"device_plugin_config": {body: "cloud = \"generic\"\n  " + h100 +
			"device_plugin_config {\n    namespace = \"gpu-operator\"\n    name = \"device-plugin-config\"\n  }",
			want: acctest.Phrases(`device_plugin_config on a DRA pool`, `name = "device-plugin-config"`, `over-admits`, `Allowed: remove device_plugin_config`)},
	}
	acctest.ClearClusterEnv(t)
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			planFails(t, fmt.Sprintf("resource \"gpu_node_pool_policy\" \"bad\" {\n  name = \"pool\"\n  %s\n}\n", c.body), c.want)
		})
	}
}

// A gpu_workload on a DRA pool names the pool's class or none.
func TestNodePoolPolicy_draWorkloadValidation(t *testing.T) {
	acctest.ClearClusterEnv(t)
	planFails(t, draPoolAndWorkload("", "count = 1\n    dra {\n      device_class = \"gpu.nvidia.com\"\n    }"),
		acctest.Phrases(`Device class differs from the node pool`, `device_class = "gpu.nvidia.com"`,
			`Allowed: leave device_class unset to take the pool's, or "pool.gpu.gpuform.io"`))
	// (d) of issue #32 with the pool known: more GPUs than one of its nodes
	// has fails the plan, as for a device-plugin pool.
	planFails(t, draPoolAndWorkload("", "count = 9"), acctest.Phrases(`More GPUs than a node of the pool has`, `count = 9`, `has 8 GPUs per`))
}

// A workload on a DRA pool plans a claim on the pool's class, with no
// gpu.dra block, no selector and no nvidia.com/gpu, and the pool plans its
// class; nothing is contacted.
func TestNodePoolPolicy_draWorkloadPlans(t *testing.T) {
	acctest.ClearClusterEnv(t)
	planned := map[string]map[string]any{}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{{
			// apply = false: the manifest is known at plan (an applied DRA
			// workload's waits for the server's resource.k8s.io version).
			Config:             draPoolAndWorkload("apply = false", "count = 2"),
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPreRefresh: []plancheck.PlanCheck{
				acctest.CapturePlanned{Address: "gpu_node_pool_policy.p", Into: planned},
				acctest.CapturePlanned{Address: "gpu_workload.w", Into: planned},
			}},
		}},
	})
	pool, w := planned["gpu_node_pool_policy.p"], planned["gpu_workload.w"]
	if pool["device_class_name"] != "pool.gpu.gpuform.io" || !strings.Contains(fmt.Sprint(pool["device_class_yaml"]), "kind: DeviceClass") {
		t.Errorf("pool plans class %v:\n%v", pool["device_class_name"], pool["device_class_yaml"])
	}
	manifest := fmt.Sprint(w["manifests"])
	for _, want := range []string{"kind: ResourceClaimTemplate", "deviceClassName: pool.gpu.gpuform.io", "count: 2",
		"nvidia.com/gpu.deploy.device-plugin: \"false\""} {
		if !strings.Contains(manifest, want) {
			t.Errorf("manifest lacks %q:\n%s", want, manifest)
		}
	}
	for _, unwanted := range []string{"selectors:", "nvidia.com/gpu: \"2\""} {
		if strings.Contains(manifest, unwanted) {
			t.Errorf("manifest has %q:\n%s", unwanted, manifest)
		}
	}
}

func draPoolAndWorkload(extra, gpu string) string {
	return fmt.Sprintf(`
resource "gpu_node_pool_policy" "p" {
  name           = "pool"
  cloud          = "generic"
  accelerator    = "h100-80gb"
  gpus_per_node  = 8
  gpu_allocation = "dra"
}

resource "gpu_workload" "w" {
  name      = "w"
  namespace = "default"
  node_pool = gpu_node_pool_policy.p.ref
  image     = "registry.invalid/cuda:12"
  %s
  gpu {
    %s
  }
}
`, extra, gpu)
}
