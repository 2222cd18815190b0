package values

import (
	"fmt"
	"strings"
	"testing"

	utilversion "k8s.io/apimachinery/pkg/util/version"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/kubever"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/fiftyone"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/flyte"
)

// Charts whose GPU pods carry no resourceClaims (FiftyOne, Flyte) on a DRA
// pool: they ask the extended resource the pool's DeviceClass answers to,
// which Kubernetes maps to a claim from 1.36 (DRAExtendedResource on by
// default); before, a plan error names the version and the gate
// (docs/design/dra-versions.md#3-charts-and-hand-written-pods-on-dra-pools).

func draValuesPool(minor string, source kubever.Source, partition string) *spec.PoolPolicy {
	p := &spec.PoolPolicy{Name: "dra-h100", Cloud: string(spec.CloudGeneric), Accelerator: "h100-80gb", GPUsPerNode: 8,
		GPUAllocation: spec.GPUAllocationDRA, Partition: partition}
	if minor != "" {
		p.Kubernetes = kubever.Version{V: utilversion.MustParseGeneric(minor), Source: source}
	}
	return p
}

func fiftyOneOnPool(p *spec.PoolPolicy, count int64) Input {
	return fiftyOneInput(spec.CloudGeneric, fiftyone.FiftyOneDeployment{Runner: fiftyone.Runner{Key: "gpuDra", GPU: &spec.GPU{Count: count}, NodePool: p}})
}

func flyteOnPool(p *spec.PoolPolicy) Input {
	return Input{Cloud: string(spec.CloudGeneric), Blocks: map[string]any{flyte.Block: &flyte.Values{NodePools: []spec.PoolPolicy{*p}}}}
}

func draPoolValuesCases() []valuesCase {
	return []valuesCase{
		{target: TargetFiftyOne, name: "generic-dra-pool-k8s-1.36",
			description: "A deployment on a DRA pool, Kubernetes 1.36: nvidia.com/gpu (the pool's class's extendedResourceName), the pool's placement, no claim.",
			input:       fiftyOneOnPool(draValuesPool("1.36", kubever.FromCluster, ""), 2)},
		{target: TargetFiftyOne, name: "generic-dra-pool-k8s-1.35",
			description: "The same on Kubernetes 1.35: DRAExtendedResource is alpha and off, so the plan fails naming the version and the gate.",
			input:       fiftyOneOnPool(draValuesPool("1.35", kubever.FromSetting, ""), 2), wantError: true},
		{target: TargetFlyteCore, name: "generic-dra-pool-k8s-1.37",
			description: "Flyte tasks on a DRA pool, Kubernetes 1.37: nvidia.com/gpu tolerates the pool's taints.",
			input:       flyteOnPool(draValuesPool("1.37", kubever.FromCluster, ""))},
	}
}

func TestChartsOnDRAPoolByVersion(t *testing.T) {
	for _, c := range []struct {
		minor  string
		source kubever.Source
		ok     bool
		says   []string
	}{
		{"", kubever.Assumed, false, []string{"1.34 is assumed", "DRAExtendedResource", "alpha, off by default", "from Kubernetes 1.36", "kubernetes_version"}},
		{"1.34", kubever.FromCluster, false, []string{"the cluster runs Kubernetes 1.34", "DRAExtendedResource", "KEP-5004", "alpha, off by default"}},
		{"1.35", kubever.FromSetting, false, []string{"kubernetes_version is 1.35", "DRAExtendedResource", "Allowed:"}},
		{"1.36", kubever.FromCluster, true, nil},
		{"1.37", kubever.FromCluster, true, nil},
	} {
		t.Run("k8s "+c.minor, func(t *testing.T) {
			values, diags := Generate(TargetFiftyOne, fiftyOneOnPool(draValuesPool(c.minor, c.source, ""), 2))
			if !c.ok {
				_, flyteDiags := Generate(TargetFlyteCore, flyteOnPool(draValuesPool(c.minor, c.source, "")))
				for _, says := range c.says {
					rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "fiftyone.deployment[0].node_pool", says)
					rendertest.RequireDiag(t, flyteDiags, gpudiag.SeverityError, "flyte.node_pools[0]", says)
				}
				if values != nil {
					t.Errorf("values despite the error: %v", values)
				}
				return
			}
			rendertest.RequireNoErrors(t, diags)
			deployment := fmt.Sprint(valueAt(t, values, "delegatedOperatorDeployments", "deployments", "gpuDra"))
			for _, want := range []string{"nvidia.com/gpu:2", "NVIDIA-H100-80GB-HBM3", "nvidia.com/gpu.deploy.device-plugin:false"} {
				if !strings.Contains(deployment, want) {
					t.Errorf("deployment lacks %q: %s", want, deployment)
				}
			}
			if strings.Contains(deployment, "resourceClaims") {
				t.Errorf("deployment has claims: %s", deployment)
			}
			// The pool's own taint reaches the tolerations of tasks asking
			// nvidia.com/gpu: the pool counts as serving that resource.
			tainted := draValuesPool(c.minor, c.source, "")
			tainted.Taints = []spec.Taint{{Key: "example.com/team", Value: "vision", Effect: spec.TaintNoSchedule}}
			flyteValues, flyteDiags := Generate(TargetFlyteCore, flyteOnPool(tainted))
			rendertest.RequireNoErrors(t, flyteDiags)
			if got := fmt.Sprint(flyteValues); !strings.Contains(got, "gpu-resource-name:nvidia.com/gpu") ||
				!strings.Contains(got, "key:example.com/team operator:Equal value:vision") {
				t.Errorf("flyte values: %s", got)
			}
		})
	}
	// A MIG pool's class answers to the device plugin's mixed name.
	values, diags := Generate(TargetFiftyOne, fiftyOneOnPool(draValuesPool("1.36", kubever.FromCluster, "3g.40gb"), 1))
	rendertest.RequireNoErrors(t, diags)
	if got := fmt.Sprint(valueAt(t, values, "delegatedOperatorDeployments", "deployments", "gpuDra", "resources")); !strings.Contains(got, "nvidia.com/mig-3g.40gb:1") {
		t.Errorf("MIG DRA pool resources: %s", got)
	}
}
