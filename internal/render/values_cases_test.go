package render

import (
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// valuesCase is one reviewed values generation: the golden file
// testdata/values/<target>/<name>.yaml. name is the cloud for the
// target × cloud grid, or "<cloud>-<variant>" for extra cases.
type valuesCase struct {
	target, name, description string
	input                     ValuesInput
	// wantError marks cases whose point is an error (the golden file then
	// holds the diagnostics only).
	wantError bool
}

func (c valuesCase) path() string {
	return filepath.Join("testdata", "values", c.target, c.name+".yaml")
}

// valuesAccel is the accelerator each cloud's cases use: one the cloud
// offers and that FiftyOne's GPU guide or the catalog pairs with it.
var valuesAccel = map[Cloud]string{
	CloudGKE: "l4", CloudGKEAutopilot: "t4", CloudAKS: "t4", CloudEKS: "a10g",
	CloudEKSAuto: "l40s", CloudKarpenter: "a10g", CloudGeneric: "a100-40gb",
}

// valuesMIGAccel is a MIG-capable accelerator per cloud that has node pools.
var valuesMIGAccel = map[Cloud]string{
	CloudGKE: "a100-40gb", CloudAKS: "a100-80gb", CloudEKS: "a100-40gb", CloudKarpenter: "a100-40gb", CloudGeneric: "a100-40gb",
}

func valuesCases() []valuesCase {
	var cases []valuesCase
	for _, target := range ValuesTargetNames() {
		for _, name := range CloudNames() {
			cases = append(cases, gridCase(target, Cloud(name)))
		}
	}
	return append(cases, extraValuesCases()...)
}

func gridCase(target string, cloud Cloud) valuesCase {
	c := valuesCase{target: target, name: string(cloud), input: ValuesInput{Cloud: string(cloud)}}
	switch target {
	case TargetFiftyOne:
		c.description = "A GPU delegated-operator deployment, the CPU default runner and a GPU job template, placed as gpu_workload would be."
		c.input.FiftyOne = fiftyOneCase(cloud)
	case TargetFlyteCore, TargetFlyteBinary:
		c.description = "propeller's k8s plugin: GPU resource, resource-tolerations, device and partition labels, spot for interruptible tasks."
		c.input.Flyte = &FlyteValues{Accelerators: []string{valuesAccel[cloud]}, Interruptible: cloud != CloudGeneric}
	case TargetGPUOperator:
		c.description = "GPU Operator for the cloud's node pools: per-pool device plugin configs, operand tolerations, driver/toolkit switches."
		c.input.GPUOperator = &GPUOperatorValues{NodePools: nvidiaPoolsCase(cloud)}
		c.wantError = cloud == CloudGKEAutopilot
	case TargetNvidiaDevicePlugin:
		c.description = "Standalone device plugin: config.map per pool, node selection without NFD, tolerations of the pools' taints."
		c.input.NvidiaDevicePlugin = &DevicePluginValues{NodePools: nvidiaPoolsCase(cloud)}
		c.wantError = cloud == CloudGKEAutopilot
	case TargetNumaflow:
		c.description = "Minimal Pipeline (generator → GPU UDF → log) with the UDF placed as gpu_workload would be."
		c.input.Numaflow = &NumaflowValues{
			Name: "embeddings", Namespace: "pipelines", Image: "registry.example/ml/embed-udf:1.0", Manifest: true,
			GPU: GPU{Count: 1, Accelerator: valuesAccel[cloud]}, CPU: "2", Memory: "8Gi",
		}
	}
	return c
}

func fiftyOneCase(cloud Cloud) *FiftyOneValues {
	accel := valuesAccel[cloud]
	return &FiftyOneValues{
		Deployments: []FiftyOneDeployment{
			{
				Key: "gpuWorker", Replicas: ptr(int32(2)), Description: "GPU runner for model inference",
				Image: &FiftyOneImage{Tag: "v2.22.1"}, Env: map[string]string{"FIFTYONE_MEDIA_CACHE_DIR": "/opt/media_cache"},
				GPU: &GPU{Count: 1, Accelerator: accel}, CPU: "8", Memory: "32Gi",
			},
			{Key: fiftyOneCPUDefaultKey, Enabled: ptr(true), CPU: "4", Memory: "16Gi"},
		},
		JobTemplates: []FiftyOneJobTemplate{{
			Key: "gpuBatch", Enabled: ptr(true), GPU: &GPU{Count: 1, Accelerator: accel}, Spot: cloud != CloudGeneric,
			Memory: "24Gi", BackoffLimit: ptr(int32(2)), TTLSecondsAfterFinished: ptr(int32(3600)),
		}},
	}
}

// nvidiaPoolsCase: a time-sliced pool and a MIG pool where the cloud lets
// the GPU Operator configure them, a plain pool elsewhere.
func nvidiaPoolsCase(cloud Cloud) []PoolPolicy {
	switch cloud {
	case CloudGKEAutopilot:
		return nil
	case CloudEKSAuto:
		return []PoolPolicy{{Name: "l40s", Cloud: string(cloud), Accelerator: "l40s", GPUsPerNode: 1}}
	}
	shared := PoolPolicy{Name: "shared", Cloud: string(cloud), Accelerator: valuesAccel[cloud], GPUsPerNode: 1,
		Sharing: SharingTimeSlicing, Replicas: 4}
	if cloud == CloudGeneric {
		shared.Accelerator = "t4"
	}
	mig := PoolPolicy{Name: "mig", Cloud: string(cloud), Accelerator: valuesMIGAccel[cloud], GPUsPerNode: 8, Partition: "all-balanced",
		MIGStrategy: MIGStrategyMixed, Taints: []Taint{{Key: "example.com/mig", Value: "true", Effect: TaintNoSchedule}}}
	switch cloud {
	case CloudGKE:
		mig.Partition, mig.MIGStrategy = "2g.10gb", ""
	case CloudAKS:
		mig.GPUsPerNode = 1
		mig.Spot = true
	}
	return []PoolPolicy{shared, mig}
}

func extraValuesCases() []valuesCase {
	v2 := func(cloud Cloud) valuesCase {
		return valuesCase{
			target: TargetFlyteBinary, name: string(cloud) + "-v2",
			description: "Flyte v2: accelerator-devices map the v2 names to this cloud's label values; NVIDIA_GPU device class.",
			input: ValuesInput{Cloud: string(cloud), Flyte: &FlyteValues{
				FlyteVersion: 2, Accelerators: []string{valuesAccel[cloud], "h100-80gb"}, Interruptible: true,
			}},
		}
	}
	return []valuesCase{
		v2(CloudGKE), v2(CloudEKSAuto),
		{
			target: TargetFlyteCore, name: "aks-shared-defaults",
			description: "Shared GPUs on AKS: nvidia.com/gpu.shared, plus user default tolerations, node selector and env in list-of-maps form.",
			input: ValuesInput{Cloud: string(CloudAKS), Flyte: &FlyteValues{
				Sharing: SharingTimeSlicing, DefaultNodeSelector: map[string]string{"kubernetes.azure.com/mode": "user"},
				DefaultTolerations: []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "flyte", Effect: corev1.TaintEffectNoSchedule}},
				DefaultEnvVars:     map[string]string{"HF_HOME": "/cache/hf"},
			}},
		},
		{
			target: TargetFlyteCore, name: "generic-node-pools",
			description: "Node pools: each pool's resource names (shared, MIG) get its tolerations, extra taints included.",
			input: ValuesInput{Cloud: string(CloudGeneric), Flyte: &FlyteValues{
				Accelerators: []string{"t4", "a100-40gb"}, NodePools: nvidiaPoolsCase(CloudGeneric),
			}},
		},
		{
			target: TargetFiftyOne, name: "gke-autopilot-count",
			description: "FiftyOne GPU guide, GKE Autopilot: gke-accelerator and gke-accelerator-count selectors, LD_LIBRARY_PATH.",
			input: ValuesInput{Cloud: string(CloudGKEAutopilot), FiftyOne: &FiftyOneValues{JobTemplates: []FiftyOneJobTemplate{
				{Key: "gpuGcpGkeAutopilot", Enabled: ptr(true), GPU: &GPU{Count: 2, Accelerator: "l4"}},
			}}},
		},
		{
			target: TargetFiftyOne, name: "karpenter-node-pool",
			description: "A deployment placed on a node pool: shared L4 slots, the pool's extra label and taint.",
			input: ValuesInput{Cloud: string(CloudKarpenter), FiftyOne: &FiftyOneValues{Deployments: []FiftyOneDeployment{{
				Key: "gpuShared", GPU: &GPU{Count: 1},
				NodePool: &PoolPolicy{Name: "l4-shared", Cloud: string(CloudKarpenter), Accelerator: "l4", GPUsPerNode: 1,
					Sharing: SharingTimeSlicing, Replicas: 4, Labels: map[string]string{"example.com/team": "vision"},
					Taints: []Taint{{Key: "example.com/team", Value: "vision", Effect: TaintNoSchedule}}},
			}}}},
		},
		{
			target: TargetGPUOperator, name: "generic-custom-mig",
			description: "A custom mig-parted layout next to a pool's all-balanced: the custom config carries both and all-disabled.",
			input: ValuesInput{Cloud: string(CloudGeneric), GPUOperator: &GPUOperatorValues{
				NodePools: nvidiaPoolsCase(CloudGeneric), MIGStrategy: MIGStrategyMixed, ConfigMapName: "device-plugin",
				MIGLayouts:   []MIGLayout{{Name: "two-3g", Accelerator: "a100-40gb", Devices: map[string]int64{"3g.20gb": 2}}},
				DCGMExporter: ptr(true), ServiceMonitor: ptr(false),
			}},
		},
		{
			target: TargetNumaflow, name: "generic-dra-monovertex",
			description: "MonoVertex with a DRA claim: a v1 List holding the ResourceClaimTemplate (resource.k8s.io/v1) and the MonoVertex.",
			input: ValuesInput{Cloud: string(CloudGeneric), Numaflow: &NumaflowValues{
				Kind: NumaflowKindMonoVertex, Name: "rerank", Image: "registry.example/ml/rerank:2.0", Manifest: true,
				GPU: GPU{Count: 1, DRA: &DRA{}},
			}},
		},
		{
			target: TargetNumaflow, name: "gke-fragment",
			description: "The vertex fragment only (manifest = false): placement, annotations and the UDF container's GPU request.",
			input: ValuesInput{Cloud: string(CloudGKE), Numaflow: &NumaflowValues{
				GPU: GPU{Count: 1, Accelerator: "a100-40gb", Partition: "1g.5gb"}, Spot: true,
				Annotations: map[string]string{"cluster-autoscaler.kubernetes.io/safe-to-evict": "false"},
			}},
		},
	}
}

// valuesGoldenText is the golden file: a header with the case and its
// diagnostics, then the canonical values (none on error).
func valuesGoldenText(t *testing.T, c valuesCase) string {
	t.Helper()
	values, diags := GenerateValues(c.target, c.input)
	if diags.HasError() != c.wantError {
		t.Fatalf("%s: want error %v, got:\n%s", c.path(), c.wantError, formatDiags(diags))
	}
	var b strings.Builder
	b.WriteString("# Code generated by `go test ./internal/render -run TestValuesGolden -update`. DO NOT EDIT.\n")
	b.WriteString("# " + c.target + " on " + c.input.Cloud + ": " + c.description + "\n")
	for _, d := range diags {
		b.WriteString("# " + d.Severity.String() + " at " + d.PathString() + ": " + d.Summary + "\n")
	}
	if c.wantError {
		return b.String()
	}
	text, err := CanonicalValuesYAML(values)
	if err != nil {
		t.Fatal(err)
	}
	b.WriteString(text)
	return b.String()
}
