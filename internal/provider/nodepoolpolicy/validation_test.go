package nodepoolpolicy_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/acctest"
)

// poolRule is one invalid gpu_node_pool_policy. body holds every attribute
// but name; name is the HCL expression of name ("pool" when empty).
type poolRule struct {
	prelude, name, body string
	want                *regexp.Regexp
}

// Plan-time validation of gpu_node_pool_policy, with no cluster configured:
// each rule fails the plan on the attribute that caused it (Terraform
// quotes its source line) and says what is allowed.
func TestNodePoolPolicy_planTimeValidation(t *testing.T) {
	cases := map[string]poolRule{}
	for _, group := range []map[string]poolRule{
		poolIdentityRules(), poolMIGRules(), poolSharingRules(), poolLabelAndTaintRules(), poolClusterBlockRules(),
	} {
		for name, c := range group {
			if _, dup := cases[name]; dup {
				t.Fatalf("case %q defined twice", name)
			}
			cases[name] = c
		}
	}
	acctest.ClearClusterEnv(t)
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if c.name == "" {
				c.name = `"pool"`
			}
			config := fmt.Sprintf("%s\nresource \"gpu_node_pool_policy\" \"bad\" {\n  name = %s\n  %s\n}\n", c.prelude, c.name, c.body)
			planFails(t, config, c.want)
		})
	}
}

// poolIdentityRules: name, cloud, accelerator, gpus_per_node.
func poolIdentityRules() map[string]poolRule {
	return map[string]poolRule{
		"name that is not a DNS label": {name: `"GPU_Pool"`, body: `cloud = "generic"
  accelerator   = "t4"
  gpus_per_node = 1`,
			want: acctest.Phrases(`Invalid pool name`, `name = "GPU_Pool"`, `Allowed: a DNS-1123 label`)},
		"empty name": {name: `""`, body: `cloud = "generic"
  accelerator   = "t4"
  gpus_per_node = 1`,
			want: acctest.Phrases(`Missing required value`, `name = ""`, `Allowed: a DNS-1123 label such as "l4-inference"`)},
		"unknown cloud": {body: `cloud = "gcp"
  accelerator   = "l4"
  gpus_per_node = 1`,
			want: acctest.Phrases(`Invalid Attribute Value Match`, `cloud = "gcp"`, `must be one of`, `"generic"`, `Did you mean "gke"?`)},
		"GKE Autopilot": {body: `cloud = "gke-autopilot"
  accelerator   = "l4"
  gpus_per_node = 1`,
			want: acctest.Phrases(`GKE Autopilot has no node pools`, `cloud = "gke-autopilot"`,
				`Allowed: use gpu_workload with cloud = "gke-autopilot" directly`)},
		"unknown accelerator": {body: `cloud = "gke"
  accelerator   = "k80"
  gpus_per_node = 1`,
			want: acctest.Phrases(`Invalid Attribute Value Match`, `accelerator = "k80"`, `must be one of`, `"a100-40gb"`)},
		"accelerator the cloud does not offer": {body: `cloud = "aks"
  accelerator   = "l4"
  gpus_per_node = 1`,
			want: acctest.Phrases(`Accelerator not offered on aks`, `accelerator = "l4"`, `Accelerators offered on "aks":`, `"t4"`)},
		"zero GPUs per node": {body: `cloud = "generic"
  accelerator   = "t4"
  gpus_per_node = 0`,
			want: acctest.Phrases(`Invalid Attribute Value`, `gpus_per_node = 0`, `must be between 1 and 16`)},
		"more GPUs per node than any machine": {body: `cloud = "generic"
  accelerator   = "h100-80gb"
  gpus_per_node = 17`,
			want: acctest.Phrases(`Invalid Attribute Value`, `gpus_per_node = 17`, `must be between 1 and 16`)},
		"GKE machine without that GPU count": {body: `cloud = "gke"
  accelerator   = "l4"
  gpus_per_node = 3`,
			want: acctest.Phrases(`No machine with that many GPUs`, `gpus_per_node = 3`, `Allowed on gke: 1, 2, 4, 8`, `g2-standard-24 has 2`)},
		"GKE N1 GPU count": {body: `cloud = "gke"
  accelerator   = "t4"
  gpus_per_node = 8`,
			want: acctest.Phrases(`No machine with that many GPUs`, `gpus_per_node = 8`, `Allowed on gke: 1, 2, 4 (any N1 machine type)`)},
		"AKS VM size without that GPU count": {body: `cloud = "aks"
  accelerator   = "a100-80gb"
  gpus_per_node = 3`,
			want: acctest.Phrases(`No machine with that many GPUs`, `gpus_per_node = 3`, `Allowed on aks: 1, 2, 4, 8`, `Standard_NC48ads_A100_v4 has 2`)},
		"EC2 instance type without that GPU count": {body: `cloud = "eks"
  accelerator   = "a10g"
  gpus_per_node = 2`,
			want: acctest.Phrases(`No machine with that many GPUs`, `gpus_per_node = 2`, `Allowed on eks: 1, 4, 8`, `g5.12xlarge has 4`)},
		"computed id set by hand": {body: `cloud = "generic"
  accelerator   = "t4"
  gpus_per_node = 1
  id            = "generic/t4/pool:e30"`,
			want: acctest.Phrases(`Invalid Configuration for Read-Only Attribute`, `id = "generic/t4/pool:e30"`, `Cannot set value for this attribute`)},
		"no cloud anywhere": {body: `accelerator = "t4"
  gpus_per_node = 1`,
			want: acctest.Phrases(`Missing cloud`, `default_cloud in the provider "gpu" block`, "Allowed: `gke`")},
		"default cloud that does not offer the accelerator": {prelude: "provider \"gpu\" {\n  default_cloud = \"aks\"\n}\n",
			body: `accelerator = "l4"
  gpus_per_node = 1`,
			want: acctest.Phrases(`Accelerator not offered on aks`, `accelerator = "l4"`, `Accelerators offered on "aks":`,
				`cloud is "aks" from default_cloud in the provider "gpu" block`)},
		"default cloud GKE Autopilot": {prelude: "provider \"gpu\" {\n  default_cloud = \"gke-autopilot\"\n}\n",
			body: `accelerator = "l4"
  gpus_per_node = 1`,
			want: acctest.Phrases(`GKE Autopilot has no node pools`, `Allowed: use gpu_workload`,
				`cloud is "gke-autopilot" from default_cloud`, `set cloud on this resource`)},
	}
}

// poolMIGRules: partition and mig_strategy, per cloud.
func poolMIGRules() map[string]poolRule {
	const a100 = "accelerator   = \"a100-40gb\"\n  gpus_per_node = 8\n  "
	return map[string]poolRule{
		"partition on a model without MIG": {body: `cloud = "generic"
  accelerator   = "t4"
  gpus_per_node = 1
  partition     = "1g.5gb"`,
			want: acctest.Phrases(`Accelerator has no MIG`, `partition = "1g.5gb"`, `Allowed: remove partition for whole GPUs`, `"a100-40gb"`)},
		// Only the models the pool's cloud offers are allowed (AKS has no B200 or RTX PRO 6000).
		"partition on a model without MIG, on AKS": {body: `cloud = "aks"
  accelerator   = "t4"
  gpus_per_node = 1
  partition     = "1g.5gb"`,
			want: acctest.Phrases(`Accelerator has no MIG`, `partition = "1g.5gb"`,
				`a model with MIG on aks: "a100-40gb", "a100-80gb", "gb200", "h100-80gb", "h100-nvl", "h200".`)},
		"partition the model does not have": {body: "cloud = \"generic\"\n  " + a100 + `partition = "2g.20gb"`,
			want: acctest.Phrases(`Unsupported MIG partition`, `partition = "2g.20gb"`, `Allowed values:`, `"2g.10gb"`, `"all-balanced"`)},
		"all-balanced with the single strategy": {body: "cloud = \"generic\"\n  " + a100 + "partition = \"all-balanced\"\n  mig_strategy = \"single\"",
			want: acctest.Phrases(`all-balanced needs the mixed strategy`, `mig_strategy = "single"`, `Allowed: mig_strategy = "mixed"`)},
		"all-balanced without a strategy": {body: "cloud = \"generic\"\n  " + a100 + `partition = "all-balanced"`,
			want: acctest.Phrases(`all-balanced needs the mixed strategy`, `partition = "all-balanced"`, `Allowed: mig_strategy = "mixed"`)},
		"unknown mig_strategy": {body: "cloud = \"generic\"\n  " + a100 + "partition = \"1g.5gb\"\n  mig_strategy = \"none\"",
			want: acctest.Phrases(`Invalid Attribute Value Match`, `mig_strategy = "none"`, `must be one of`, `"mixed"`)},
		"mig_strategy without partition": {body: "cloud = \"generic\"\n  " + a100 + `mig_strategy = "mixed"`,
			want: acctest.Phrases(`mig_strategy without partition`, `mig_strategy = "mixed"`, `Allowed: set partition, or remove mig_strategy`)},
		"GKE mixed strategy": {body: "cloud = \"gke\"\n  " + a100 + "partition = \"2g.10gb\"\n  mig_strategy = \"mixed\"",
			want: acctest.Phrases(`MIG strategy not available on GKE`, `mig_strategy = "mixed"`, `Allowed on GKE: "single"`)},
		"GKE partition GKE does not offer": {body: "cloud = \"gke\"\n  " + a100 + `partition = "4g.20gb"`,
			want: acctest.Phrases(`MIG partition not offered by GKE`, `partition = "4g.20gb"`, `Allowed on GKE for a100-40gb: "1g.5gb", "2g.10gb"`)},
		"GKE all-balanced": {body: "cloud = \"gke\"\n  " + a100 + `partition = "all-balanced"`,
			want: acctest.Phrases(`MIG partition not offered by GKE`, `partition = "all-balanced"`, `one gpu_partition_size`)},
		"MIG on EKS Auto Mode": {body: "cloud = \"eks-auto\"\n  " + a100 + `partition = "1g.5gb"`,
			want: acctest.Phrases(`MIG not configurable on EKS Auto Mode`, `partition = "1g.5gb"`, `use cloud "karpenter" or "eks"`)},
	}
}

// poolSharingRules: sharing and replicas, alone and with MIG.
func poolSharingRules() map[string]poolRule {
	const t4 = "cloud = \"generic\"\n  accelerator = \"t4\"\n  gpus_per_node = 1\n  "
	const a100 = "accelerator = \"a100-40gb\"\n  gpus_per_node = 8\n  partition = \"1g.5gb\"\n  "
	return map[string]poolRule{
		"unknown sharing mode": {body: t4 + "sharing = \"vgpu\"\n  replicas = 2",
			want: acctest.Phrases(`Invalid Attribute Value Match`, `sharing = "vgpu"`, `must be one of`, `"time-slicing" "mps"`)},
		"one replica": {body: t4 + "sharing = \"time-slicing\"\n  replicas = 1",
			want: acctest.Phrases(`Invalid Attribute Value`, `replicas = 1`, `must be at least 2`)},
		"zero replicas": {body: t4 + "replicas = 0",
			want: acctest.Phrases(`Invalid Attribute Value`, `replicas = 0`, `must be at least 2`)},
		"replicas without sharing": {body: t4 + "replicas = 4",
			want: acctest.Phrases(`replicas without sharing`, `replicas = 4`, `Allowed: set sharing to one of "time-slicing", "mps"`)},
		"sharing without replicas": {body: t4 + `sharing = "mps"`,
			want: acctest.Phrases(`Missing replicas`, `sharing = "mps"`, `Allowed: 2 or more (at most 48`)},
		"more MPS clients than MPS serves": {body: t4 + "sharing = \"mps\"\n  replicas = 49",
			want: acctest.Phrases(`Too many clients per GPU`, `replicas = 49`, `CUDA MPS serves at most 48`, `Allowed: 2 to 48`)},
		"more GKE clients than GKE allows": {body: "cloud = \"gke\"\n  accelerator = \"l4\"\n  gpus_per_node = 1\n  sharing = \"time-slicing\"\n  replicas = 49",
			want: acctest.Phrases(`Too many clients per GPU`, `replicas = 49`, `GKE allows at most 48`, `Allowed: 2 to 48`)},
		"sharing on EKS Auto Mode": {body: "cloud = \"eks-auto\"\n  accelerator = \"l4\"\n  gpus_per_node = 1\n  sharing = \"time-slicing\"\n  replicas = 4",
			want: acctest.Phrases(`GPU sharing not configurable on EKS Auto Mode`, `sharing = "time-slicing"`, `Allowed: remove sharing`)},
		"MPS on MIG partitions": {body: "cloud = \"generic\"\n  " + a100 + "mig_strategy = \"mixed\"\n  sharing = \"mps\"\n  replicas = 2",
			want: acctest.Phrases(`MPS with MIG is not supported`, `sharing = "mps"`, `Allowed: sharing = "time-slicing"`)},
		"time-sliced MIG under the single strategy": {body: "cloud = \"eks\"\n  " + a100 + "sharing = \"time-slicing\"\n  replicas = 2",
			want: acctest.Phrases(`Time-slicing needs the mixed MIG strategy`, `sharing = "time-slicing"`, `Allowed: mig_strategy = "mixed"`)},
	}
}

// poolLabelAndTaintRules: the extra labels and taints.
func poolLabelAndTaintRules() map[string]poolRule {
	const t4 = "cloud = \"generic\"\n  accelerator = \"t4\"\n  gpus_per_node = 1\n  "
	const l4 = "accelerator = \"l4\"\n  gpus_per_node = 1\n  "
	return map[string]poolRule{
		"invalid label key": {body: t4 + `labels = { "bad key" = "x" }`,
			want: acctest.Phrases(`Invalid label key`, `labels = { "bad key" = "x" }`, `Allowed: an optional DNS subdomain prefix`)},
		"invalid label value": {body: t4 + `labels = { team = "a b" }`,
			want: acctest.Phrases(`Invalid label value`, `labels = { team = "a b" }`, `Allowed: at most 63 letters`)},
		"label the pool derives": {body: "cloud = \"eks\"\n  " + l4 + `labels = { "k8s.amazonaws.com/accelerator" = "nvidia-l4" }`,
			want: acctest.Phrases(`Label set by the pool`, `"k8s.amazonaws.com/accelerator" = "nvidia-l4"`, `Allowed: remove it from labels`)},
		"label the cloud sets": {body: "cloud = \"gke\"\n  " + l4 + `labels = { "cloud.google.com/gke-accelerator" = "nvidia-l4" }`,
			want: acctest.Phrases(`Label set by the cloud`, `"cloud.google.com/gke-accelerator" = "nvidia-l4"`, `Allowed: remove it from labels`)},
		"kubernetes.io label prefix": {body: t4 + `labels = { "node-role.kubernetes.io/gpu" = "" }`,
			want: acctest.Phrases(`Reserved label prefix`, `"node-role.kubernetes.io/gpu" = ""`, `NodeRestriction`, `Allowed: a key under your own prefix`)},
		"AKS label prefix": {body: "cloud = \"aks\"\n  accelerator = \"t4\"\n  gpus_per_node = 1\n  " + `labels = { "kubernetes.azure.com/team" = "ml" }`,
			want: acctest.Phrases(`Reserved label prefix`, `"kubernetes.azure.com/team" = "ml"`, `AKS reserves`, `Allowed: a key under your own prefix`)},
		"Karpenter label prefix": {body: "cloud = \"karpenter\"\n  " + l4 + `labels = { "karpenter.sh/team" = "ml" }`,
			want: acctest.Phrases(`Reserved label prefix`, `"karpenter.sh/team" = "ml"`, `Karpenter reserves`, `Allowed: a key under your own prefix`)},
		"null label value": {body: t4 + `labels = { team = null }`,
			want: acctest.Phrases(`Null element`, `labels = { team = null }`, `labels["team"] is null`, `Allowed: a value, or leave the element out`)},
		"null taint": {body: t4 + `taints = [null]`,
			want: acctest.Phrases(`Null element`, `taints = [null]`, `taints[0] is null`, `Allowed: a value, or leave the element out`)},
		"invalid taint key": {body: t4 + `taints = [{ key = "bad key", effect = "NoSchedule" }]`,
			want: acctest.Phrases(`Invalid taint key`, `{ key = "bad key", effect = "NoSchedule" }`, `Allowed: an optional DNS subdomain prefix`)},
		"empty taint key": {body: t4 + `taints = [{ key = "", effect = "NoSchedule" }]`,
			want: acctest.Phrases(`Missing taint key`, `{ key = "", effect = "NoSchedule" }`, `Allowed: a label-style key`)},
		"invalid taint value": {body: t4 + `taints = [{ key = "team", value = "-ml", effect = "NoSchedule" }]`,
			want: acctest.Phrases(`Invalid taint value`, `value = "-ml"`, `Allowed: at most 63 letters`)},
		"invalid taint effect": {body: t4 + `taints = [{ key = "team", effect = "Never" }]`,
			want: acctest.Phrases(`Invalid taint effect`, `effect = "Never"`, `Allowed values: "NoSchedule", "PreferNoSchedule", "NoExecute"`)},
		"taint without effect": {body: t4 + `taints = [{ key = "team" }]`,
			want: acctest.Phrases(`Incorrect attribute value type`, `taints = [{ key = "team" }]`, `attribute "effect" is required`)},
		"duplicate taint": {body: t4 + `taints = [
    { key = "team", value = "a", effect = "NoSchedule" },
    { key = "team", value = "b", effect = "NoSchedule" },
  ]`,
			want: acctest.Phrases(`Duplicate taint`, `{ key = "team", value = "b", effect = "NoSchedule" }`, `taints[0] already has key "team"`,
				`Allowed: one entry per key and effect`)},
		"taint dedicated already adds": {body: "cloud = \"eks\"\n  " + l4 + `taints = [{ key = "nvidia.com/gpu", value = "yes", effect = "NoSchedule" }]`,
			want: acctest.Phrases(`Taint added by the pool`, `key = "nvidia.com/gpu"`, `dedicated = true`, `Allowed: remove it, or set dedicated = false`)},
		"GKE's own GPU taint": {body: "cloud = \"gke\"\n  " + l4 + "dedicated = false\n  " +
			`taints = [{ key = "nvidia.com/gpu", value = "present", effect = "NoSchedule" }]`,
			want: acctest.Phrases(`Taint added by the pool`, `key = "nvidia.com/gpu"`, `GKE adds it to GPU node pools`, `Allowed: remove it`)},
		"AKS spot taint": {body: "cloud = \"aks\"\n  accelerator = \"t4\"\n  gpus_per_node = 1\n  spot = true\n  " +
			`taints = [{ key = "kubernetes.azure.com/scalesetpriority", value = "spot", effect = "NoSchedule" }]`,
			want: acctest.Phrases(`Taint added by the pool`, `key = "kubernetes.azure.com/scalesetpriority"`, `AKS adds it to spot node pools`)},
	}
}

// poolClusterBlockRules: manage_nodes and device_plugin_config, the two
// blocks that touch the cluster at apply and so must be right at plan.
func poolClusterBlockRules() map[string]poolRule {
	const shared = "cloud = \"generic\"\n  accelerator = \"t4\"\n  gpus_per_node = 1\n  sharing = \"time-slicing\"\n  replicas = 4\n  "
	return map[string]poolRule{
		"manage_nodes without selector": {body: shared + "manage_nodes {}",
			want: acctest.Phrases(`Missing selector`, `manage_nodes {}`, `manage_nodes needs selector`, `"cloud.google.com/gke-nodepool=a100"`)},
		"manage_nodes selecting every node": {body: shared + "manage_nodes {\n    selector = \"\"\n  }",
			want: acctest.Phrases(`Invalid Attribute Value Length`, `selector = ""`, `at least 1`)},
		"manage_nodes selector that does not parse": {body: shared + "manage_nodes {\n    selector = \"gpu pool=a100\"\n  }",
			want: acctest.Phrases(`Invalid label selector`, `selector = "gpu pool=a100"`, `Allowed: a Kubernetes label selector`)},
		"manage_nodes selector with an unclosed set": {body: shared + "manage_nodes {\n    selector = \"team in (ml,research\"\n  }",
			want: acctest.Phrases(`Invalid label selector`, `selector = "team in (ml,research"`, `expected: ',' or ')'`)},
		"device_plugin_config without name": {body: shared + "device_plugin_config {\n    namespace = \"gpu-operator\"\n  }",
			want: acctest.Phrases(`Missing ConfigMap name`, `device_plugin_config {`, `Allowed: name = the GPU Operator's devicePlugin.config.name`)},
		"device_plugin_config without namespace": {body: shared + "device_plugin_config {\n    name = \"device-plugin-config\"\n  }",
			want: acctest.Phrases(`Missing ConfigMap namespace`, `device_plugin_config {`, `Allowed: namespace = "gpu-operator"`)},
		"ConfigMap name that is not a DNS subdomain": {body: shared + "device_plugin_config {\n    namespace = \"gpu-operator\"\n    name = \"Device_Plugin\"\n  }",
			want: acctest.Phrases(`Invalid ConfigMap name`, `name = "Device_Plugin"`, `Allowed: a DNS-1123 subdomain`)},
		"ConfigMap namespace that is not a DNS label": {body: shared + "device_plugin_config {\n    namespace = \"gpu.operator\"\n    name = \"device-plugin-config\"\n  }",
			want: acctest.Phrases(`Invalid ConfigMap namespace`, `namespace = "gpu.operator"`, `Allowed: a DNS-1123 label`)},
	}
}

// workloadOnPool is a gpu_workload placed with node_pool on a generic pool.
// nodePool defaults to the pool's id.
type workloadOnPool struct {
	pool, nodePool, extra, gpu string
	want                       *regexp.Regexp
}

// gpu_workload.node_pool: a workload asking the pool for something it
// cannot give fails the plan on the workload's attribute, with no cluster.
// TestAccNodePoolPolicy_workloadMustFitPool has the accelerator, count and
// shared-count cases.
func TestNodePoolPolicy_workloadOnPoolValidation(t *testing.T) {
	const a100 = "accelerator = \"a100-40gb\"\n  gpus_per_node = 8\n  "
	const t4 = "accelerator = \"t4\"\n  gpus_per_node = 1\n  "
	cases := map[string]workloadOnPool{
		"cloud other than the pool's": {pool: t4, extra: `cloud = "gke"`, gpu: "count = 1",
			want: acctest.Phrases(`Cloud differs from the node pool`, `cloud = "gke"`, `Allowed: cloud = "generic"`)},
		"preference list without the pool's model": {pool: t4, gpu: "count = 1\n    accelerators = [\"l4\", \"a10g\"]",
			want: acctest.Phrases(`No listed accelerator is in the node pool`, `accelerators = ["l4", "a10g"]`, `Allowed: include "t4"`)},
		"partition on a whole-GPU pool": {pool: a100, gpu: "count = 1\n    partition = \"1g.5gb\"",
			want: acctest.Phrases(`The node pool has whole GPUs`, `partition = "1g.5gb"`, `Allowed: remove partition`)},
		"no partition chosen on an all-balanced pool": {pool: a100 + "partition = \"all-balanced\"\n  mig_strategy = \"mixed\"", gpu: "count = 1",
			want: acctest.Phrases(`Choose a partition of the node pool`, `gpu {`, `Allowed: partition = one of "1g.5gb", "2g.10gb", "3g.20gb"`)},
		"partition the pool does not cut": {pool: a100 + "partition = \"all-1g.5gb\"\n  mig_strategy = \"mixed\"", gpu: "count = 1\n    partition = \"2g.10gb\"",
			want: acctest.Phrases(`Partition not in the node pool`, `partition = "2g.10gb"`, `Allowed: one of those, or leave partition unset`)},
		"mig_strategy other than the pool's": {pool: a100 + `partition = "1g.5gb"`, gpu: "count = 1\n    mig_strategy = \"mixed\"",
			want: acctest.Phrases(`MIG strategy differs from the node pool`, `mig_strategy = "mixed"`, `Allowed: "single", or leave it unset`)},
		"more MIG instances than a node has": {pool: "accelerator = \"a100-40gb\"\n  gpus_per_node = 1\n  partition = \"1g.5gb\"", gpu: "count = 8",
			want: acctest.Phrases(`More MIG instances than a node has`, `count = 8`, `Allowed: 1 to 7`)},
		"sharing on a pool that does not share": {pool: t4, gpu: "count = 1\n    sharing = \"time-slicing\"",
			want: acctest.Phrases(`The node pool does not share GPUs`, `sharing = "time-slicing"`, `Allowed: remove sharing`)},
		"other sharing mode than the pool's": {pool: t4 + "sharing = \"time-slicing\"\n  replicas = 4", gpu: "count = 1\n    sharing = \"mps\"",
			want: acctest.Phrases(`Sharing differs from the node pool`, `sharing = "mps"`, `Allowed: "time-slicing", or leave sharing unset`)},
		"max_shared_clients other than the pool's replicas": {pool: t4 + "sharing = \"time-slicing\"\n  replicas = 4",
			gpu:  "count = 1\n    max_shared_clients = 8",
			want: acctest.Phrases(`max_shared_clients differs from the node pool`, `max_shared_clients = 8`, `Allowed: 4, or leave it unset`)},
		"pool that time-shares MIG partitions": {pool: a100 + "partition = \"1g.5gb\"\n  mig_strategy = \"mixed\"\n  sharing = \"time-slicing\"\n  replicas = 2",
			gpu:  "count = 1",
			want: acctest.Phrases(`Shared MIG pools cannot run gpu_workload`, `node_pool = gpu_node_pool_policy.p.ref`, `Allowed: a node pool without sharing`)},
		"spot workload on an on-demand pool": {pool: t4, extra: "spot = true", gpu: "count = 1",
			want: acctest.Phrases(`The node pool is not spot capacity`, `spot = true`, `Allowed: remove spot`)},
		"DRA on a node pool": {pool: t4, gpu: "count = 1\n    dra {}",
			want: acctest.Phrases(`DRA with a node pool`, `dra {}`, `Allowed: remove dra, or remove node_pool`)},
		"ref of a policy that does not validate": {pool: t4,
			nodePool: `merge(gpu_node_pool_policy.p.ref, { cloud = "gke", accelerator = "l4", gpus_per_node = 3 })`, gpu: "count = 1",
			want: acctest.Phrases(`Invalid node pool`, `node_pool = merge(gpu_node_pool_policy.p.ref`, `gpus_per_node: No machine with that many GPUs`,
				`Allowed: the ref of a gpu_node_pool_policy that plans without errors`)},
		"pool id of an earlier version": {pool: t4, nodePool: `"generic/t4/p:eyJ2IjoxfQ"`, gpu: "count = 1",
			want: acctest.Phrases(`Inappropriate value for attribute "node_pool"`, `object required`)},
	}
	acctest.ClearClusterEnv(t)
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if c.nodePool == "" {
				c.nodePool = "gpu_node_pool_policy.p.ref"
			}
			planFails(t, fmt.Sprintf(`
resource "gpu_node_pool_policy" "p" {
  name  = "pool"
  cloud = "generic"
  %s
}

resource "gpu_workload" "w" {
  name      = "w"
  namespace = "default"
  node_pool = %s
  image     = "registry.invalid/cuda:12"
  %s
  gpu {
    %s
  }
}
`, c.pool, c.nodePool, c.extra, c.gpu), c.want)
		})
	}
}
