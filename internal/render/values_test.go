package render

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	corev1 "k8s.io/api/core/v1"
)

func fiftyOneInput(cloud Cloud, deployments ...FiftyOneDeployment) ValuesInput {
	return ValuesInput{Cloud: string(cloud), FiftyOne: &FiftyOneValues{Deployments: deployments}}
}

func mustGenerate(t *testing.T, target string, in ValuesInput) map[string]any {
	t.Helper()
	values, diags := GenerateValues(target, in)
	requireNoErrors(t, diags)
	if values == nil {
		t.Fatal("no values without errors")
	}
	return values
}

func valueAt(t *testing.T, values map[string]any, path ...string) any {
	t.Helper()
	v, ok := getPath(values, path...)
	if !ok {
		t.Fatalf("values have no %s", strings.Join(path, "."))
	}
	return v
}

func TestGenerateValuesTargetAndBlocks(t *testing.T) {
	_, diags := GenerateValues("helm", ValuesInput{Cloud: "gke"})
	requireDiag(t, diags, gpudiag.SeverityError, "target", `"fiftyone", "flyte-core"`)

	_, diags = GenerateValues(TargetFiftyOne, ValuesInput{Cloud: "gke"})
	requireDiag(t, diags, gpudiag.SeverityError, "fiftyone", "add a fiftyone block")

	in := fiftyOneInput(CloudGKE)
	in.Flyte = &FlyteValues{}
	_, diags = GenerateValues(TargetFiftyOne, in)
	requireDiag(t, diags, gpudiag.SeverityError, "flyte", "reads only the fiftyone block")

	_, diags = GenerateValues(TargetFiftyOne, ValuesInput{Cloud: "gcp", FiftyOne: &FiftyOneValues{}})
	requireDiag(t, diags, gpudiag.SeverityError, "cloud", "not a supported cloud")

	// Plan time: the block may still be unknown, and the cloud too.
	if diags := ValidateValuesInput(TargetFiftyOne, ValuesInput{}); diags.HasError() {
		t.Fatalf("unknown values must not be errors:\n%s", formatDiags(diags))
	}
}

// TestFiftyOneGPUDiagnosticPath: Render's diagnostics come back at the
// attribute of the deployment block that holds them.
func TestFiftyOneGPUDiagnosticPath(t *testing.T) {
	in := fiftyOneInput(CloudGKE,
		FiftyOneDeployment{Key: "cpuOnly", CPU: "2"},
		FiftyOneDeployment{Key: "gpuOne", GPU: &GPU{Count: 1, Accelerator: "l4"}},
		FiftyOneDeployment{Key: "gpuBad", GPU: &GPU{Count: 99, Accelerator: "l4"}, Env: map[string]string{"1BAD": "x"}},
	)
	_, diags := GenerateValues(TargetFiftyOne, in)
	requireDiag(t, diags, gpudiag.SeverityError, "fiftyone.deployment[2].gpu.count", "Allowed: an integer from 1 to 16")
	requireDiag(t, diags, gpudiag.SeverityError, `fiftyone.deployment[2].env["1BAD"]`, "not starting with a digit")
	d, _ := findDiag(diags, gpudiag.SeverityError, "fiftyone.deployment[2].gpu.count", "")
	if !slices.Equal(d.Path, gpudiag.At("fiftyone", "deployment", 2, "gpu", "count")) {
		t.Fatalf("path %#v", d.Path)
	}
	// Plan time reports the same, and nothing about the unknown fields of
	// the other blocks.
	requireDiag(t, ValidateValuesInput(TargetFiftyOne, in), gpudiag.SeverityError, "fiftyone.deployment[2].gpu.count", "")
}

func TestFiftyOneKeys(t *testing.T) {
	long := "gpu" + strings.Repeat("Worker", 7) // kebab: 52 characters
	in := ValuesInput{Cloud: "eks", FiftyOne: &FiftyOneValues{
		Deployments: []FiftyOneDeployment{
			{Key: "gpuA100"}, {Key: "gpu-a100"}, {Key: "gpu.l4"}, {Key: "l4x1"}, {Key: long + long},
		},
		JobTemplates: []FiftyOneJobTemplate{{Key: long}, {Key: ""}},
	}}
	_, diags := GenerateValues(TargetFiftyOne, in)
	requireDiag(t, diags, gpudiag.SeverityError, "fiftyone.deployment[1].key", `the same name as key "gpuA100"`)
	requireDiag(t, diags, gpudiag.SeverityError, "fiftyone.deployment[2].key", `"gpu.l4"`)
	requireDiag(t, diags, gpudiag.SeverityWarning, "fiftyone.deployment[3].key", `"l-4x1", not "l4x1"`)
	requireDiag(t, diags, gpudiag.SeverityError, "fiftyone.deployment[4].key", "no more than 63 characters")
	requireDiag(t, diags, gpudiag.SeverityError, "fiftyone.job_template[0].key", "no more than 48 characters")
	requireDiag(t, diags, gpudiag.SeverityError, "fiftyone.job_template[1].key", "A value is required")
	if len(KebabCase(long)) <= 48 || len(KebabCase(long)) > 63 {
		t.Fatalf("test key %q should be 49..63 characters in kebab case", long)
	}
}

func TestFiftyOneResources(t *testing.T) {
	values := mustGenerate(t, TargetFiftyOne, fiftyOneInput(CloudEKS,
		FiftyOneDeployment{Key: "gpuTwo", GPU: &GPU{Count: 2, Accelerator: "a10g"}, CPU: "6", Memory: "48Gi"},
		FiftyOneDeployment{Key: fiftyOneCPUDefaultKey, CPU: "8"},
	))
	gpu := asMap(t, valueAt(t, values, "delegatedOperatorDeployments", "deployments", "gpuTwo", "resources"))
	limits, requests := asMap(t, gpu["limits"]), asMap(t, gpu["requests"])
	if limits["nvidia.com/gpu"] != int64(2) || requests["nvidia.com/gpu"] != int64(2) {
		t.Fatalf("GPU must be the same integer in limits and requests: %v", gpu)
	}
	// The chart deep-merges resources with teamsDoCpuDefault's defaults
	// (limits.cpu: 4), so a CPU request always comes with its limit.
	if limits["cpu"] != "6" || requests["cpu"] != "6" || limits["memory"] != "48Gi" {
		t.Fatalf("cpu/memory: %v", gpu)
	}
	cpu := valueAt(t, values, "delegatedOperatorDeployments", "deployments", fiftyOneCPUDefaultKey, "resources", "limits", "cpu")
	if cpu != int64(8) {
		t.Fatalf("teamsDoCpuDefault cpu must stay an integer (schema), got %#v", cpu)
	}
	for _, sel := range []string{"nodeSelector", "tolerations", "affinity"} {
		if _, ok := getPath(values, "delegatedOperatorDeployments", "deployments", fiftyOneCPUDefaultKey, sel); ok {
			t.Errorf("CPU runner must not get GPU %s", sel)
		}
	}

	_, diags := GenerateValues(TargetFiftyOne, fiftyOneInput(CloudEKS, FiftyOneDeployment{Key: fiftyOneCPUDefaultKey, CPU: "500m"}))
	requireDiag(t, diags, gpudiag.SeverityError, "fiftyone.deployment[0].cpu", "integer")
	_, diags = GenerateValues(TargetFiftyOne, fiftyOneInput(CloudEKS, FiftyOneDeployment{Key: "cpu", Size: SizeSmall, Replicas: ptr(int32(0))}))
	requireDiag(t, diags, gpudiag.SeverityError, "fiftyone.deployment[0].size", "no gpu block")
	requireDiag(t, diags, gpudiag.SeverityError, "fiftyone.deployment[0].replicas", "enabled = false")
}

func TestFiftyOneUnsupportedGPUSettings(t *testing.T) {
	_, diags := GenerateValues(TargetFiftyOne, fiftyOneInput(CloudGeneric, FiftyOneDeployment{Key: "dra", GPU: &GPU{Count: 1, DRA: &DRA{}}}))
	requireDiag(t, diags, gpudiag.SeverityError, "fiftyone.deployment[0].gpu.dra", "resourceClaims")
	_, diags = GenerateValues(TargetFiftyOne, fiftyOneInput(CloudGKE,
		FiftyOneDeployment{Key: "mps", GPU: &GPU{Count: 1, Accelerator: "t4", Sharing: SharingMPS, MaxSharedClients: 4}}))
	requireDiag(t, diags, gpudiag.SeverityError, "fiftyone.deployment[0].gpu.sharing", "hostIPC")
	_, diags = GenerateValues(TargetFiftyOne, fiftyOneInput(CloudGKE, FiftyOneDeployment{Key: "pool", NodePool: &PoolPolicy{Name: "p"}}))
	requireDiag(t, diags, gpudiag.SeverityError, "fiftyone.deployment[0].node_pool", "gpu block")
}

// TestFiftyOneCloudGuide: the per-cloud settings of FiftyOne's GPU guide
// (docs/design/fiftyone.md#cloud-gpu-examples).
func TestFiftyOneCloudGuide(t *testing.T) {
	job := func(cloud Cloud, g GPU) map[string]any {
		in := ValuesInput{Cloud: string(cloud), FiftyOne: &FiftyOneValues{JobTemplates: []FiftyOneJobTemplate{{Key: "gpu", GPU: &g}}}}
		return asMap(t, valueAt(t, mustGenerate(t, TargetFiftyOne, in), "delegatedOperatorJobTemplates", "jobs", "gpu"))
	}
	auto := job(CloudGKEAutopilot, GPU{Count: 1, Accelerator: "t4"})
	if sel := asMap(t, auto["nodeSelector"]); sel[gkeLabelAccelerator] != "nvidia-tesla-t4" || sel[gkeLabelAcceleratorCount] != "1" {
		t.Errorf("Autopilot selectors: %v", sel)
	}
	if env := asMap(t, auto["env"]); env["LD_LIBRARY_PATH"] != gkeNvidiaLibraryPath {
		t.Errorf("Autopilot env: %v", env)
	}
	wantToleration := func(entry map[string]any, want corev1.Toleration) {
		t.Helper()
		var got []corev1.Toleration
		if err := decodePlain(entry["tolerations"], &got); err != nil || !slices.Contains(got, want) {
			t.Errorf("tolerations %v lack %v", got, want)
		}
	}
	wantToleration(job(CloudAKS, GPU{Count: 1, Accelerator: "t4"}), tolerateEqual("sku", "gpu"))
	wantToleration(job(CloudEKSAuto, GPU{Count: 1, Accelerator: "l40s"}), tolerateExists("nvidia.com/gpu"))
}

func TestFlyteValues(t *testing.T) {
	values := mustGenerate(t, TargetFlyteCore, ValuesInput{Cloud: "gke", Flyte: &FlyteValues{Accelerators: []string{"a100-40gb"}}})
	k8s := asMap(t, valueAt(t, values, FlytePluginPath(TargetFlyteCore)...))
	if k8s[flyteKeyGPUDeviceNodeLabel] != gkeLabelAccelerator || k8s[flyteKeyGPUPartitionSizeLabel] != gkeLabelPartitionSize {
		t.Fatalf("labels: %v", k8s)
	}
	// The docs' example (operator Equal, value DoesNotExist) is invalid;
	// the generated requirement must be a valid NodeSelectorRequirement.
	var req corev1.NodeSelectorRequirement
	if err := decodePlain(k8s[flyteKeyGPUUnpartitionedReq], &req); err != nil ||
		req.Operator != corev1.NodeSelectorOpDoesNotExist || len(req.Values) != 0 {
		t.Fatalf("unpartitioned requirement %+v (%v)", req, err)
	}
	// resource-tolerations: a list of single-key maps keyed by resource.
	list, ok := k8s[flyteKeyResourceTolerations].([]any)
	if !ok || len(list) != 1 {
		t.Fatalf("resource-tolerations must be a list of single-key maps: %#v", k8s[flyteKeyResourceTolerations])
	}
	if _, ok := list[0].(map[string]any)["nvidia.com/gpu"]; !ok {
		t.Fatalf("resource-tolerations key: %#v", list[0])
	}
	if containsTemplate(values) {
		t.Fatal("Flyte values must never contain {{")
	}
}

func TestFlyteVersionsAndTemplates(t *testing.T) {
	_, diags := GenerateValues(TargetFlyteCore, ValuesInput{Cloud: "eks", Flyte: &FlyteValues{FlyteVersion: 2}})
	requireDiag(t, diags, gpudiag.SeverityError, "flyte.flyte_version", "only the flyte-binary chart")
	_, diags = GenerateValues(TargetFlyteBinary, ValuesInput{Cloud: "eks", Flyte: &FlyteValues{FlyteVersion: 3}})
	requireDiag(t, diags, gpudiag.SeverityError, "flyte.flyte_version", "Allowed values: 1, 2")
	_, diags = GenerateValues(TargetFlyteBinary, ValuesInput{Cloud: "eks", Flyte: &FlyteValues{FlyteVersion: 2, DefaultEnvVars: map[string]string{"A": "b"}}})
	requireDiag(t, diags, gpudiag.SeverityError, "flyte.default_env_vars", "_U_EP_OVERRIDE")
	_, diags = GenerateValues(TargetFlyteBinary, ValuesInput{Cloud: "eks", Flyte: &FlyteValues{
		DefaultEnvVars:      map[string]string{"TOKEN": "{{ .Values.secret }}"},
		DefaultNodeSelector: map[string]string{"pool": "{{x}}"},
		Accelerators:        []string{"a10g", "a10g", "k80"},
	}})
	requireDiag(t, diags, gpudiag.SeverityError, `flyte.default_env_vars["TOKEN"]`, "tpl")
	requireDiag(t, diags, gpudiag.SeverityError, `flyte.default_node_selector["pool"]`, "")
	requireDiag(t, diags, gpudiag.SeverityError, "flyte.accelerators[1]", "more than once")
	requireDiag(t, diags, gpudiag.SeverityError, "flyte.accelerators[2]", "not in the accelerator catalog")

	values := mustGenerate(t, TargetFlyteBinary, ValuesInput{Cloud: "eks-auto", Flyte: &FlyteValues{FlyteVersion: 2, Accelerators: []string{"t4"}}})
	k8s := asMap(t, valueAt(t, values, FlytePluginPath(TargetFlyteBinary)...))
	for _, v1Only := range []string{flyteKeyGPUResourceName, flyteKeyGPUDeviceNodeLabel, flyteKeyDefaultEnvVars} {
		if _, ok := k8s[v1Only]; ok {
			t.Errorf("v2 values must not set %s", v1Only)
		}
	}
	devices, err := fromSingleKeyMaps(k8s[flyteKeyAcceleratorDevices])
	if err != nil || devices["T4"] != "t4" {
		t.Fatalf("v2 devices on EKS Auto Mode must be instance-gpu-name values: %v (%v)", devices, err)
	}
}

func TestGPUOperatorValues(t *testing.T) {
	pools := nvidiaPoolsCase(CloudEKS)
	values := mustGenerate(t, TargetGPUOperator, ValuesInput{Cloud: "eks", GPUOperator: &GPUOperatorValues{NodePools: pools}})
	config := asMap(t, valueAt(t, values, "devicePlugin", "config"))
	if config["create"] != true || config["name"] != DefaultDevicePluginConfigMap || config["default"] != DefaultDevicePluginConfigName {
		t.Fatalf("config: %v", config)
	}
	data := asMap(t, config["data"])
	shared, ok := data["shared"].(string)
	if !ok || !strings.Contains(shared, "renameByDefault: true") || !strings.Contains(shared, "replicas: 4") {
		t.Fatalf("shared pool config must be a YAML string: %#v", data["shared"])
	}
	r, _ := RenderPool(pools[0])
	if shared != strings.TrimRight(r.DevicePluginConfig, "\n") {
		t.Fatalf("the operator's config for a pool must be RenderPool's")
	}
	if valueAt(t, values, "driver", "enabled") != false || valueAt(t, values, "mig", "strategy") != MIGStrategySingle {
		t.Fatal("EKS node groups run the accelerated AMI (driver preinstalled); mig.strategy defaults to single")
	}
	var tolerations []corev1.Toleration
	if err := decodePlain(valueAt(t, values, "daemonsets", "tolerations"), &tolerations); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(tolerations, tolerateEqual("example.com/mig", "true")) {
		t.Fatalf("operands must tolerate the pools' taints: %v", tolerations)
	}

	for cloud, preinstalled := range map[Cloud]bool{CloudGKE: true, CloudAKS: true, CloudEKS: true, CloudKarpenter: false, CloudGeneric: false} {
		values := mustGenerate(t, TargetGPUOperator, ValuesInput{Cloud: string(cloud), GPUOperator: &GPUOperatorValues{}})
		if valueAt(t, values, "driver", "enabled") == preinstalled || valueAt(t, values, "toolkit", "enabled") == preinstalled {
			t.Errorf("%s: driver and toolkit enabled must be %v", cloud, !preinstalled)
		}
	}
	values = mustGenerate(t, TargetGPUOperator, ValuesInput{Cloud: "aks", GPUOperator: &GPUOperatorValues{DriverEnabled: ptr(true)}})
	if valueAt(t, values, "driver", "enabled") != true || valueAt(t, values, "toolkit", "enabled") != false {
		t.Error("driver_enabled overrides the cloud default, alone")
	}

	_, diags := GenerateValues(TargetGPUOperator, ValuesInput{Cloud: "generic", GPUOperator: &GPUOperatorValues{
		MIGStrategy: "both", ConfigMapName: "Bad_Name", DCGMExporter: ptr(false), ServiceMonitor: ptr(true),
		NodePools:   []PoolPolicy{{Name: "default", Cloud: "generic", Accelerator: "t4", GPUsPerNode: 1, Sharing: SharingMPS, Replicas: 2}, {Name: "x", Cloud: "aks"}},
		MIGLayouts:  []MIGLayout{{Name: "big", Accelerator: "a100-40gb", Devices: map[string]int64{"4g.20gb": 1, "3g.20gb": 2}}, {Name: "t", Accelerator: "t4"}},
		Tolerations: []corev1.Toleration{{Key: "a", Operator: corev1.TolerationOpExists, Value: "b"}},
	}})
	requireDiag(t, diags, gpudiag.SeverityError, "gpu_operator.mig_strategy", "single")
	requireDiag(t, diags, gpudiag.SeverityError, "gpu_operator.config_map_name", "DNS-1123")
	requireDiag(t, diags, gpudiag.SeverityError, "gpu_operator.service_monitor", "dcgm_exporter")
	requireDiag(t, diags, gpudiag.SeverityError, "gpu_operator.node_pools[0].name", "outside every pool")
	requireDiag(t, diags, gpudiag.SeverityError, "gpu_operator.node_pools[1].cloud", `"aks"`)
	requireDiag(t, diags, gpudiag.SeverityError, "gpu_operator.mig_layout[0].devices", "compute slices")
	requireDiag(t, diags, gpudiag.SeverityError, "gpu_operator.mig_layout[1].accelerator", "MIG-capable")
	requireDiag(t, diags, gpudiag.SeverityError, "gpu_operator.tolerations[0].value", "must be empty")
}

func TestNvidiaCloudRestrictions(t *testing.T) {
	for _, target := range []string{TargetGPUOperator, TargetNvidiaDevicePlugin} {
		in := ValuesInput{Cloud: "gke-autopilot", GPUOperator: &GPUOperatorValues{}}
		if target == TargetNvidiaDevicePlugin {
			in = ValuesInput{Cloud: "gke-autopilot", NvidiaDevicePlugin: &DevicePluginValues{}}
		}
		_, diags := GenerateValues(target, in)
		requireDiag(t, diags, gpudiag.SeverityError, "cloud", "privileged DaemonSets")
	}
	values := mustGenerate(t, TargetGPUOperator, ValuesInput{Cloud: "eks-auto", GPUOperator: &GPUOperatorValues{}})
	if valueAt(t, values, "devicePlugin", "enabled") != false {
		t.Fatal("EKS Auto Mode runs its own device plugin")
	}
}

func TestDevicePluginValues(t *testing.T) {
	values := mustGenerate(t, TargetNvidiaDevicePlugin, ValuesInput{Cloud: "aks", NvidiaDevicePlugin: &DevicePluginValues{
		NodePools: nvidiaPoolsCase(CloudAKS), MIGStrategy: MIGStrategyMixed,
	}})
	config := asMap(t, valueAt(t, values, "config"))
	if _, ok := config["data"]; ok {
		t.Fatal("the device plugin chart calls the entries config.map, not data")
	}
	if m := asMap(t, config["map"]); !strings.Contains(fmt.Sprint(m[DefaultDevicePluginConfigName]), "migStrategy: mixed") {
		t.Fatalf("default config: %v", m)
	}
	if valueAt(t, values, "nodeSelector", aksLabelAccelerator) != "nvidia" {
		t.Fatal("AKS labels NVIDIA nodes accelerator=nvidia")
	}
	_, diags := GenerateValues(TargetNvidiaDevicePlugin, ValuesInput{Cloud: "aks", NvidiaDevicePlugin: &DevicePluginValues{MIGStrategy: "all"}})
	requireDiag(t, diags, gpudiag.SeverityError, "nvidia_device_plugin.mig_strategy", `"none"`)
}

func TestNumaflowValues(t *testing.T) {
	fragment := mustGenerate(t, TargetNumaflow, ValuesInput{Cloud: "aks", Numaflow: &NumaflowValues{GPU: GPU{Count: 2, Accelerator: "a100-80gb"}}})
	if _, ok := fragment["apiVersion"]; ok {
		t.Fatal("manifest = false gives the vertex fragment only")
	}
	resources := asMap(t, valueAt(t, fragment, "udf", "container", "resources"))
	if asMap(t, resources["limits"])["nvidia.com/gpu"] != "2" || asMap(t, resources["requests"])["nvidia.com/gpu"] != "2" {
		t.Fatalf("UDF resources: %v", resources)
	}

	pipeline := mustGenerate(t, TargetNumaflow, ValuesInput{Cloud: "eks", Numaflow: &NumaflowValues{
		Name: "p", Image: "img:1", VertexName: "gpu", Manifest: true, GPU: GPU{Count: 1, Accelerator: "a10g"},
	}})
	vertices := asList(t, valueAt(t, pipeline, "spec", "vertices"))
	if len(vertices) != 3 || asMap(t, vertices[1])["name"] != "gpu" || pipeline["kind"] != "Pipeline" {
		t.Fatalf("pipeline: %v", pipeline)
	}

	_, diags := GenerateValues(TargetNumaflow, ValuesInput{Cloud: "eks", Numaflow: &NumaflowValues{
		Kind: "dag", VertexName: "out", Manifest: true, GPU: GPU{Count: 1, DRA: &DRA{}}, Annotations: map[string]string{"bad key!": "x"},
	}})
	requireDiag(t, diags, gpudiag.SeverityError, "numaflow.kind", "pipeline")
	requireDiag(t, diags, gpudiag.SeverityError, "numaflow.vertex_name", "source or sink")
	requireDiag(t, diags, gpudiag.SeverityError, "numaflow.name", "manifest = true or gpu.dra")
	requireDiag(t, diags, gpudiag.SeverityError, "numaflow.image", "UDF container image")
	requireDiag(t, diags, gpudiag.SeverityError, `numaflow.annotations["bad key!"]`, "")
}

func TestRemapValuesDiagnostics(t *testing.T) {
	in := ValuesInput{Cloud: "eks", FiftyOne: fiftyOneCase(CloudEKS), GPUOperator: &GPUOperatorValues{NodePools: nvidiaPoolsCase(CloudEKS)}}
	cases := []struct {
		target string
		path   []any
		want   string
	}{
		{TargetFiftyOne, gpudiag.At("delegatedOperatorDeployments", "deployments", fiftyOneCPUDefaultKey, "resources", "limits", "cpu"), "fiftyone.deployment[1].cpu"},
		{TargetFiftyOne, gpudiag.At("delegatedOperatorDeployments", "deployments", "gpuWorker", "resources", "limits", "nvidia.com/gpu"), "fiftyone.deployment[0].gpu.count"},
		{TargetFiftyOne, gpudiag.At("delegatedOperatorJobTemplates", "jobs", "gpuBatch", "tolerations", 0, "key"), "fiftyone.job_template[0].gpu"},
		{TargetFiftyOne, gpudiag.At("delegatedOperatorDeployments", "deployments", "gpuWorker", "env", "A"), `fiftyone.deployment[0].env["A"]`},
		{TargetFiftyOne, gpudiag.At("unknown"), "fiftyone"},
		{TargetGPUOperator, gpudiag.At("devicePlugin", "config", "data", "shared"), "gpu_operator.node_pools[0]"},
		{TargetGPUOperator, gpudiag.At("mig", "strategy"), "gpu_operator.mig_strategy"},
		{TargetFlyteCore, gpudiag.At("configmap", "k8s", "plugins", "k8s", "default-tolerations", 0), "flyte.default_tolerations"},
	}
	for _, c := range cases {
		d := gpudiag.Diagnostic{Path: append(gpudiag.At(ValuesPathRoot), c.path...)}
		got := RemapValuesDiagnostics(c.target, in, gpudiag.Diagnostics{d})[0].PathString()
		if got != c.want {
			t.Errorf("%s %v → %s, want %s", c.target, c.path, got, c.want)
		}
	}
}

// asMap is a checked type assertion for test values.
func asMap(t *testing.T, v any) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%T is not a map: %v", v, v)
	}
	return m
}

func asList(t *testing.T, v any) []any {
	t.Helper()
	l, ok := v.([]any)
	if !ok {
		t.Fatalf("%T is not a list: %v", v, v)
	}
	return l
}

// TestValidateValuesInputSkipsUnknowns: at plan time unknown values arrive
// as zero values; nothing may be reported as missing.
func TestValidateValuesInputSkipsUnknowns(t *testing.T) {
	inputs := map[string]ValuesInput{
		TargetFiftyOne: {FiftyOne: &FiftyOneValues{
			Deployments:  []FiftyOneDeployment{{GPU: &GPU{}}, {NodePool: &PoolPolicy{}, GPU: &GPU{}}},
			JobTemplates: []FiftyOneJobTemplate{{GPU: &GPU{}}},
		}},
		TargetFlyteCore:          {Flyte: &FlyteValues{Accelerators: []string{""}, NodePools: []PoolPolicy{{}}}},
		TargetFlyteBinary:        {Flyte: &FlyteValues{FlyteVersion: 2}},
		TargetGPUOperator:        {GPUOperator: &GPUOperatorValues{NodePools: []PoolPolicy{{}}}},
		TargetNvidiaDevicePlugin: {NvidiaDevicePlugin: &DevicePluginValues{NodePools: []PoolPolicy{{}}}},
		TargetNumaflow:           {Numaflow: &NumaflowValues{Manifest: true, NodePool: &PoolPolicy{}}},
	}
	for target, in := range inputs {
		for _, cloud := range append([]string{""}, CloudNames()...) {
			if target == TargetGPUOperator || target == TargetNvidiaDevicePlugin {
				if cloud == string(CloudGKEAutopilot) {
					continue // an error whatever else is unknown
				}
			}
			in.Cloud = cloud
			if diags := ValidateValuesInput(target, in); diags.HasError() {
				t.Errorf("%s on %q: unknown values reported:\n%s", target, cloud, formatDiags(diags.Errors()))
			}
		}
	}
}
