package pool

import (
	"strings"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// validPool is the smallest policy that renders.
func validPool() spec.PoolPolicy {
	return spec.PoolPolicy{Name: "gpu", Cloud: string(spec.CloudGKE), Accelerator: "l4", GPUsPerNode: 1}
}

func poolWith(edit func(p *spec.PoolPolicy)) spec.PoolPolicy {
	p := validPool()
	edit(&p)
	return p
}

type poolRuleCase struct {
	name string
	pool spec.PoolPolicy
	// strict runs the apply-time rules (Render) instead of Validate.
	strict    bool
	severity  gpudiag.Severity
	path      string
	substring string
}

func poolRuleCases() []poolRuleCase {
	e, w := gpudiag.SeverityError, gpudiag.SeverityWarning
	return []poolRuleCase{
		{"invalid name", poolWith(func(p *spec.PoolPolicy) { p.Name = "Bad_Name" }), false, e, "name", "DNS-1123 label"},
		{"missing name at apply", poolWith(func(p *spec.PoolPolicy) { p.Name = "" }), true, e, "name", "A value is required"},
		{"unknown cloud", poolWith(func(p *spec.PoolPolicy) { p.Cloud = "gcp" }), false, e, "cloud", `Allowed values: "gke", "aks"`},
		{"autopilot has no pools", poolWith(func(p *spec.PoolPolicy) { p.Cloud = "gke-autopilot" }), false, e, "cloud", `cloud = "gke-autopilot" directly`},
		{"unknown accelerator", poolWith(func(p *spec.PoolPolicy) { p.Accelerator = "k80" }), false, e, "accelerator", "not in the accelerator catalog"},
		{"accelerator not on cloud", poolWith(func(p *spec.PoolPolicy) { p.Cloud = "aks" }), false, e, "accelerator", `Accelerators offered on "aks"`},
		{"gpus_per_node missing at apply", poolWith(func(p *spec.PoolPolicy) { p.GPUsPerNode = 0 }), true, e, "gpus_per_node", "A value is required"},
		{"gpus_per_node too many", poolWith(func(p *spec.PoolPolicy) { p.Cloud, p.GPUsPerNode = "generic", 17 }), false, e, "gpus_per_node", "from 1 to 16"},
		{"gpus_per_node negative", poolWith(func(p *spec.PoolPolicy) { p.GPUsPerNode = -2 }), false, e, "gpus_per_node", "from 1 to 16"},
		{"gke machine counts", poolWith(func(p *spec.PoolPolicy) { p.GPUsPerNode = 3 }), false, e, "gpus_per_node", "Allowed on gke: 1, 2, 4, 8 (g2-standard-4 has 1"},
		{"gke n1 counts", poolWith(func(p *spec.PoolPolicy) { p.Accelerator, p.GPUsPerNode = "t4", 8 }), false, e, "gpus_per_node", "1, 2, 4 (any N1 machine type)"},
		{"eks instance counts", poolWith(func(p *spec.PoolPolicy) { p.Cloud, p.Accelerator, p.GPUsPerNode = "eks", "a10g", 2 }), false, e, "gpus_per_node", "Allowed on eks: 1, 4, 8"},
		{"aks vm counts", poolWith(func(p *spec.PoolPolicy) { p.Cloud, p.Accelerator, p.GPUsPerNode = "aks", "a100-80gb", 3 }), false, e, "gpus_per_node", "Standard_NC48ads_A100_v4 has 2"},
		{"karpenter uses ec2 counts", poolWith(func(p *spec.PoolPolicy) { p.Cloud, p.Accelerator, p.GPUsPerNode = "karpenter", "h100-80gb", 4 }), false, e, "gpus_per_node", "Allowed on karpenter: 1, 8"},
		{"partition on model without MIG", poolWith(func(p *spec.PoolPolicy) { p.Partition = "1g.5gb" }), false, e, "partition", "cannot be partitioned"},
		{"unknown partition", a100Pool(func(p *spec.PoolPolicy) { p.Partition = "9g.1tb" }), false, e, "partition", `"all-1g.5gb"`},
		{"unknown partition lists balanced", a100Pool(func(p *spec.PoolPolicy) { p.Partition = "all-9g.1tb" }), false, e, "partition", `"all-balanced"`},
		{"balanced with single", a100Pool(func(p *spec.PoolPolicy) {
			p.Cloud, p.Partition, p.MIGStrategy = "generic", spec.PartitionAllBalanced, "single"
		}), false, e, "mig_strategy", `mig_strategy = "mixed"`},
		{"balanced with default strategy at apply", a100Pool(func(p *spec.PoolPolicy) { p.Cloud, p.Partition = "generic", spec.PartitionAllBalanced }), true, e, "partition", "several profiles"},
		{"unknown mig strategy", a100Pool(func(p *spec.PoolPolicy) { p.Partition, p.MIGStrategy = "2g.10gb", "none" }), false, e, "mig_strategy", `Allowed values: "single", "mixed"`},
		{"mig strategy without partition", poolWith(func(p *spec.PoolPolicy) { p.MIGStrategy = "mixed" }), true, e, "mig_strategy", "set partition"},
		{"gke has no mixed", a100Pool(func(p *spec.PoolPolicy) { p.Partition, p.MIGStrategy = "2g.10gb", "mixed" }), false, e, "mig_strategy", "GKE does not run"},
		{"gke partition subset", a100Pool(func(p *spec.PoolPolicy) { p.Partition = "4g.20gb" }), false, e, "partition", `Allowed on GKE for a100-40gb: "1g.5gb", "2g.10gb", "3g.20gb", "7g.40gb"`},
		{"gke has no balanced", a100Pool(func(p *spec.PoolPolicy) { p.Partition, p.MIGStrategy = spec.PartitionAllBalanced, "single" }), false, e, "partition", "one gpu_partition_size"},
		{"eks auto has no mig", a100Pool(func(p *spec.PoolPolicy) { p.Cloud, p.Partition = "eks-auto", "1g.5gb" }), false, e, "partition", "EKS Auto Mode"},
		{"unknown sharing", poolWith(func(p *spec.PoolPolicy) { p.Sharing, p.Replicas = "vgpu", 2 }), false, e, "sharing", `Allowed values: "time-slicing", "mps"`},
		{"replicas one", poolWith(func(p *spec.PoolPolicy) { p.Sharing, p.Replicas = "time-slicing", 1 }), false, e, "replicas", "at least 2"},
		{"replicas without sharing", poolWith(func(p *spec.PoolPolicy) { p.Replicas = 4 }), true, e, "replicas", "set sharing"},
		{"sharing without replicas", poolWith(func(p *spec.PoolPolicy) { p.Sharing = "mps" }), true, e, "sharing", "how many pods share one GPU"},
		{"mps client limit", poolWith(func(p *spec.PoolPolicy) { p.Cloud, p.Sharing, p.Replicas = "generic", "mps", 49 }), false, e, "replicas", "CUDA MPS serves at most 48"},
		{"gke client limit", poolWith(func(p *spec.PoolPolicy) { p.Sharing, p.Replicas = "time-slicing", 49 }), false, e, "replicas", "GKE allows at most 48"},
		{"eks auto has no sharing", poolWith(func(p *spec.PoolPolicy) { p.Cloud, p.Sharing, p.Replicas = "eks-auto", "time-slicing", 4 }), false, e, "sharing", "AWS-managed NVIDIA device plugin"},
		{"mps with mig", a100Pool(func(p *spec.PoolPolicy) { p.Partition, p.Sharing, p.Replicas = "1g.5gb", "mps", 2 }), false, e, "sharing", "cannot run MPS on MIG devices"},
		{"time-slicing single mig", a100Pool(func(p *spec.PoolPolicy) {
			p.Cloud, p.Partition, p.Sharing, p.Replicas = "eks", "1g.5gb", "time-slicing", 2
		}), false, e, "sharing", "only under the \"mixed\" strategy"},
		{"time-slicing mixed mig warns", a100Pool(func(p *spec.PoolPolicy) {
			p.Cloud, p.Partition, p.MIGStrategy, p.Sharing, p.Replicas = "generic", "1g.5gb", "mixed", "time-slicing", 2
		}), true, w, "sharing", `"nvidia.com/mig-1g.5gb.shared"`},
		{"gke time-sharing partitions warns", a100Pool(func(p *spec.PoolPolicy) { p.Partition, p.Sharing, p.Replicas = "1g.5gb", "time-slicing", 2 }), true, w, "sharing", "never a shared partition"},
		{"invalid label key", poolWith(func(p *spec.PoolPolicy) { p.Labels = map[string]string{"bad key": "x"} }), false, e, `labels["bad key"]`, "an optional DNS subdomain prefix"},
		{"invalid label value", poolWith(func(p *spec.PoolPolicy) { p.Labels = map[string]string{"team": "a b"} }), false, e, `labels["team"]`, "at most 63 letters"},
		{"reserved kubernetes.io", poolWith(func(p *spec.PoolPolicy) { p.Labels = map[string]string{"node-role.kubernetes.io/gpu": ""} }), false, e, `labels["node-role.kubernetes.io/gpu"]`, "NodeRestriction"},
		{"reserved on aks", poolWith(func(p *spec.PoolPolicy) {
			p.Cloud, p.Accelerator, p.Labels = "aks", "t4", map[string]string{"kubernetes.azure.com/team": "x"}
		}), false, e, `labels["kubernetes.azure.com/team"]`, "AKS reserves"},
		{"reserved on karpenter", poolWith(func(p *spec.PoolPolicy) {
			p.Cloud, p.Labels = "karpenter", map[string]string{"karpenter.sh/team": "x"}
		}), false, e, `labels["karpenter.sh/team"]`, "Karpenter reserves"},
		{"label derived by pool", poolWith(func(p *spec.PoolPolicy) {
			p.Cloud, p.Labels = "eks", map[string]string{"k8s.amazonaws.com/accelerator": "nvidia-l4"}
		}), false, e, `labels["k8s.amazonaws.com/accelerator"]`, "added by the pool"},
		{"label set by cloud", poolWith(func(p *spec.PoolPolicy) {
			p.Labels = map[string]string{"cloud.google.com/gke-accelerator": "nvidia-l4"}
		}), false, e, `labels["cloud.google.com/gke-accelerator"]`, "set on the nodes by gke"},
		{"invalid taint effect", poolWith(func(p *spec.PoolPolicy) { p.Taints = []spec.Taint{{Key: "a", Effect: "Never"}} }), false, e, "taints[0].effect", `"NoSchedule", "PreferNoSchedule", "NoExecute"`},
		{"missing taint effect", poolWith(func(p *spec.PoolPolicy) { p.Taints = []spec.Taint{{Key: "a"}} }), true, e, "taints[0].effect", "Allowed values"},
		{"invalid taint key", poolWith(func(p *spec.PoolPolicy) { p.Taints = []spec.Taint{{Key: "a b", Effect: "NoSchedule"}} }), false, e, "taints[0].key", "an optional DNS subdomain prefix"},
		{"invalid taint value", poolWith(func(p *spec.PoolPolicy) { p.Taints = []spec.Taint{{Key: "a", Value: "-x", Effect: "NoSchedule"}} }), false, e, "taints[0].value", `"-x"`},
		{"duplicate taint", poolWith(func(p *spec.PoolPolicy) {
			p.Taints = []spec.Taint{{Key: "a", Value: "1", Effect: "NoSchedule"}, {Key: "a", Value: "2", Effect: "NoSchedule"}}
		}), false, e, "taints[1]", "taints[0] already has key \"a\""},
		{"taint added by dedicated", poolWith(func(p *spec.PoolPolicy) {
			p.Cloud, p.Taints = "eks", []spec.Taint{{Key: "nvidia.com/gpu", Value: "yes", Effect: "NoSchedule"}}
		}), false, e, "taints[0]", "set dedicated = false"},
		{"gke rejects a second gpu taint", poolWith(func(p *spec.PoolPolicy) {
			p.Dedicated = rendertest.Ptr(false)
			p.Taints = []spec.Taint{{Key: "nvidia.com/gpu", Value: "present", Effect: "NoSchedule"}}
		}), false, e, "taints[0]", "GKE adds it to GPU node pools"},
		{"aks spot taint added by aks", poolWith(func(p *spec.PoolPolicy) {
			p.Cloud, p.Accelerator, p.Spot = "aks", "t4", true
			p.Taints = []spec.Taint{{Key: "kubernetes.azure.com/scalesetpriority", Value: "spot", Effect: "NoSchedule"}}
		}), false, e, "taints[0]", "AKS adds it to spot node pools"},
		{"spot on generic", poolWith(func(p *spec.PoolPolicy) { p.Cloud, p.Spot = "generic", true }), false, w, "spot", "changes nothing"},
		{"gke dedicated false", poolWith(func(p *spec.PoolPolicy) { p.Dedicated = rendertest.Ptr(false) }), false, w, "dedicated", "cannot remove it"},
	}
}

func a100Pool(edit func(p *spec.PoolPolicy)) spec.PoolPolicy {
	return poolWith(func(p *spec.PoolPolicy) {
		p.Accelerator, p.GPUsPerNode = "a100-40gb", 8
		edit(p)
	})
}

func TestValidatePoolRules(t *testing.T) {
	for _, c := range poolRuleCases() {
		t.Run(c.name, func(t *testing.T) {
			var diags gpudiag.Diagnostics
			if c.strict {
				_, diags = Render(c.pool)
			} else {
				diags = Validate(c.pool)
			}
			rendertest.RequireDiag(t, diags, c.severity, c.path, c.substring)
			for _, d := range diags {
				// The shared accelerator rule says "Accelerators offered on".
				if !strings.Contains(d.Detail, "Allowed") && !strings.Contains(d.Detail, "offered on") {
					t.Errorf("detail must say what is allowed: %s", d)
				}
			}
		})
	}
}

func TestValidatePoolSkipsUnknownValues(t *testing.T) {
	// At plan time zero values may be unknown: nothing is "missing".
	for _, p := range []spec.PoolPolicy{
		{},
		{Cloud: "aks"},
		{Accelerator: "a100-40gb", Partition: spec.PartitionAllBalanced},
		{Sharing: "time-slicing"},
		{Replicas: 4},
		{Taints: []spec.Taint{{}}},
		{Cloud: "generic", Accelerator: "a100-40gb", MIGStrategy: "mixed"},
	} {
		if diags := Validate(p); len(diags) > 0 {
			t.Errorf("%+v: want no diagnostics at plan time, got:\n%s", p, rendertest.FormatDiags(diags))
		}
	}
}

func TestValidatePoolAcceptsEveryOfferedModel(t *testing.T) {
	for _, cloud := range clouds.PoolNames() {
		for _, name := range clouds.Lookup(spec.Cloud(cloud)).Accelerators() {
			a, _ := catalog.LookupAccelerator(name)
			counts := clouds.GPUCounts(clouds.Lookup(spec.Cloud(cloud)).MachinesOf(&a))
			if len(counts) == 0 {
				counts = []int64{1}
			}
			for _, n := range counts {
				p := spec.PoolPolicy{Name: "p", Cloud: cloud, Accelerator: name, GPUsPerNode: n}
				if _, diags := Render(p); len(diags) > 0 {
					t.Errorf("%s %s x%d: %s", cloud, name, n, rendertest.FormatDiags(diags))
				}
			}
		}
	}
}

func TestPoolLabelPrefixesAllowed(t *testing.T) {
	p := poolWith(func(p *spec.PoolPolicy) {
		p.Labels = map[string]string{"node.kubernetes.io/exclude-from-external-load-balancers": "true", "example.com/team": "ml", "tier": ""}
		p.Taints = []spec.Taint{{Key: "a", Value: "1", Effect: "NoSchedule"}, {Key: "a", Value: "1", Effect: "NoExecute"}}
	})
	if diags := Validate(p); len(diags) > 0 {
		t.Fatalf("want none, got:\n%s", rendertest.FormatDiags(diags))
	}
}

// On clouds that refuse all-balanced outright, advising the mixed strategy
// would only lead to the next error: the layout error stands alone.
func TestPoolAllBalancedOnGKEIsOneError(t *testing.T) {
	for _, strategy := range []string{"", spec.MIGStrategySingle} {
		_, diags := Render(a100Pool(func(p *spec.PoolPolicy) { p.Partition, p.MIGStrategy = spec.PartitionAllBalanced, strategy }))
		if len(diags) != 1 || diags[0].Summary != "MIG partition not offered by GKE" {
			t.Errorf("mig_strategy %q: want only the GKE partition error, got:\n%s", strategy, rendertest.FormatDiags(diags))
		}
	}
}
