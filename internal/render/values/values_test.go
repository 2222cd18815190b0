package values

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/gpuform/terraform-provider-gpu/internal/render/catalog"
	"github.com/gpuform/terraform-provider-gpu/internal/render/clouds"
	"github.com/gpuform/terraform-provider-gpu/internal/render/gpudiag"
	"github.com/gpuform/terraform-provider-gpu/internal/render/pool"
	"github.com/gpuform/terraform-provider-gpu/internal/render/rendertest"
	"github.com/gpuform/terraform-provider-gpu/internal/render/spec"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/chartkit"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/fiftyone"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/flyte"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/numaflow"
	"github.com/gpuform/terraform-provider-gpu/internal/render/values/nvidia"
)

func fiftyOneInput(cloud spec.Cloud, deployments ...fiftyone.FiftyOneDeployment) Input {
	return Input{Cloud: string(cloud), Blocks: map[string]any{fiftyone.Block: &fiftyone.Values{Deployments: deployments}}}
}

func mustGenerate(t *testing.T, target string, in Input) map[string]any {
	t.Helper()
	values, diags := Generate(target, in)
	rendertest.RequireNoErrors(t, diags)
	if values == nil {
		t.Fatal("no values without errors")
	}
	return values
}

func valueAt(t *testing.T, values map[string]any, path ...string) any {
	t.Helper()
	v, ok := chartkit.GetPath(values, path...)
	if !ok {
		t.Fatalf("values have no %s", strings.Join(path, "."))
	}
	return v
}

func TestGenerateValuesTargetAndBlocks(t *testing.T) {
	_, diags := Generate("helm", Input{Cloud: "gke"})
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "target", `"fiftyone", "flyte-binary", "flyte-core"`)

	_, diags = Generate(TargetFiftyOne, Input{Cloud: "gke"})
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "fiftyone", "add a fiftyone block")

	in := fiftyOneInput(spec.CloudGKE)
	in.Blocks[flyte.Block] = &flyte.Values{}
	_, diags = Generate(TargetFiftyOne, in)
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "flyte", "reads only the fiftyone block")

	_, diags = Generate(TargetFiftyOne, Input{Cloud: "gcp", Blocks: map[string]any{fiftyone.Block: &fiftyone.Values{}}})
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "cloud", "not a supported cloud")

	// Plan time: the block may still be unknown, and the cloud too.
	if diags := ValidateInput(TargetFiftyOne, Input{}); diags.HasError() {
		t.Fatalf("unknown values must not be errors:\n%s", rendertest.FormatDiags(diags))
	}
}

// TestFiftyOneGPUDiagnosticPath: Render's diagnostics come back at the
// attribute of the deployment block that holds them.
func TestFiftyOneGPUDiagnosticPath(t *testing.T) {
	in := fiftyOneInput(spec.CloudGKE,
		fiftyone.FiftyOneDeployment{Runner: fiftyone.Runner{Key: "cpuOnly", CPU: "2"}},
		fiftyone.FiftyOneDeployment{Runner: fiftyone.Runner{Key: "gpuOne", GPU: &spec.GPU{Count: 1, Accelerator: "l4"}}},
		fiftyone.FiftyOneDeployment{Runner: fiftyone.Runner{Key: "gpuBad", GPU: &spec.GPU{Count: 99, Accelerator: "l4"}, Env: map[string]string{"1BAD": "x"}}},
	)
	_, diags := Generate(TargetFiftyOne, in)
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "fiftyone.deployment[2].gpu.count", "Allowed: an integer from 1 to 16")
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, `fiftyone.deployment[2].env["1BAD"]`, "not starting with a digit")
	d, _ := rendertest.FindDiag(diags, gpudiag.SeverityError, "fiftyone.deployment[2].gpu.count", "")
	if !slices.Equal(d.Path, gpudiag.At("fiftyone", "deployment", 2, "gpu", "count")) {
		t.Fatalf("path %#v", d.Path)
	}
	// Plan time reports the same, and nothing about the unknown fields of
	// the other blocks.
	rendertest.RequireDiag(t, ValidateInput(TargetFiftyOne, in), gpudiag.SeverityError, "fiftyone.deployment[2].gpu.count", "")
}

func TestFiftyOneKeys(t *testing.T) {
	long := "gpu" + strings.Repeat("Worker", 7) // kebab: 52 characters
	in := Input{Cloud: "eks", Blocks: map[string]any{fiftyone.Block: &fiftyone.Values{
		Deployments: []fiftyone.FiftyOneDeployment{
			{Runner: fiftyone.Runner{Key: "gpuA100"}}, {Runner: fiftyone.Runner{Key: "gpu-a100"}},
			{Runner: fiftyone.Runner{Key: "gpu.l4"}}, {Runner: fiftyone.Runner{Key: "l4x1"}},
			{Runner: fiftyone.Runner{Key: long + long}},
		},
		JobTemplates: []fiftyone.JobTemplate{{Runner: fiftyone.Runner{Key: long}}, {Runner: fiftyone.Runner{Key: ""}}},
	}}}

	_, diags := Generate(TargetFiftyOne, in)
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "fiftyone.deployment[1].key", `the same name as key "gpuA100"`)
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "fiftyone.deployment[2].key", `"gpu.l4"`)
	rendertest.RequireDiag(t, diags, gpudiag.SeverityWarning, "fiftyone.deployment[3].key", `"l-4x1", not "l4x1"`)
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "fiftyone.deployment[4].key", "no more than 63 characters")
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "fiftyone.job_template[0].key", "no more than 48 characters")
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "fiftyone.job_template[1].key", "A value is required")
	if len(fiftyone.KebabCase(long)) <= 48 || len(fiftyone.KebabCase(long)) > 63 {
		t.Fatalf("test key %q should be 49..63 characters in kebab case", long)
	}
}

func TestFiftyOneResources(t *testing.T) {
	values := mustGenerate(t, TargetFiftyOne, fiftyOneInput(spec.CloudEKS,
		fiftyone.FiftyOneDeployment{Runner: fiftyone.Runner{Key: "gpuTwo", GPU: &spec.GPU{Count: 2, Accelerator: "a10g"}, CPU: "6", Memory: "48Gi"}},
		fiftyone.FiftyOneDeployment{Runner: fiftyone.Runner{Key: fiftyone.CPUDefaultKey, CPU: "8"}},
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
	cpu := valueAt(t, values, "delegatedOperatorDeployments", "deployments", fiftyone.CPUDefaultKey, "resources", "limits", "cpu")
	if cpu != int64(8) {
		t.Fatalf("teamsDoCpuDefault cpu must stay an integer (schema), got %#v", cpu)
	}
	for _, sel := range []string{"nodeSelector", "tolerations", "affinity"} {
		if _, ok := chartkit.GetPath(values, "delegatedOperatorDeployments", "deployments", fiftyone.CPUDefaultKey, sel); ok {
			t.Errorf("CPU runner must not get GPU %s", sel)
		}
	}

	_, diags := Generate(TargetFiftyOne, fiftyOneInput(spec.CloudEKS, fiftyone.FiftyOneDeployment{Runner: fiftyone.Runner{Key: fiftyone.CPUDefaultKey, CPU: "500m"}}))
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "fiftyone.deployment[0].cpu", "integer")
	_, diags = Generate(TargetFiftyOne, fiftyOneInput(spec.CloudEKS, fiftyone.FiftyOneDeployment{Runner: fiftyone.Runner{Key: "cpu", Size: catalog.SizeSmall}, Replicas: rendertest.Ptr(int32(0))}))
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "fiftyone.deployment[0].size", "no gpu block")
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "fiftyone.deployment[0].replicas", "enabled = false")
}

func TestFiftyOneUnsupportedGPUSettings(t *testing.T) {
	_, diags := Generate(TargetFiftyOne, fiftyOneInput(spec.CloudGeneric, fiftyone.FiftyOneDeployment{Runner: fiftyone.Runner{Key: "dra", GPU: &spec.GPU{Count: 1, DRA: &spec.DRA{}}}}))
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "fiftyone.deployment[0].gpu.dra", "resourceClaims")
	_, diags = Generate(TargetFiftyOne, fiftyOneInput(spec.CloudGKE,
		fiftyone.FiftyOneDeployment{Runner: fiftyone.Runner{Key: "mps", GPU: &spec.GPU{Count: 1, Accelerator: "t4", Sharing: spec.SharingMPS, MaxSharedClients: 4}}}))
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "fiftyone.deployment[0].gpu.sharing", "hostIPC")
	_, diags = Generate(TargetFiftyOne, fiftyOneInput(spec.CloudGKE, fiftyone.FiftyOneDeployment{Runner: fiftyone.Runner{Key: "pool", NodePool: &spec.PoolPolicy{Name: "p"}}}))
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "fiftyone.deployment[0].node_pool", "gpu block")
}

// TestFiftyOneCloudGuide: the per-cloud settings of FiftyOne's GPU guide
// (docs/design/fiftyone.md#cloud-gpu-examples).
func TestFiftyOneCloudGuide(t *testing.T) {
	job := func(cloud spec.Cloud, g spec.GPU) map[string]any {
		in := Input{Cloud: string(cloud), Blocks: map[string]any{fiftyone.Block: &fiftyone.Values{JobTemplates: []fiftyone.JobTemplate{{Runner: fiftyone.Runner{Key: "gpu", GPU: &g}}}}}}
		return asMap(t, valueAt(t, mustGenerate(t, TargetFiftyOne, in), "delegatedOperatorJobTemplates", "jobs", "gpu"))
	}
	auto := job(spec.CloudGKEAutopilot, spec.GPU{Count: 1, Accelerator: "t4"})
	if sel := asMap(t, auto["nodeSelector"]); sel[clouds.GKELabelAccelerator] != "nvidia-tesla-t4" || sel[clouds.GKELabelAcceleratorCount] != "1" {
		t.Errorf("Autopilot selectors: %v", sel)
	}
	if env := asMap(t, auto["env"]); env["LD_LIBRARY_PATH"] != clouds.GKENvidiaLibraryPath {
		t.Errorf("Autopilot env: %v", env)
	}
	wantToleration := func(entry map[string]any, want corev1.Toleration) {
		t.Helper()
		var got []corev1.Toleration
		if err := chartkit.DecodePlain(entry["tolerations"], &got); err != nil || !slices.Contains(got, want) {
			t.Errorf("tolerations %v lack %v", got, want)
		}
	}
	wantToleration(job(spec.CloudAKS, spec.GPU{Count: 1, Accelerator: "t4"}), clouds.TolerateEqual("sku", "gpu"))
	wantToleration(job(spec.CloudEKSAuto, spec.GPU{Count: 1, Accelerator: "l40s"}), clouds.TolerateExists("nvidia.com/gpu"))
}

func TestFlyteValues(t *testing.T) {
	values := mustGenerate(t, TargetFlyteCore, Input{Cloud: "gke", Blocks: map[string]any{flyte.Block: &flyte.Values{Accelerators: []string{"a100-40gb"}}}})
	k8s := asMap(t, valueAt(t, values, flyte.PluginPath(TargetFlyteCore)...))
	if k8s[flyte.KeyGPUDeviceNodeLabel] != clouds.GKELabelAccelerator || k8s[flyte.KeyGPUPartitionSizeLabel] != clouds.GKELabelPartitionSize {
		t.Fatalf("labels: %v", k8s)
	}
	// The docs' example (operator Equal, value DoesNotExist) is invalid;
	// the generated requirement must be a valid NodeSelectorRequirement.
	var req corev1.NodeSelectorRequirement
	if err := chartkit.DecodePlain(k8s[flyte.KeyGPUUnpartitionedReq], &req); err != nil ||
		req.Operator != corev1.NodeSelectorOpDoesNotExist || len(req.Values) != 0 {
		t.Fatalf("unpartitioned requirement %+v (%v)", req, err)
	}
	// resource-tolerations: a list of single-key maps keyed by resource.
	list, ok := k8s[flyte.KeyResourceTolerations].([]any)
	if !ok || len(list) != 1 {
		t.Fatalf("resource-tolerations must be a list of single-key maps: %#v", k8s[flyte.KeyResourceTolerations])
	}
	if _, ok := list[0].(map[string]any)["nvidia.com/gpu"]; !ok {
		t.Fatalf("resource-tolerations key: %#v", list[0])
	}
	if flyte.ContainsTemplate(values) {
		t.Fatal("Flyte values must never contain {{")
	}
}

func TestFlyteVersionsAndTemplates(t *testing.T) {
	_, diags := Generate(TargetFlyteCore, Input{Cloud: "eks", Blocks: map[string]any{flyte.Block: &flyte.Values{FlyteVersion: 2}}})
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "flyte.flyte_version", "only the flyte-binary chart")
	_, diags = Generate(TargetFlyteBinary, Input{Cloud: "eks", Blocks: map[string]any{flyte.Block: &flyte.Values{FlyteVersion: 3}}})
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "flyte.flyte_version", "Allowed values: 1, 2")
	_, diags = Generate(TargetFlyteBinary, Input{Cloud: "eks", Blocks: map[string]any{flyte.Block: &flyte.Values{FlyteVersion: 2, DefaultEnvVars: map[string]string{"A": "b"}}}})
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "flyte.default_env_vars", "_U_EP_OVERRIDE")
	_, diags = Generate(TargetFlyteBinary, Input{Cloud: "eks", Blocks: map[string]any{flyte.Block: &flyte.Values{
		DefaultEnvVars:      map[string]string{"TOKEN": "{{ .Values.secret }}"},
		DefaultNodeSelector: map[string]string{"pool": "{{x}}"},
		Accelerators:        []string{"a10g", "a10g", "k80"},
	}}})
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, `flyte.default_env_vars["TOKEN"]`, "tpl")
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, `flyte.default_node_selector["pool"]`, "")
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "flyte.accelerators[1]", "more than once")
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "flyte.accelerators[2]", "not in the accelerator catalog")

	values := mustGenerate(t, TargetFlyteBinary, Input{Cloud: "eks-auto", Blocks: map[string]any{flyte.Block: &flyte.Values{FlyteVersion: 2, Accelerators: []string{"t4"}}}})
	k8s := asMap(t, valueAt(t, values, flyte.PluginPath(TargetFlyteBinary)...))
	for _, v1Only := range []string{flyte.KeyGPUResourceName, flyte.KeyGPUDeviceNodeLabel, flyte.KeyDefaultEnvVars} {
		if _, ok := k8s[v1Only]; ok {
			t.Errorf("v2 values must not set %s", v1Only)
		}
	}
	devices, err := chartkit.FromSingleKeyMaps(k8s[flyte.KeyAcceleratorDevices])
	if err != nil || devices["T4"] != "t4" {
		t.Fatalf("v2 devices on EKS Auto Mode must be instance-gpu-name values: %v (%v)", devices, err)
	}
}

func TestGPUOperatorValues(t *testing.T) {
	pools := nvidiaPoolsCase(spec.CloudEKS)
	values := mustGenerate(t, TargetGPUOperator, Input{Cloud: "eks", Blocks: map[string]any{nvidia.BlockGPUOperator: &nvidia.GPUOperatorValues{NodePools: pools}}})
	config := asMap(t, valueAt(t, values, "devicePlugin", "config"))
	if config["create"] != true || config["name"] != nvidia.DefaultDevicePluginConfigMap || config["default"] != nvidia.DefaultDevicePluginConfigName {
		t.Fatalf("config: %v", config)
	}
	data := asMap(t, config["data"])
	shared, ok := data["shared"].(string)
	if !ok || !strings.Contains(shared, "renameByDefault: true") || !strings.Contains(shared, "replicas: 4") {
		t.Fatalf("shared pool config must be a YAML string: %#v", data["shared"])
	}
	r, _ := pool.Render(pools[0])
	if shared != strings.TrimRight(r.DevicePluginConfig, "\n") {
		t.Fatalf("the operator's config for a pool must be RenderPool's")
	}
	if valueAt(t, values, "driver", "enabled") != false || valueAt(t, values, "mig", "strategy") != spec.MIGStrategySingle {
		t.Fatal("EKS node groups run the accelerated AMI (driver preinstalled); mig.strategy defaults to single")
	}
	var tolerations []corev1.Toleration
	if err := chartkit.DecodePlain(valueAt(t, values, "daemonsets", "tolerations"), &tolerations); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(tolerations, clouds.TolerateEqual("example.com/mig", "true")) {
		t.Fatalf("operands must tolerate the pools' taints: %v", tolerations)
	}

	for cloud, preinstalled := range map[spec.Cloud]bool{spec.CloudGKE: true, spec.CloudAKS: true, spec.CloudEKS: true, spec.CloudKarpenter: false, spec.CloudGeneric: false} {
		values := mustGenerate(t, TargetGPUOperator, Input{Cloud: string(cloud), Blocks: map[string]any{nvidia.BlockGPUOperator: &nvidia.GPUOperatorValues{}}})
		if valueAt(t, values, "driver", "enabled") == preinstalled || valueAt(t, values, "toolkit", "enabled") == preinstalled {
			t.Errorf("%s: driver and toolkit enabled must be %v", cloud, !preinstalled)
		}
	}
	values = mustGenerate(t, TargetGPUOperator, Input{Cloud: "aks", Blocks: map[string]any{nvidia.BlockGPUOperator: &nvidia.GPUOperatorValues{DriverEnabled: rendertest.Ptr(true)}}})
	if valueAt(t, values, "driver", "enabled") != true || valueAt(t, values, "toolkit", "enabled") != false {
		t.Error("driver_enabled overrides the cloud default, alone")
	}

	_, diags := Generate(TargetGPUOperator, Input{Cloud: "generic", Blocks: map[string]any{nvidia.BlockGPUOperator: &nvidia.GPUOperatorValues{
		MIGStrategy: "both", ConfigMapName: "Bad_Name", DCGMExporter: rendertest.Ptr(false), ServiceMonitor: rendertest.Ptr(true),
		NodePools:   []spec.PoolPolicy{{Name: "default", Cloud: "generic", Accelerator: "t4", GPUsPerNode: 1, Sharing: spec.SharingMPS, Replicas: 2}, {Name: "x", Cloud: "aks"}},
		MIGLayouts:  []nvidia.MIGLayout{{Name: "big", Accelerator: "a100-40gb", Devices: map[string]int64{"4g.20gb": 1, "3g.20gb": 2}}, {Name: "t", Accelerator: "t4"}},
		Tolerations: []corev1.Toleration{{Key: "a", Operator: corev1.TolerationOpExists, Value: "b"}},
	}}})
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "gpu_operator.mig_strategy", "single")
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "gpu_operator.config_map_name", "DNS-1123")
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "gpu_operator.service_monitor", "dcgm_exporter")
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "gpu_operator.node_pools[0].name", "outside every pool")
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "gpu_operator.node_pools[1].cloud", `"aks"`)
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "gpu_operator.mig_layout[0].devices", "compute slices")
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "gpu_operator.mig_layout[1].accelerator", "MIG-capable")
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "gpu_operator.tolerations[0].value", "must be empty")
}

func TestNvidiaCloudRestrictions(t *testing.T) {
	for _, target := range []string{TargetGPUOperator, TargetNvidiaDevicePlugin} {
		in := Input{Cloud: "gke-autopilot", Blocks: map[string]any{nvidia.BlockGPUOperator: &nvidia.GPUOperatorValues{}}}
		if target == TargetNvidiaDevicePlugin {
			in = Input{Cloud: "gke-autopilot", Blocks: map[string]any{nvidia.BlockDevicePlugin: &nvidia.DevicePluginValues{}}}
		}
		_, diags := Generate(target, in)
		rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "cloud", "privileged DaemonSets")
	}
	values := mustGenerate(t, TargetGPUOperator, Input{Cloud: "eks-auto", Blocks: map[string]any{nvidia.BlockGPUOperator: &nvidia.GPUOperatorValues{}}})
	if valueAt(t, values, "devicePlugin", "enabled") != false {
		t.Fatal("EKS Auto Mode runs its own device plugin")
	}
}

func TestDevicePluginValues(t *testing.T) {
	values := mustGenerate(t, TargetNvidiaDevicePlugin, Input{Cloud: "aks", Blocks: map[string]any{nvidia.BlockDevicePlugin: &nvidia.DevicePluginValues{
		NodePools: nvidiaPoolsCase(spec.CloudAKS), MIGStrategy: spec.MIGStrategyMixed,
	}}})
	config := asMap(t, valueAt(t, values, "config"))
	if _, ok := config["data"]; ok {
		t.Fatal("the device plugin chart calls the entries config.map, not data")
	}
	if m := asMap(t, config["map"]); !strings.Contains(fmt.Sprint(m[nvidia.DefaultDevicePluginConfigName]), "migStrategy: mixed") {
		t.Fatalf("default config: %v", m)
	}
	if valueAt(t, values, "nodeSelector", clouds.AKSLabelAccelerator) != "nvidia" {
		t.Fatal("AKS labels NVIDIA nodes accelerator=nvidia")
	}
	_, diags := Generate(TargetNvidiaDevicePlugin, Input{Cloud: "aks", Blocks: map[string]any{nvidia.BlockDevicePlugin: &nvidia.DevicePluginValues{MIGStrategy: "all"}}})
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "nvidia_device_plugin.mig_strategy", `"none"`)
}

func TestNumaflowValues(t *testing.T) {
	fragment := mustGenerate(t, TargetNumaflow, Input{Cloud: "aks", Blocks: map[string]any{numaflow.Block: &numaflow.Values{GPU: spec.GPU{Count: 2, Accelerator: "a100-80gb"}}}})
	if _, ok := fragment["apiVersion"]; ok {
		t.Fatal("manifest = false gives the vertex fragment only")
	}
	resources := asMap(t, valueAt(t, fragment, "udf", "container", "resources"))
	if asMap(t, resources["limits"])["nvidia.com/gpu"] != "2" || asMap(t, resources["requests"])["nvidia.com/gpu"] != "2" {
		t.Fatalf("UDF resources: %v", resources)
	}

	pipeline := mustGenerate(t, TargetNumaflow, Input{Cloud: "eks", Blocks: map[string]any{numaflow.Block: &numaflow.Values{
		Name: "p", Image: "img:1", VertexName: "gpu", Manifest: true, GPU: spec.GPU{Count: 1, Accelerator: "a10g"},
	}}})
	vertices := asList(t, valueAt(t, pipeline, "spec", "vertices"))
	if len(vertices) != 3 || asMap(t, vertices[1])["name"] != "gpu" || pipeline["kind"] != "Pipeline" {
		t.Fatalf("pipeline: %v", pipeline)
	}

	_, diags := Generate(TargetNumaflow, Input{Cloud: "eks", Blocks: map[string]any{numaflow.Block: &numaflow.Values{
		Kind: "dag", VertexName: "out", Manifest: true, GPU: spec.GPU{Count: 1, DRA: &spec.DRA{}}, Annotations: map[string]string{"bad key!": "x"},
	}}})
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "numaflow.kind", "pipeline")
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "numaflow.vertex_name", "source or sink")
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "numaflow.name", "manifest = true or gpu.dra")
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, "numaflow.image", "UDF container image")
	rendertest.RequireDiag(t, diags, gpudiag.SeverityError, `numaflow.annotations["bad key!"]`, "")
}

func TestRemapValuesDiagnostics(t *testing.T) {
	in := Input{Cloud: "eks", Blocks: map[string]any{fiftyone.Block: fiftyOneCase(spec.CloudEKS),
		nvidia.BlockGPUOperator: &nvidia.GPUOperatorValues{NodePools: nvidiaPoolsCase(spec.CloudEKS)}}}
	cases := []struct {
		target string
		path   []any
		want   string
	}{
		{TargetFiftyOne, gpudiag.At("delegatedOperatorDeployments", "deployments", fiftyone.CPUDefaultKey, "resources", "limits", "cpu"), "fiftyone.deployment[1].cpu"},
		{TargetFiftyOne, gpudiag.At("delegatedOperatorDeployments", "deployments", "gpuWorker", "resources", "limits", "nvidia.com/gpu"), "fiftyone.deployment[0].gpu.count"},
		{TargetFiftyOne, gpudiag.At("delegatedOperatorJobTemplates", "jobs", "gpuBatch", "tolerations", 0, "key"), "fiftyone.job_template[0].gpu"},
		{TargetFiftyOne, gpudiag.At("delegatedOperatorDeployments", "deployments", "gpuWorker", "env", "A"), `fiftyone.deployment[0].env["A"]`},
		{TargetFiftyOne, gpudiag.At("unknown"), "fiftyone"},
		{TargetGPUOperator, gpudiag.At("devicePlugin", "config", "data", "shared"), "gpu_operator.node_pools[0]"},
		{TargetGPUOperator, gpudiag.At("mig", "strategy"), "gpu_operator.mig_strategy"},
		{TargetFlyteCore, gpudiag.At("configmap", "k8s", "plugins", "k8s", "default-tolerations", 0), "flyte.default_tolerations"},
	}
	for _, c := range cases {
		d := gpudiag.Diagnostic{Path: append(gpudiag.At(PathRoot), c.path...)}
		got := RemapDiagnostics(c.target, in, gpudiag.Diagnostics{d})[0].PathString()
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
	blocks := map[string]any{
		TargetFiftyOne: &fiftyone.Values{
			Deployments:  []fiftyone.FiftyOneDeployment{{Runner: fiftyone.Runner{GPU: &spec.GPU{}}}, {Runner: fiftyone.Runner{NodePool: &spec.PoolPolicy{}, GPU: &spec.GPU{}}}},
			JobTemplates: []fiftyone.JobTemplate{{Runner: fiftyone.Runner{GPU: &spec.GPU{}}}},
		},
		TargetFlyteCore:          &flyte.Values{Accelerators: []string{""}, NodePools: []spec.PoolPolicy{{}}},
		TargetFlyteBinary:        &flyte.Values{FlyteVersion: 2},
		TargetGPUOperator:        &nvidia.GPUOperatorValues{NodePools: []spec.PoolPolicy{{}}},
		TargetNvidiaDevicePlugin: &nvidia.DevicePluginValues{NodePools: []spec.PoolPolicy{{}}},
		TargetNumaflow:           &numaflow.Values{Manifest: true, NodePool: &spec.PoolPolicy{}},
	}
	inputs := map[string]Input{}
	for target, block := range blocks {
		entry, _ := lookup(target)
		inputs[target] = Input{Blocks: map[string]any{entry.Block: block}}
	}
	for target, in := range inputs {
		for _, cloud := range append([]string{""}, clouds.Names()...) {
			if target == TargetGPUOperator || target == TargetNvidiaDevicePlugin {
				if cloud == string(spec.CloudGKEAutopilot) {
					continue // an error whatever else is unknown
				}
			}
			in.Cloud = cloud
			if diags := ValidateInput(target, in); diags.HasError() {
				t.Errorf("%s on %q: unknown values reported:\n%s", target, cloud, rendertest.FormatDiags(diags.Errors()))
			}
		}
	}
}
