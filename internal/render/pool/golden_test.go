package pool

import (
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
)

// poolGoldenCase is one reviewed pool rendering:
// testdata/pool/<cloud>/<name>.yaml holds the policy and everything
// Render derives from it. Regenerate with -update (the flag of
// rendertest, whose Golden compares and writes).
type poolGoldenCase struct {
	name, description string
	pool              spec.PoolPolicy
	expectWarnings    bool
}

func poolGoldenCases() []poolGoldenCase {
	team := map[string]string{"example.com/team": "ml"}
	teamTaint := []spec.Taint{{Key: "example.com/team", Value: "ml", Effect: spec.TaintNoSchedule}}
	return append([]poolGoldenCase{
		{"l4-whole", "One L4 per g2-standard-4: GKE sets every label; nvidia.com/gpu taint is GKE's own, not in the shape.",
			spec.PoolPolicy{Name: "l4-serving", Cloud: "gke", Accelerator: "l4", GPUsPerNode: 1}, false},
		{"a100-mig-2g10gb", "a2-highgpu-8g cut into 2g.10gb natively (gpu_partition_size): 24 nvidia.com/gpu, no GPU Operator labels.",
			spec.PoolPolicy{Name: "a100-mig", Cloud: "gke", Accelerator: "a100-40gb", GPUsPerNode: 8, Partition: "2g.10gb"}, false},
		{"l4-time-sharing", "GKE time-sharing, 4 clients per GPU: selectors on sharing strategy and client count, no device plugin config.",
			spec.PoolPolicy{Name: "l4-shared", Cloud: "gke", Accelerator: "l4", GPUsPerNode: 1, Sharing: spec.SharingTimeSlicing, Replicas: 4}, false},
		{"h100-spot-labels-taints", "Spot A3 High with a team label and taint: selector and toleration for both, taint in the GKE enum form.",
			spec.PoolPolicy{Name: "h100-spot", Cloud: "gke", Accelerator: "h100-80gb", GPUsPerNode: 8, Spot: true, Labels: team, Taints: teamTaint}, false},

		{"t4-spot", "NC64as_T4_v3 spot pool: sku=gpu taint plus the spot label and taint azurerm wants listed.",
			spec.PoolPolicy{Name: "t4spot", Cloud: "aks", Accelerator: "t4", GPUsPerNode: 4, Spot: true}, false},
		{"a100-80gb-mig-mixed", "NC24ads_A100_v4 cut into 3g.40gb by the GPU Operator: mig.config label + device plugin config (mixed).",
			spec.PoolPolicy{Name: "a100mig", Cloud: "aks", Accelerator: "a100-80gb", GPUsPerNode: 1, Partition: "all-3g.40gb", MIGStrategy: spec.MIGStrategyMixed}, false},
		{"v100-time-slicing", "NC24s_v3 time-sliced 4 ways: nvidia.com/gpu.shared via renameByDefault.",
			spec.PoolPolicy{Name: "v100ts", Cloud: "aks", Accelerator: "v100-16gb", GPUsPerNode: 4, Sharing: spec.SharingTimeSlicing, Replicas: 4}, false},

		{"a10g-4gpu", "g5.12xlarge/g5.24xlarge node group: the provider adds k8s.amazonaws.com/accelerator, nobody else does.",
			spec.PoolPolicy{Name: "a10g", Cloud: "eks", Accelerator: "a10g", GPUsPerNode: 4}, false},
		{"v100-16gb-8gpu", "V100 16GB shares nvidia-tesla-v100 with the 32GB part: the instance type (p3.16xlarge) tells them apart.",
			spec.PoolPolicy{Name: "v100", Cloud: "eks", Accelerator: "v100-16gb", GPUsPerNode: 8}, false},
		{"a100-mig-single-spot", "p4d spot cut into 1g.5gb (single strategy): GFD's MIG product name selects the nodes.",
			spec.PoolPolicy{Name: "p4d-mig", Cloud: "eks", Accelerator: "a100-40gb", GPUsPerNode: 8, Partition: "1g.5gb", Spot: true}, false},
		{"l4-mps-not-dedicated", "g6 MPS with 8 clients, dedicated = false: no GPU taint, device plugin config with sharing.mps.",
			spec.PoolPolicy{Name: "l4-mps", Cloud: "eks", Accelerator: "l4", GPUsPerNode: 1, Sharing: spec.SharingMPS, Replicas: 8, Dedicated: rendertest.Ptr(false)}, false},

		{"l40s-4gpu", "EKS Auto Mode NodePool: eks.amazonaws.com/instance-gpu-* requirements, NodeClass default.",
			spec.PoolPolicy{Name: "l40s", Cloud: "eks-auto", Accelerator: "l40s", GPUsPerNode: 4}, false},
		{"h200-spot", "EKS Auto Mode spot p5e/p5en NodePool.",
			spec.PoolPolicy{Name: "h200-spot", Cloud: "eks-auto", Accelerator: "h200", GPUsPerNode: 8, Spot: true}, false},

		{"l4-time-slicing", "Karpenter g6.12xlarge NodePool time-sliced 2 ways, with a team label in the template.",
			spec.PoolPolicy{Name: "l4-ts", Cloud: "karpenter", Accelerator: "l4", GPUsPerNode: 4, Sharing: spec.SharingTimeSlicing, Replicas: 2, Labels: team}, false},
		{"a100-mig-single-spot", "Karpenter p4d: a100 needs the instance-gpu-memory requirement; the MIG product requirement is labelled at launch.",
			spec.PoolPolicy{Name: "a100-mig", Cloud: "karpenter", Accelerator: "a100-40gb", GPUsPerNode: 8, Partition: "2g.10gb", Spot: true}, false},

		{"h100-whole", "DGX H100 on a GPU Operator cluster: mig.config all-disabled keeps the GPUs whole.",
			spec.PoolPolicy{Name: "dgx-h100", Cloud: "generic", Accelerator: "h100-80gb", GPUsPerNode: 8}, false},
		{"a100-balanced", "DGX A100 with all-balanced (mixed): three resources per node, no single resource_name.",
			spec.PoolPolicy{Name: "dgx-a100", Cloud: "generic", Accelerator: "a100-40gb", GPUsPerNode: 8, Partition: spec.PartitionAllBalanced, MIGStrategy: spec.MIGStrategyMixed}, false},
		{"a100-balanced-time-sliced", "Time-sliced mixed MIG: allowed for hand-written pods (mig resources .shared), warned: gpu_workload cannot use it.",
			spec.PoolPolicy{Name: "dgx-a100-ts", Cloud: "generic", Accelerator: "a100-40gb", GPUsPerNode: 8, Partition: spec.PartitionAllBalanced,
				MIGStrategy: spec.MIGStrategyMixed, Sharing: spec.SharingTimeSlicing, Replicas: 2}, true},
		{"t4-time-slicing", "Like the local fixture generic-t4-timeslice: gpu.shared x4, GFD sharing labels selected.",
			spec.PoolPolicy{Name: "t4-shared", Cloud: "generic", Accelerator: "t4", GPUsPerNode: 1, Sharing: spec.SharingTimeSlicing, Replicas: 4}, false},
	}, draPoolGoldenCases()...)
}

func poolGoldenPath(c poolGoldenCase) string {
	return filepath.Join("testdata", "pool", c.pool.Cloud, c.name+".yaml")
}

// poolGoldenText: a header for the reviewer, then the policy and the full
// rendering as YAML.
func poolGoldenText(t *testing.T, c poolGoldenCase) string {
	t.Helper()
	r, diags := Render(c.pool)
	rendertest.RequireNoErrors(t, diags)
	if len(diags) > 0 != c.expectWarnings {
		t.Fatalf("warnings: want %v, got:\n%s", c.expectWarnings, rendertest.FormatDiags(diags))
	}
	doc, err := yaml.Marshal(struct {
		Policy   spec.PoolPolicy    `json:"policy"`
		Rendered *spec.PoolRendered `json:"rendered"`
	}{c.pool, r})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("# Code generated by `go test ./internal/render/pool -run TestPoolGolden -update`. DO NOT EDIT.\n")
	b.WriteString("# " + c.description + "\n")
	for _, d := range diags {
		b.WriteString("# " + d.Severity.String() + " at " + d.PathString() + ": " + d.Summary + "\n")
	}
	b.Write(doc)
	return b.String()
}

func TestPoolGolden(t *testing.T) {
	var cases []rendertest.GoldenCase
	for _, c := range poolGoldenCases() {
		cases = append(cases, rendertest.GoldenCase{Name: c.pool.Cloud + "/" + c.name, Path: poolGoldenPath(c),
			Text: func(t *testing.T) string { return poolGoldenText(t, c) }})
	}
	rendertest.GoldenSuite(t, filepath.Join("testdata", "pool", "*", "*.yaml"), cases)
}

func TestRenderPoolIsDeterministic(t *testing.T) {
	for _, c := range poolGoldenCases() {
		first, _ := Render(c.pool)
		for range 5 {
			again, _ := Render(c.pool)
			a, _ := yaml.Marshal(first)
			b, _ := yaml.Marshal(again)
			if string(a) != string(b) {
				t.Fatalf("%s renders differently on repeat", c.name)
			}
		}
	}
}
