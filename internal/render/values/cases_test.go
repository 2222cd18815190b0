package values

import (
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/chartkit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/fiftyone"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/flyte"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/numaflow"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/nvidia"
)

// valuesCase is one reviewed values generation: the golden file
// testdata/values/<target>/<name>.yaml. name is the cloud for the
// target × cloud grid, or "<cloud>-<variant>" for extra cases.
type valuesCase struct {
	target, name, description string
	input                     Input
	// wantError marks cases whose point is an error (the golden file then
	// holds the diagnostics only).
	wantError bool
}

func (c valuesCase) path() string {
	return filepath.Join("testdata", "values", c.target, c.name+".yaml")
}

// valuesAccel is the accelerator each cloud's cases use: one the cloud
// offers and that FiftyOne's GPU guide or the catalog pairs with it.
var valuesAccel = map[spec.Cloud]string{
	spec.CloudGKE: "l4", spec.CloudGKEAutopilot: "t4", spec.CloudAKS: "t4", spec.CloudEKS: "a10g",
	spec.CloudEKSAuto: "l40s", spec.CloudKarpenter: "a10g", spec.CloudGeneric: "a100-40gb",
}

// valuesMIGAccel is a MIG-capable accelerator per cloud that has node pools.
var valuesMIGAccel = map[spec.Cloud]string{
	spec.CloudGKE: "a100-40gb", spec.CloudAKS: "a100-80gb", spec.CloudEKS: "a100-40gb", spec.CloudKarpenter: "a100-40gb", spec.CloudGeneric: "a100-40gb",
}

func valuesCases() []valuesCase {
	var cases []valuesCase
	for _, target := range TargetNames() {
		for _, name := range clouds.Names() {
			cases = append(cases, gridCase(target, spec.Cloud(name)))
		}
	}
	cases = append(cases, extraValuesCases()...)
	return append(cases, draPoolValuesCases()...)
}

func gridCase(target string, cloud spec.Cloud) valuesCase {
	c := valuesCase{target: target, name: string(cloud), input: Input{Cloud: string(cloud), Blocks: map[string]any{}}}
	g := gridCases[target]
	c.description = g.description
	g.fill(&c, cloud)
	return c
}

// gridSpec is what one target's target × cloud grid cases configure.
type gridSpec struct {
	description string
	fill        func(c *valuesCase, cloud spec.Cloud)
}

// gridCases holds the gridSpec of every target.
var gridCases = map[string]gridSpec{
	TargetFiftyOne: {
		"A GPU delegated-operator deployment, the CPU default runner and a GPU job template, placed as gpu_workload would be.",
		func(c *valuesCase, cloud spec.Cloud) { c.input.Blocks[fiftyone.Block] = fiftyOneCase(cloud) },
	},
	TargetFlyteCore:   flyteGridCase,
	TargetFlyteBinary: flyteGridCase,
	TargetGPUOperator: {
		"GPU Operator for the cloud's node pools: per-pool device plugin configs, operand tolerations, driver/toolkit switches.",
		func(c *valuesCase, cloud spec.Cloud) {
			c.input.Blocks[nvidia.BlockGPUOperator] = &nvidia.GPUOperatorValues{NodePools: nvidiaPoolsCase(cloud)}
			c.wantError = cloud == spec.CloudGKEAutopilot
		},
	},
	TargetNvidiaDevicePlugin: {
		"Standalone device plugin: config.map per pool, node selection without NFD, tolerations of the pools' taints.",
		func(c *valuesCase, cloud spec.Cloud) {
			c.input.Blocks[nvidia.BlockDevicePlugin] = &nvidia.DevicePluginValues{NodePools: nvidiaPoolsCase(cloud)}
			c.wantError = cloud == spec.CloudGKEAutopilot
		},
	},
	TargetNumaflow: {
		"Minimal Pipeline (generator → GPU UDF → log) with the UDF placed as gpu_workload would be.",
		func(c *valuesCase, cloud spec.Cloud) {
			c.input.Blocks[numaflow.Block] = &numaflow.Values{
				Name: "embeddings", Namespace: "pipelines", Image: "registry.example/ml/embed-udf:1.0", Manifest: true,
				GPU: spec.GPU{Count: 1, Accelerator: valuesAccel[cloud]}, CPU: "2", Memory: "8Gi",
			}
		},
	},
}

// flyteGridCase serves flyte-core and flyte-binary, which share the block.
var flyteGridCase = gridSpec{
	"propeller's k8s plugin: GPU resource, resource-tolerations, device and partition labels, spot for interruptible tasks.",
	func(c *valuesCase, cloud spec.Cloud) {
		c.input.Blocks[flyte.Block] = &flyte.Values{Accelerators: []string{valuesAccel[cloud]}, Interruptible: cloud != spec.CloudGeneric}
	},
}

func fiftyOneCase(cloud spec.Cloud) *fiftyone.Values {
	accel := valuesAccel[cloud]
	return &fiftyone.Values{
		Deployments: []fiftyone.FiftyOneDeployment{
			{
				Runner: fiftyone.Runner{
					Key: "gpuWorker", Image: &fiftyone.FiftyOneImage{Tag: "v2.22.1"},
					Env: map[string]string{"FIFTYONE_MEDIA_CACHE_DIR": "/opt/media_cache"},
					GPU: &spec.GPU{Count: 1, Accelerator: accel}, CPU: "8", Memory: "32Gi",
				},
				Replicas: rendertest.Ptr(int32(2)), Description: "GPU runner for model inference",
			},
			{Runner: fiftyone.Runner{Key: fiftyone.CPUDefaultKey, Enabled: rendertest.Ptr(true), CPU: "4", Memory: "16Gi"}},
		},
		JobTemplates: []fiftyone.JobTemplate{{
			Runner: fiftyone.Runner{
				Key: "gpuBatch", Enabled: rendertest.Ptr(true), GPU: &spec.GPU{Count: 1, Accelerator: accel},
				Spot: cloud != spec.CloudGeneric, Memory: "24Gi",
			},
			BackoffLimit: rendertest.Ptr(int32(2)), TTLSecondsAfterFinished: rendertest.Ptr(int32(3600)),
		}},
	}
}

// nvidiaPoolsCase: a time-sliced pool and a MIG pool where the cloud lets
// the GPU Operator configure them, a plain pool elsewhere.
func nvidiaPoolsCase(cloud spec.Cloud) []spec.PoolPolicy {
	switch cloud {
	case spec.CloudGKEAutopilot:
		return nil
	case spec.CloudEKSAuto:
		return []spec.PoolPolicy{{Name: "l40s", Cloud: string(cloud), Accelerator: "l40s", GPUsPerNode: 1}}
	}
	shared := spec.PoolPolicy{Name: "shared", Cloud: string(cloud), Accelerator: valuesAccel[cloud], GPUsPerNode: 1,
		Sharing: spec.SharingTimeSlicing, Replicas: 4}
	if cloud == spec.CloudGeneric {
		shared.Accelerator = "t4"
	}
	mig := spec.PoolPolicy{Name: "mig", Cloud: string(cloud), Accelerator: valuesMIGAccel[cloud], GPUsPerNode: 8, Partition: "all-balanced",
		MIGStrategy: spec.MIGStrategyMixed, Taints: []spec.Taint{{Key: "example.com/mig", Value: "true", Effect: spec.TaintNoSchedule}}}
	switch cloud {
	case spec.CloudGKE:
		mig.Partition, mig.MIGStrategy = "2g.10gb", ""
	case spec.CloudAKS:
		mig.GPUsPerNode = 1
		mig.Spot = true
	}
	return []spec.PoolPolicy{shared, mig}
}

func extraValuesCases() []valuesCase {
	v2 := func(cloud spec.Cloud) valuesCase {
		return valuesCase{
			target: TargetFlyteBinary, name: string(cloud) + "-v2",
			description: "Flyte v2: accelerator-devices map the v2 names to this cloud's label values; NVIDIA_GPU device class.",
			input: Input{Cloud: string(cloud), Blocks: map[string]any{flyte.Block: &flyte.Values{
				FlyteVersion: 2, Accelerators: []string{valuesAccel[cloud], "h100-80gb"}, Interruptible: true,
			}}},
		}
	}
	return []valuesCase{
		v2(spec.CloudGKE), v2(spec.CloudEKSAuto),
		{
			target: TargetFlyteCore, name: "aks-shared-defaults",
			description: "Shared GPUs on AKS: nvidia.com/gpu.shared, plus user default tolerations, node selector and env in list-of-maps form.",
			input: Input{Cloud: string(spec.CloudAKS), Blocks: map[string]any{flyte.Block: &flyte.Values{
				Sharing: spec.SharingTimeSlicing, DefaultNodeSelector: map[string]string{"kubernetes.azure.com/mode": "user"},
				DefaultTolerations: []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "flyte", Effect: corev1.TaintEffectNoSchedule}},
				DefaultEnvVars:     map[string]string{"HF_HOME": "/cache/hf"},
			}}},
		},
		{
			target: TargetFlyteCore, name: "generic-node-pools",
			description: "Node pools: each pool's resource names (shared, MIG) get its tolerations, extra taints included.",
			input: Input{Cloud: string(spec.CloudGeneric), Blocks: map[string]any{flyte.Block: &flyte.Values{
				Accelerators: []string{"t4", "a100-40gb"}, NodePools: nvidiaPoolsCase(spec.CloudGeneric),
			}}},
		},
		{
			target: TargetFiftyOne, name: "gke-autopilot-count",
			description: "FiftyOne GPU guide, GKE Autopilot: gke-accelerator and gke-accelerator-count selectors, LD_LIBRARY_PATH.",
			input: Input{Cloud: string(spec.CloudGKEAutopilot), Blocks: map[string]any{fiftyone.Block: &fiftyone.Values{JobTemplates: []fiftyone.JobTemplate{
				{Runner: fiftyone.Runner{Key: "gpuGcpGkeAutopilot", Enabled: rendertest.Ptr(true), GPU: &spec.GPU{Count: 2, Accelerator: "l4"}}},
			}}}},
		},
		{
			target: TargetFiftyOne, name: "karpenter-node-pool",
			description: "A deployment placed on a node pool: shared L4 slots, the pool's extra label and taint.",
			input: Input{Cloud: string(spec.CloudKarpenter), Blocks: map[string]any{fiftyone.Block: &fiftyone.Values{Deployments: []fiftyone.FiftyOneDeployment{{
				Runner: fiftyone.Runner{
					Key: "gpuShared", GPU: &spec.GPU{Count: 1},
					NodePool: &spec.PoolPolicy{Name: "l4-shared", Cloud: string(spec.CloudKarpenter), Accelerator: "l4", GPUsPerNode: 1,
						Sharing: spec.SharingTimeSlicing, Replicas: 4, Labels: map[string]string{"example.com/team": "vision"},
						Taints: []spec.Taint{{Key: "example.com/team", Value: "vision", Effect: spec.TaintNoSchedule}}},
				},
			}}}}},
		},
		{
			target: TargetGPUOperator, name: "generic-custom-mig",
			description: "A custom mig-parted layout next to a pool's all-balanced: the custom config carries both and all-disabled.",
			input: Input{Cloud: string(spec.CloudGeneric), Blocks: map[string]any{nvidia.BlockGPUOperator: &nvidia.GPUOperatorValues{
				NodePools: nvidiaPoolsCase(spec.CloudGeneric), MIGStrategy: spec.MIGStrategyMixed, ConfigMapName: "device-plugin",
				MIGLayouts:   []nvidia.MIGLayout{{Name: "two-3g", Accelerator: "a100-40gb", Devices: map[string]int64{"3g.20gb": 2}}},
				DCGMExporter: rendertest.Ptr(true), ServiceMonitor: rendertest.Ptr(false),
			}}},
		},
		{
			target: TargetNumaflow, name: "generic-dra-monovertex",
			description: "MonoVertex with a DRA claim: a v1 List holding the ResourceClaimTemplate (resource.k8s.io/v1) and the MonoVertex.",
			input: Input{Cloud: string(spec.CloudGeneric), Blocks: map[string]any{numaflow.Block: &numaflow.Values{
				Kind: numaflow.KindMonoVertex, Name: "rerank", Image: "registry.example/ml/rerank:2.0", Manifest: true,
				GPU: spec.GPU{Count: 1, DRA: &spec.DRA{}},
			}}},
		},
		{
			target: TargetNumaflow, name: "gke-fragment",
			description: "The vertex fragment only (manifest = false): placement, annotations and the UDF container's GPU request.",
			input: Input{Cloud: string(spec.CloudGKE), Blocks: map[string]any{numaflow.Block: &numaflow.Values{
				GPU: spec.GPU{Count: 1, Accelerator: "a100-40gb", Partition: "1g.5gb"}, Spot: true,
				Annotations: map[string]string{"cluster-autoscaler.kubernetes.io/safe-to-evict": "false"},
			}}},
		},
	}
}

// valuesGoldenText is the golden file: a header with the case and its
// diagnostics, then the canonical values (none on error).
func valuesGoldenText(t *testing.T, c valuesCase) string {
	t.Helper()
	values, diags := Generate(c.target, c.input)
	if diags.HasError() != c.wantError {
		t.Fatalf("%s: want error %v, got:\n%s", c.path(), c.wantError, rendertest.FormatDiags(diags))
	}
	var b strings.Builder
	b.WriteString("# Code generated by `go test ./internal/render/values -run TestValuesGolden -update`. DO NOT EDIT.\n")
	b.WriteString("# " + c.target + " on " + c.input.Cloud + ": " + c.description + "\n")
	for _, d := range diags {
		b.WriteString("# " + d.Severity.String() + " at " + d.PathString() + ": " + d.Summary + "\n")
	}
	if c.wantError {
		return b.String()
	}
	text, err := chartkit.CanonicalYAML(values)
	if err != nil {
		t.Fatal(err)
	}
	b.WriteString(text)
	return b.String()
}
